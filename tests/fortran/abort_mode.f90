! abort_mode.f90 — in the default error mode a bad call prints "gsr: <call>: <what>" and
! aborts the job. The argument picks the bad call; the test passes on the message.
program abort_mode
  use mpi
  use gsr
  use seed_support
  implicit none

  character(len=16) :: which
  integer :: h
  real(dp) :: u(18)

  call start()
  call get_command_argument(1, which)
  select case (trim(which))
  case ('np')
    call gs_setup(h, seed_id(first:), count, MPI_COMM_WORLD, ranks + 1)
  case ('dom')
    call gs_setup(h, seed_id(first:), count, MPI_COMM_WORLD, ranks)
    u = seed_u
    call gs_op(h, u, 9, gsr_sum, 0)
  case default
    print '(a)', 'usage: abort_mode np|dom'
  end select
  print '(a)', 'NOT ABORTED'
  error stop 1
end program abort_mode
