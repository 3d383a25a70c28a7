! seed_tables.f90 — Tables 2, 3 and 4 of docs/concepts.md from Fortran, for the four ops, through
! gs_setup / gs_op with dom = 1 (double): one element per rank at P = 2, both elements on
! one rank at P = 1 (the ids of Table 1 concatenated). Every entry is checked against the
! hand-typed tables, and every copy of a shared node must hold bitwise the same value.
program seed_tables
  use mpi
  use gsr
  use seed_support
  implicit none

  integer :: h_sym, h_asym, op, ierr
  real(dp) :: u(18)

  call start()

  call gs_setup(h_sym, seed_id(first:), count, MPI_COMM_WORLD, ranks)
  call gs_setup(h_asym, seed_id_asym(first:), count, MPI_COMM_WORLD, ranks)
  call check_true('gs_setup returned a handle', h_sym > 0 .and. h_asym > 0 .and. h_sym /= h_asym)

  do op = 1, 4
    ! Table 2: symmetric ids; transpose makes no difference without flagged entries.
    u(1:count) = seed_u(first:first + count - 1)
    call gs_op(h_sym, u, gsr_double, op, 0)
    call check_real('table 2 '//trim(op_names(op))//' transpose=0', u(1:count), &
                    table2(first:first + count - 1, op))
    call check_copies('table 2 '//trim(op_names(op)), seed_id, u)

    u(1:count) = seed_u(first:first + count - 1)
    call gs_op(h_sym, u, gsr_double, op, 1)
    call check_real('table 2 '//trim(op_names(op))//' transpose=1', u(1:count), &
                    table2(first:first + count - 1, op))

    ! Table 3: id_asym, transpose = 0 (scatter: flagged entries receive, do not contribute).
    u(1:count) = seed_u(first:first + count - 1)
    call gs_op(h_asym, u, gsr_double, op, 0)
    call check_real('table 3 '//trim(op_names(op)), u(1:count), table3(first:first + count - 1, op))
    call check_copies('table 3 '//trim(op_names(op)), seed_id_asym, u)

    ! Table 4: id_asym, transpose = 1 (gather: flagged entries contribute, keep their value).
    u(1:count) = seed_u(first:first + count - 1)
    call gs_op(h_asym, u, gsr_double, op, 1)
    call check_real('table 4 '//trim(op_names(op)), u(1:count), table4(first:first + count - 1, op))
  end do

  ! The brute-force reference used by the other tests must agree with the tables.
  do op = 1, 4
    call check_real('reference vs table 2 '//trim(op_names(op)), reference_all(seed_id, op, 0), &
                    table2(:, op))
    call check_real('reference vs table 3 '//trim(op_names(op)), &
                    reference_all(seed_id_asym, op, 0), table3(:, op))
    call check_real('reference vs table 4 '//trim(op_names(op)), &
                    reference_all(seed_id_asym, op, 1), table4(:, op))
  end do

  call gs_free(h_sym)
  call gs_free(h_asym)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call finish('seed_tables')

contains

  function reference_all(ids, op, transpose) result(values)
    integer(i8), intent(in) :: ids(18)
    integer, intent(in) :: op, transpose
    real(dp) :: values(18)
    integer :: i
    do i = 1, 18
      values(i) = reference(ids, seed_u, i, op, transpose)
    end do
  end function

  ! Copy consistency: every entry of a group that received the result holds the same bits.
  subroutine check_copies(what, ids, u)
    character(len=*), intent(in) :: what
    integer(i8), intent(in) :: ids(18)
    real(dp), intent(in) :: u(18)
    real(dp) :: all(18)
    integer :: i, j, ierr
    if (ranks == 1) then
      all = u
    else
      call MPI_Allgather(u, 9, MPI_DOUBLE_PRECISION, all, 9, MPI_DOUBLE_PRECISION, &
                         MPI_COMM_WORLD, ierr)
    end if
    do i = 1, 18
      do j = i + 1, 18
        if (abs(ids(i)) == abs(ids(j))) then
          call check_true(what//': copies of a shared node differ in their bits', &
                          transfer(all(i), 0_i8) == transfer(all(j), 0_i8))
        end if
      end do
    end do
  end subroutine

end program seed_tables
