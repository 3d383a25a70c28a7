! gslib_reference.f90 — what the gslib-style tests (gslib_nek.f) compare with: the same
! operations done through the module `gsr`, on a handle of the module set up by ref_setup
! from the same ids. External procedures, so fixed-form F77 can call them without a module;
! one per element type.
module gslib_reference_state
  implicit none
  integer :: ref_handle = 0
end module

subroutine ref_setup(id, n)
  use mpi
  use gsr
  use gslib_reference_state
  implicit none
  integer, intent(in) :: n
  integer(8), intent(in) :: id(n)
  integer :: np, ierr
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call gs_setup(ref_handle, id, n, MPI_COMM_WORLD, np)
end subroutine

subroutine ref_free()
  use gsr
  use gslib_reference_state
  implicit none
  call gs_free(ref_handle)
  ref_handle = 0
end subroutine

subroutine ref_op_r8(n, u, op, transpose)
  use gsr
  use gslib_reference_state
  implicit none
  integer, intent(in) :: n, op, transpose
  real(8), intent(inout) :: u(n)
  call gs_op(ref_handle, u, gsr_double, op, transpose)
end subroutine

subroutine ref_op_i4(n, u, op, transpose)
  use gsr
  use gslib_reference_state
  implicit none
  integer, intent(in) :: n, op, transpose
  integer(4), intent(inout) :: u(n)
  call gs_op(ref_handle, u, gsr_sint, op, transpose)
end subroutine

subroutine ref_op_i8(n, u, op, transpose)
  use gsr
  use gslib_reference_state
  implicit none
  integer, intent(in) :: n, op, transpose
  integer(8), intent(inout) :: u(n)
  call gs_op(ref_handle, u, gsr_slong, op, transpose)
end subroutine

subroutine ref_unique(id, n)
  use mpi
  use gsr
  implicit none
  integer, intent(in) :: n
  integer(8), intent(inout) :: id(n)
  call gs_unique(id, n, MPI_COMM_WORLD)
end subroutine
