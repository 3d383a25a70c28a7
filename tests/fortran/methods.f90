! methods.f90 — gs_setup_ext from Fortran with each exchange method forced (and auto, and
! verbose output): the method changes nothing in Tables 2, 3 and 4 (docs/concepts.md), and
! gsr_method_name reports the method in use.
program methods
  use mpi
  use gsr
  use seed_support
  implicit none

  integer, parameter :: forced(4) = [gsr_pairwise, gsr_crystal_router, gsr_all_reduce, gsr_neighbor]
  character(len=14), parameter :: names(4) = ['pairwise      ', 'crystal_router', &
                                              'allreduce     ', 'neighbor      ']
  integer :: m

  call start()
  ! Return mode, so that a method this build lacks fails its own checks, not the whole job.
  call gsr_set_error_mode(gsr_errors_return)
  do m = 1, size(forced)
    call method_case(forced(m), trim(names(m)), 0)
  end do
  call method_case(gsr_auto, '', 1)
  call finish('methods')

contains

  subroutine method_case(method, name, verbose)
    integer, intent(in) :: method, verbose
    character(len=*), intent(in) :: name
    integer :: h_sym, h_asym, op
    real(dp) :: u(18)
    character(len=:), allocatable :: in_use
    character(len=32) :: label

    label = 'method '//name
    if (method == gsr_auto) label = 'method auto'
    call gs_setup_ext(h_sym, seed_id(first:), count, MPI_COMM_WORLD, 0, method, verbose)
    call gs_setup_ext(h_asym, seed_id_asym(first:), count, MPI_COMM_WORLD, 0, method, 0, &
                      np=ranks)
    if (h_sym == 0 .or. h_asym == 0) then
      call check_true(trim(label)//': setup failed: '//gsr_last_error_message(), .false.)
      call gsr_clear_error()
      return
    end if
    in_use = gsr_method_name(h_sym)
    if (method /= gsr_auto) then
      call check_true(trim(label)//': gsr_method_name says "'//in_use//'"', in_use == name)
    else
      call check_true('method auto: gsr_method_name says "'//in_use//'"', &
                      in_use == 'pairwise' .or. in_use == 'crystal_router' .or. &
                      in_use == 'allreduce')
    end if
    do op = 1, 4
      u(1:count) = seed_u(first:first + count - 1)
      call gs_op(h_sym, u, gsr_double, op, 0)
      call check_real(trim(label)//' table 2 '//trim(op_names(op)), u(1:count), &
                      table2(first:first + count - 1, op))
      u(1:count) = seed_u(first:first + count - 1)
      call gs_op(h_asym, u, gsr_double, op, 0)
      call check_real(trim(label)//' table 3 '//trim(op_names(op)), u(1:count), &
                      table3(first:first + count - 1, op))
      u(1:count) = seed_u(first:first + count - 1)
      call gs_op(h_asym, u, gsr_double, op, 1)
      call check_real(trim(label)//' table 4 '//trim(op_names(op)), u(1:count), &
                      table4(first:first + count - 1, op))
    end do
    call gs_free(h_sym)
    call gs_free(h_asym)
  end subroutine

end program methods
