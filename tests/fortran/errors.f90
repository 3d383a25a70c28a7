! errors.f90 — bad calls from Fortran give clear errors (return mode): the code, a message
! naming the call and what is wrong, a zero handle from a failed setup, data left unchanged,
! and a library that still works afterwards. Each check names its entry of the error
! catalogue (docs/errors.md). Run at P = 1 and, at P = 2, once per exchange method
! (GSR_METHOD, tests/fortran/CMakeLists.txt), since the message a rank gets for another
! rank's bad call must not depend on the method.
program errors
  use mpi
  use gsr
  use seed_support
  implicit none

  integer :: h, h_freed, request
  real(dp) :: u(18), v(18), w(18)
  integer :: np_here

  call start()
  call gsr_set_error_mode(gsr_errors_return)
  call check_true('gsr_get_error_mode is return', gsr_get_error_mode() == gsr_errors_return)
  call check_true('no error at start', gsr_last_error() == gsr_success)
  call check_true('no message at start', len(gsr_last_error_message()) == 0)

  ! np must be the size of the communicator.
  call gs_setup(h, seed_id(first:), count, MPI_COMM_WORLD, ranks + 1)
  call check_true('gs_setup with a wrong np returns handle 0', h == 0)
  call check_error('E-F-NP: gs_setup np = P+1', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'gs_setup: np = ')
  call check_error('E-F-NP: gs_setup np = P+1 names the size', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_invalid_argument, 'communicator has')

  ! ... also when only one rank is wrong: that rank says why, the others that it failed.
  if (ranks == 2) then
    np_here = ranks
    if (rank == 1) np_here = 7
    call gs_setup(h, seed_id(first:), count, MPI_COMM_WORLD, np_here)
    call check_true('gs_setup with one wrong np returns handle 0', h == 0)
    if (rank == 1) then
      call check_error('E-F-NP: gs_setup np = 7 on rank 1', gsr_last_error(), &
                       gsr_last_error_message(), gsr_err_invalid_argument, 'np = 7')
    else
      call check_error('E-F-REMOTE-ARGS: gs_setup np = 7 on the other rank', gsr_last_error(), &
                       gsr_last_error_message(), gsr_err_remote, &
                       'gs_setup: another rank found an error in its arguments')
    end if
  end if

  call gs_setup(h, seed_id(first:), count, MPI_COMM_WORLD, ranks)
  call check_true('gs_setup after a failed one', h > 0)
  call check_true('a success keeps the last error', gsr_last_error() /= gsr_success)
  call gsr_clear_error()
  call check_true('gsr_clear_error clears the code', gsr_last_error() == gsr_success)
  call check_true('gsr_clear_error clears the message', len(gsr_last_error_message()) == 0)

  call gs_setup(h_freed, seed_id(first:), -1, MPI_COMM_WORLD, ranks)
  call check_error('E-F-N-NEGATIVE: gs_setup n = -1', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'n = -1 is negative')
  call gs_setup_ext(h_freed, seed_id(first:), count, MPI_COMM_WORLD, 0, 9, 0)
  call check_error('E-F-METHOD-CODE: gs_setup_ext method = 9', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'unknown method code 9')
  call check_true('gs_setup_ext with a bad method returns handle 0', h_freed == 0)
  call gs_setup_ext(h_freed, seed_id(first:), count, MPI_COMM_WORLD, 0, gsr_auto, 0, np=ranks + 2)
  call check_error('E-F-NP: gs_setup_ext np = P+2', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'but the communicator has')
  call gs_setup(h_freed, seed_id(first:), count, MPI_COMM_NULL, ranks)
  call check_error('E-F-COMM-NULL: gs_setup on MPI_COMM_NULL', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_invalid_argument, &
                   'gs_setup: the communicator is MPI_COMM_NULL')
  call check_true('gs_setup on MPI_COMM_NULL returns handle 0', h_freed == 0)

  ! Bad dom and op codes; the data stay as they were.
  call bad_op('E-F-DOM: dom = 0', 0, gsr_sum, 'gs_op: unknown dom code 0')
  call bad_op('E-F-DOM: dom = 5', 5, gsr_sum, 'gs_op: unknown dom code 5')
  call bad_op('E-F-DOM: dom = -1', -1, gsr_sum, 'unknown dom code -1')
  call bad_op('E-F-OP: op = 0', gsr_double, 0, 'gs_op: unknown op code 0')
  call bad_op('E-F-OP: op = 6', gsr_double, 6, 'gs_op: unknown op code 6')

  u(1:count) = seed_u(first:first + count - 1)
  call gs_op_vec(h, u, 1, 7, gsr_sum, 0)
  call check_error('E-F-DOM: gs_op_vec dom = 7', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'gs_op_vec: unknown dom code 7')
  call gs_op_vec(h, u, 0, gsr_double, gsr_sum, 0)
  call check_error('E-F-K-VEC: gs_op_vec k = 0', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'k = 0, the number of components must be >= 1')
  call gs_op_many(h, u, v, w, k=7, dom=gsr_double, op=gsr_sum, transpose=0)
  call check_error('E-F-K-MANY: gs_op_many k = 7', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'gs_op_many: k = 7, but between 1 and 6 arrays can be passed')
  call gs_many(h, u, v, k=0, dom=gsr_double, op=gsr_sum, transpose=0)
  call check_error('E-F-K-MANY: gs_many k = 0', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'k = 0')
  call gs_many(h, u, v, k=3, dom=gsr_double, op=gsr_sum, transpose=0)
  call check_error('E-F-ABSENT-ARRAY: gs_many k = 3 with two arrays', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_invalid_argument, 'u3 is absent')
  call gs_many(h, u, v, k=2, dom=gsr_double, op=9, transpose=0)
  call check_error('E-F-OP: gs_many op = 9', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'unknown op code 9')
  call check_real('data unchanged by failed vec/many calls', u(1:count), &
                  seed_u(first:first + count - 1), 0.0_dp)

  ! bpr is for integers: on doubles the C library refuses it.
  call gsr_clear_error()
  call gs_op(h, u, gsr_double, gsr_bpr, 0)
  call check_error('E-ARG-BPR: gs_op bpr on doubles', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'gsr: gs_op: ')
  call check_true('the bpr error names the op', index(gsr_last_error_message(), 'bpr') > 0)
  call check_real('data unchanged by bpr on doubles', u(1:count), &
                  seed_u(first:first + count - 1), 0.0_dp)

  ! Handles that are not live.
  call gs_op(0, u, gsr_double, gsr_sum, 0)
  call check_error('E-F-HANDLE-UNKNOWN: gs_op on handle 0', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_state, 'handle 0 was never returned by gs_setup')
  call gs_op(4242, u, gsr_double, gsr_sum, 0)
  call check_error('E-F-HANDLE-UNKNOWN: gs_op on handle 4242', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_state, 'handle 4242 was never returned')
  call gs_setup(h_freed, seed_id(first:), count, MPI_COMM_WORLD, ranks)
  call gs_free(h_freed)
  call gsr_clear_error()
  call gs_op(h_freed, u, gsr_double, gsr_sum, 0)
  call check_error('E-F-HANDLE-FREED: gs_op on a freed handle', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_state, 'has been freed')
  call gs_free(h_freed)
  call check_error('E-F-HANDLE-FREED: gs_free twice', gsr_last_error(), gsr_last_error_message(), &
                   gsr_err_state, 'gs_free: handle')
  call igs_op(h_freed, u, gsr_double, gsr_sum, 0, request)
  call check_error('E-F-HANDLE-FREED: igs_op on a freed handle', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_state, 'igs_op: handle')
  call check_true('igs_op after an error returns request 0', request == 0)
  call gs_op_wait(777)
  call check_error('E-F-REQUEST: gs_op_wait on an unknown request', gsr_last_error(), &
                   gsr_last_error_message(), gsr_err_state, 'request 777 is not in flight')
  call check_real('data unchanged by calls on dead handles', u(1:count), &
                  seed_u(first:first + count - 1), 0.0_dp)

  ! After all this, the good handle still gives Table 2.
  u(1:count) = seed_u(first:first + count - 1)
  call gsr_clear_error()
  call gs_op(h, u, gsr_double, gsr_sum, 0)
  call check_true('no error from a good call', gsr_last_error() == gsr_success)
  call check_real('table 2 sum after the errors', u(1:count), table2(first:first + count - 1, 1))

  ! One rank passes a bad dom code while the other calls correctly: no hang; the bad rank
  ! gets invalid_argument, its neighbour a remote error naming it (the same words with
  ! every method), and neither rank's data changes.
  if (ranks == 2) then
    u(1:count) = seed_u(first:first + count - 1)
    call gsr_clear_error()
    if (rank == 0) then
      call gs_op(h, u, 9, gsr_sum, 0)
      call check_error('E-F-DOM: bad dom on rank 0 only', gsr_last_error(), gsr_last_error_message(), &
                       gsr_err_invalid_argument, 'gs_op: unknown dom code 9')
    else
      call gs_op(h, u, gsr_double, gsr_sum, 0)
      call check_error('E-CALL-REMOTE-ARGS: good call beside a bad rank', gsr_last_error(), &
                       gsr_last_error_message(), gsr_err_remote, &
                       'rank 0 rejected its arguments for this call')
      call check_true('E-CALL-REMOTE-ARGS names the Fortran call', &
                      index(gsr_last_error_message(), 'gsr: gs_op: handle #') == 1)
    end if
    call check_real('shared data unchanged when a peer was bad', u(1:count), &
                    seed_u(first:first + count - 1), 0.0_dp)
  end if
  call gs_free(h)

  call finish('errors')

contains

  subroutine bad_op(what, dom, op, part)
    character(len=*), intent(in) :: what, part
    integer, intent(in) :: dom, op
    real(dp) :: x(18)
    x = seed_u
    call gs_op(h, x, dom, op, 0)
    call check_error('gs_op '//what, gsr_last_error(), gsr_last_error_message(), &
                     gsr_err_invalid_argument, part)
    call check_real('gs_op '//what//' leaves the data alone', x, seed_u, 0.0_dp)
  end subroutine

end program errors
