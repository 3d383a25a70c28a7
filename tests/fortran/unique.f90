! unique.f90 — gs_unique and gs_setup_ext(unique = 1) from Fortran.
! At P = 2, gs_unique applied to Table 1's id must give Table 1's id_asym exactly; at P = 1
! (both elements on one rank) the first copy in index order is kept (docs/concepts.md, "unique").
! A unique setup must behave as if gs_unique had been applied and leave id untouched.
program unique
  use mpi
  use gsr
  use seed_support
  implicit none

  ! P = 1: id concatenated, the second copy of nodes 3, 6 and 9 flagged.
  integer(i8), parameter :: unique_one_rank(18) = [integer(i8) :: &
      1, 2, 3, 4, 5, 6, 7, 8, 9, &
      -3, 10, 11, -6, 12, 13, -9, 14, 15]
  integer(i8) :: id(18), expected(18), before(18)
  real(dp) :: u(18), want(18)
  integer :: h, op, transpose, i

  call start()
  if (ranks == 1) then
    expected = unique_one_rank
  else
    expected = seed_id_asym
  end if

  ! Table 1: id -> id_asym.
  id(1:count) = seed_id(first:first + count - 1)
  call gs_unique(id, count, MPI_COMM_WORLD)
  call check_int('gs_unique(id)', id(1:count), expected(first:first + count - 1))

  ! Applying it again changes nothing.
  call gs_unique(id, count, MPI_COMM_WORLD)
  call check_int('gs_unique twice', id(1:count), expected(first:first + count - 1))

  ! Entries with id 0 take no part and stay 0.
  id(1:count) = seed_id(first:first + count - 1)
  id(2) = 0
  call gs_unique(id, count, MPI_COMM_WORLD)
  call check_true('gs_unique keeps id 0', id(2) == 0)

  ! A unique setup on the unflagged ids: as if with the ids above; id itself unchanged.
  id(1:count) = seed_id(first:first + count - 1)
  before = id
  call gs_setup_ext(h, id, count, MPI_COMM_WORLD, 1, gsr_auto, 0)
  call check_int('gs_setup_ext(unique=1) leaves id unchanged', id(1:count), before(1:count))
  do transpose = 0, 1
    do op = 1, 4
      u(1:count) = seed_u(first:first + count - 1)
      call gs_op(h, u, gsr_double, op, transpose)
      do i = 1, 18
        want(i) = reference(expected, seed_u, i, op, transpose)
      end do
      if (ranks == 2) then
        ! Here the unique ids are Table 1's id_asym, so Tables 3 and 4 hold.
        if (transpose == 0) then
          want = table3(:, op)
        else
          want = table4(:, op)
        end if
      end if
      call check_real('unique setup, '//trim(op_names(op))//merge(' transpose=1', &
                      ' transpose=0', transpose == 1), u(1:count), want(first:first + count - 1))
    end do
  end do
  call gs_free(h)

  call finish('unique')
end program unique
