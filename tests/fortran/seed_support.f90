! seed_support.f90 — shared by the Fortran tests: the two-element example of docs/concepts.md
! (the "seed" example, two order-2 elements sharing nodes 3, 6 and 9) typed in by hand from
! its Tables 1-4 (the same values as tests/support/reference_tables.hpp), a brute-force
! reference for other data on the same ids, and the checking helpers (each rank prints what
! differs; finish() fails the test on any rank).
!
! Entries are numbered 1..18: element 1 (rank 0 at P = 2) is 1..9, element 2 is 10..18.
! At P = 1 one rank holds all 18; at P = 2 rank r holds 9r+1 .. 9r+9.
module seed_support
  use mpi
  implicit none
  private

  integer, parameter, public :: dp = kind(1.0d0)
  integer, parameter, public :: i8 = selected_int_kind(18)

  ! Table 1.
  integer(i8), parameter, public :: seed_id(18) = [integer(i8) :: &
      1, 2, 3, 4, 5, 6, 7, 8, 9, &
      3, 10, 11, 6, 12, 13, 9, 14, 15]
  integer(i8), parameter, public :: seed_id_asym(18) = [integer(i8) :: &
      1, 2, -3, 4, 5, 6, 7, 8, -9, &
      3, 10, 11, -6, 12, 13, 9, 14, 15]
  real(dp), parameter, public :: seed_u(18) = [ &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 0.4_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      1.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 0.8_dp, 0.3_dp, 0.7_dp]

  ! Tables 2-4, one column per op in the tables' order: sum, mult, min, max. Typed-in data:
  ! Tables 2 and 4 share their layout (eight rows of nine values), not their values.
  real(dp), parameter, public :: table2(18, 4) = reshape([ &
      1.0_dp, 1.5_dp, 3.0_dp, 2.0_dp, 0.8_dp, 1.6_dp, 0.5_dp, 0.1_dp, 3.3_dp, &
      3.0_dp, 0.3_dp, 0.9_dp, 1.6_dp, 1.2_dp, 2.1_dp, 3.3_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 0.48_dp, 0.5_dp, 0.1_dp, 2.0_dp, &
      2.0_dp, 0.3_dp, 0.9_dp, 0.48_dp, 1.2_dp, 2.1_dp, 2.0_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 1.0_dp, 2.0_dp, 0.8_dp, 0.4_dp, 0.5_dp, 0.1_dp, 0.8_dp, &
      1.0_dp, 0.3_dp, 0.9_dp, 0.4_dp, 1.2_dp, 2.1_dp, 0.8_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 1.2_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      2.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 2.5_dp, 0.3_dp, 0.7_dp], [18, 4])
  ! Table 3 (id_asym, transpose = 0) has the same column for every op: the owners' values.
  real(dp), parameter :: table3_column(18) = [ &
      1.0_dp, 1.5_dp, 1.0_dp, 2.0_dp, 0.8_dp, 0.4_dp, 0.5_dp, 0.1_dp, 0.8_dp, &
      1.0_dp, 0.3_dp, 0.9_dp, 0.4_dp, 1.2_dp, 2.1_dp, 0.8_dp, 0.3_dp, 0.7_dp]
  real(dp), parameter, public :: table3(18, 4) = reshape( &
      [table3_column, table3_column, table3_column, table3_column], [18, 4])
  real(dp), parameter, public :: table4(18, 4) = reshape([ &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 1.6_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      3.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 3.3_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 0.48_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      2.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 2.0_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 0.4_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      1.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 0.8_dp, 0.3_dp, 0.7_dp, &
      1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 1.2_dp, 0.5_dp, 0.1_dp, 2.5_dp, &
      2.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 2.5_dp, 0.3_dp, 0.7_dp], [18, 4])

  character(len=4), parameter, public :: op_names(4) = ['sum ', 'mult', 'min ', 'max ']

  integer, public, protected :: rank = 0, ranks = 1
  integer, public, protected :: first = 1, count = 18   ! this rank's entries first..first+count-1

  public :: start, finish, check_real, check_int, check_true, check_error, reference

  integer :: failures = 0

