! nonblocking.f90 — igs_op / igs_op_vec / igs_op_many started from Fortran, completed with
! gs_op_wait (and its alias gs_wait), two requests in flight on two handles at once,
! advanced by gsr_progress and waited on in the other order. Results are checked against Tables 2, 3 and 4 of
! docs/concepts.md (typed in seed_support.f90).
program nonblocking
  use mpi
  use gsr
  use seed_support
  implicit none

  integer :: h_sym, h_asym, r1, r2
  real(dp), asynchronous :: u(18), v(18), w(2, 18), a(18), b(18)
  integer :: i
  logical :: done
  double precision :: deadline

  call start()
  call gs_setup(h_sym, seed_id(first:), count, MPI_COMM_WORLD, ranks)
  call gs_setup(h_asym, seed_id_asym(first:), count, MPI_COMM_WORLD, ranks)

  ! Two single-array requests at once: Table 2 sum and Table 4 mult.
  u(1:count) = seed_u(first:first + count - 1)
  v(1:count) = seed_u(first:first + count - 1)
  call igs_op(h_sym, u, gsr_double, gsr_sum, 0, r1)
  call igs_op(h_asym, v, gsr_double, gsr_mult, 1, r2)
  call check_true('igs_op returns two live, distinct requests', r1 > 0 .and. r2 > 0 .and. r1 /= r2)
  ! gsr_progress, as long work between start and wait would call it, finishes the messages.
  done = .false.
  deadline = mpi_wtime() + 30
  do while (.not. done .and. mpi_wtime() < deadline)
    call gsr_progress(done)
  end do
  call check_true('gsr_progress finishes the messages of both requests', done)
  call gsr_progress()
  call gs_op_wait(r2)
  call gs_op_wait(r1)
  call check_real('igs_op table 2 sum', u(1:count), table2(first:first + count - 1, 1))
  call check_real('igs_op table 4 mult', v(1:count), table4(first:first + count - 1, 2))

  ! vec: component 2 is twice component 1; scaling by 2 is exact, so is the expectation.
  do i = 1, count
    w(1, i) = seed_u(first + i - 1)
    w(2, i) = 2*seed_u(first + i - 1)
  end do
  call igs_op_vec(h_sym, w, 2, gsr_double, gsr_max, 0, r1)
  call gs_wait(r1)
  call check_real('igs_op_vec table 2 max, component 1', w(1, 1:count), &
                  table2(first:first + count - 1, 4))
  call check_real('igs_op_vec table 2 max, component 2', w(2, 1:count), &
                  2*table2(first:first + count - 1, 4))

  ! many with two arrays, the other four omitted: Table 3 min.
  a(1:count) = seed_u(first:first + count - 1)
  b(1:count) = 2*seed_u(first:first + count - 1)
  call igs_op_many(h_asym, a, b, k=2, dom=gsr_double, op=gsr_min, transpose=0, request=r1)
  call gs_op_wait(r1)
  call check_real('igs_op_many table 3 min, array 1', a(1:count), table3(first:first + count - 1, 3))
  call check_real('igs_op_many table 3 min, array 2', b(1:count), &
                  2*table3(first:first + count - 1, 3))

  ! The same again through the other names, and a request is gone once waited on.
  a(1:count) = seed_u(first:first + count - 1)
  call igs_many(h_sym, a, k=1, dom=gsr_double, op=gsr_sum, transpose=1, request=r1)
  call gs_op_wait(r1)
  call check_real('igs_many k = 1 table 2 sum', a(1:count), table2(first:first + count - 1, 1))
  w(1, 1:count) = seed_u(first:first + count - 1)
  w(2, 1:count) = seed_u(first:first + count - 1)
  call igs_vec(h_asym, w, 2, gsr_double, gsr_sum, 1, r1)
  call gs_op_wait(r1)
  call check_real('igs_vec table 4 sum', w(2, 1:count), table4(first:first + count - 1, 1))

  ! A handle with a request in flight refuses to be freed (return mode), then frees fine.
  call gsr_set_error_mode(gsr_errors_return)
  u(1:count) = seed_u(first:first + count - 1)
  call igs_op(h_sym, u, gsr_double, gsr_min, 0, r1)
  call gs_free(h_sym)
  call check_true('gs_free of a busy handle is a state error: "'//gsr_last_error_message()//'"', &
                  gsr_last_error() == gsr_err_state)
  call gs_op_wait(r1)
  call check_real('igs_op table 2 min after the refused free', u(1:count), &
                  table2(first:first + count - 1, 3))
  call gsr_clear_error()
  call gs_free(h_sym)
  call check_true('gs_free after the wait', gsr_last_error() == gsr_success)
  call gs_op_wait(r1)
  call check_true('a request waited on twice is a state error', gsr_last_error() == gsr_err_state)

  call gs_free(h_asym)
  call finish('nonblocking')
end program nonblocking