contains

  ! MPI_Init and this rank's share of the example; the tests run at P = 1 or 2 only.
  subroutine start()
    integer :: ierr
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
    select case (ranks)
    case (1)
      first = 1
      count = 18
    case (2)
      first = 9*rank + 1
      count = 9
    case default
      if (rank == 0) print '(a,i0)', 'this test runs at P = 1 or 2, not ', ranks
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end select
  end subroutine

  ! Fails the test (error stop on every rank) if any check failed on any rank.
  subroutine finish(name)
    character(len=*), intent(in) :: name
    integer :: total, ierr
    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      if (total == 0) then
        print '(a,a,i0)', name, ': all checks passed at P = ', ranks
      else
        print '(a,a,i0,a,i0)', name, ': ', total, ' check(s) failed at P = ', ranks
      end if
    end if
    call MPI_Finalize(ierr)
    if (total /= 0) error stop 1
  end subroutine

  subroutine report(what)
    character(len=*), intent(in) :: what
    failures = failures + 1
    print '(a,i0,a,i0,a,a)', '[rank ', rank, '/', ranks, '] FAIL ', what
  end subroutine

  ! Doubles from the tables are not exact in binary (0.48 vs 0.4*1.2): relative 1e-12.
  subroutine check_real(what, got, expected, tolerance)
    character(len=*), intent(in) :: what
    real(dp), intent(in) :: got(:), expected(:)
    real(dp), intent(in), optional :: tolerance
    real(dp) :: tol
    integer :: i
    character(len=200) :: line
    tol = 1.0e-12_dp
    if (present(tolerance)) tol = tolerance
    do i = 1, size(expected)
      if (abs(got(i) - expected(i)) > tol*max(abs(expected(i)), tiny(1.0_dp))) then
        write (line, '(a,i0,a,es24.16,a,es24.16)') ' entry ', i, ': got ', got(i), &
            ', expected ', expected(i)
        call report(what//trim(line))
      end if
    end do
  end subroutine

  subroutine check_int(what, got, expected)
    character(len=*), intent(in) :: what
    integer(i8), intent(in) :: got(:), expected(:)
    integer :: i
    character(len=200) :: line
    do i = 1, size(expected)
      if (got(i) /= expected(i)) then
        write (line, '(a,i0,a,i0,a,i0)') ' entry ', i, ': got ', got(i), ', expected ', &
            expected(i)
        call report(what//trim(line))
      end if
    end do
  end subroutine

  subroutine check_true(what, condition)
    character(len=*), intent(in) :: what
    logical, intent(in) :: condition
    if (.not. condition) call report(what)
  end subroutine

  ! After a call expected to fail in return mode: the code, and a message containing `part`.
  subroutine check_error(what, code, message, expected_code, part)
    character(len=*), intent(in) :: what, message, part
    integer, intent(in) :: code, expected_code
    character(len=40) :: codes
    if (code /= expected_code) then
      write (codes, '(a,i0,a,i0)') ': code ', code, ', expected ', expected_code
      call report(what//trim(codes)//' (message "'//message//'")')
    else if (index(message, part) == 0) then
      call report(what//': message "'//message//'" does not contain "'//part//'"')
    else if (rank == 0) then
      print '(a,a,a,a)', what, ' -> "', message, '"'
    end if
  end subroutine

  ! The result gs gives for entry i of the whole example with ids `ids` and data `u`,
  ! computed by brute force from the rules of docs/concepts.md, for ops 1..4.
  pure real(dp) function reference(ids, u, i, op, transpose) result(value)
    integer(i8), intent(in) :: ids(:)
    real(dp), intent(in) :: u(:)
    integer, intent(in) :: i, op, transpose
    logical :: symmetric, contributes
    integer :: j
    value = u(i)
    if (ids(i) == 0) return
    symmetric = .true.
    do j = 1, size(ids)
      if (abs(ids(j)) == abs(ids(i)) .and. ids(j) < 0) symmetric = .false.
    end do
    if (.not. symmetric .and. transpose /= 0 .and. ids(i) < 0) return   ! flagged keeps
    select case (op)
    case (1)
      value = 0
    case (2)
      value = 1
    case (3)
      value = huge(1.0_dp)
    case default
      value = -huge(1.0_dp)
    end select
    do j = 1, size(ids)
      if (abs(ids(j)) /= abs(ids(i))) cycle
      contributes = symmetric .or. transpose /= 0 .or. ids(j) > 0
      if (.not. contributes) cycle
      select case (op)
      case (1)
        value = value + u(j)
      case (2)
        value = value*u(j)
      case (3)
        value = min(value, u(j))
      case default
        value = max(value, u(j))
      end select
    end do
  end function

end module seed_support
