! threads.f90 — the module `gsr` under MPI_THREAD_MULTIPLE (the Fortran twin of
! tests/capi/threads.c): four OpenMP threads of every rank at once, each with a handle of its
! own on a communicator of its own (pairwise, crystal router, allreduce, auto), each making 30
! calls: gs_op, gs_vec, gs_many, and pairs of igs_op (or igs_many) and igs_vec waited for in
! reverse order; double, float, sint and slong; sum, mult, min and max; transpose 0 and 1; on
! ids that every rank shares, some 0, some flagged. Then the main thread replays each
! thread's calls on the same handles, one thread after the other, and compares the results
! bit for bit with the threads'; every double sum is also checked against a reference that
! MPI_Allreduce computes over a dense array indexed by id, so a wrong answer that is merely
! repeatable fails too. Last, each thread tries to wait for another's request (refused; the
! request stays in flight for its own thread), and the threads at once use gslib's own entry
! points, which keep tables of their own (fortran/gslib_fortran.c, gslib_crystal.c):
! fgslib_gs_setup (or fgslib_gs_setup_pick), fgslib_gs_op_fields and fgslib_gs_free, and the
! crystal router's setup, transfer and free. Rank 0 prints "PASS" when every rank passed; the
! exit code is non-zero otherwise.
program threads
  use mpi
  use omp_lib
  use gsr
  use, intrinsic :: iso_c_binding, only: c_loc, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  implicit none

  ! tests/support/handover.h: the OpenMP hand-overs, made visible to ThreadSanitizer.
  interface
    subroutine gsr_test_handover_release() bind(c)
    end subroutine
    subroutine gsr_test_handover_acquire() bind(c)
    end subroutine
  end interface

  integer, parameter :: dp = real64, i8 = int64
  integer, parameter :: nthreads = 4, steps = 30
  integer, parameter :: max_n = 48   ! entries per rank and thread
  integer, parameter :: max_k = 3    ! components (gs_vec) or arrays (gs_many)
  integer, parameter :: max_id = 24  ! ids 1..max_id: a few dozen entries per rank share them
  ! One step's results as 8-byte words (any value fits one): its arrays, max_n * max_k words,
  ! then the second request's two doubles per entry.
  integer, parameter :: words = max_n*max_k, step_words = words + 2*max_n
  integer, parameter :: one = 0, vec = 1, many = 2, pair = 3
  integer, parameter :: domains(0:3) = [gsr_double, gsr_sint, gsr_slong, gsr_float]
  integer, parameter :: ops(0:3) = [gsr_sum, gsr_mult, gsr_min, gsr_max]
  integer, parameter :: methods(nthreads) = [gsr_pairwise, gsr_crystal_router, gsr_all_reduce, gsr_auto]
  character(len=*), parameter :: method_names(nthreads) = &
      [character(len=14) :: 'pairwise', 'crystal_router', 'allreduce', '']

  external :: fgslib_gs_setup, fgslib_gs_setup_pick, fgslib_gs_op_fields, fgslib_gs_free
  external :: fgslib_crystal_setup, fgslib_crystal_ituple_transfer, fgslib_crystal_free

  ! Each thread's own; the main thread reads them between the parallel regions.
  integer :: comms(nthreads), handles(nthreads) = 0, n(nthreads), failures(nthreads) = 0
  integer(i8) :: ids(max_n, nthreads)
  integer :: started(nthreads) = 0  ! a request each thread started, for the others to try
  integer(i8) :: threaded(step_words, 0:steps - 1, nthreads) = 0  ! the thread's results
  integer(i8) :: serial(step_words, 0:steps - 1, nthreads) = 0    ! the same calls, replayed
  integer :: rank, ranks, provided, ierr, t, s, wrong_team
  ! Doubles, passed as scalars, as the reference sums are: `use mpi` declares no interface
  ! for MPI_Allreduce's buffers, and gfortran objects to one external called two ways.
  real(dp) :: failed, any_failed

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  if (provided < MPI_THREAD_MULTIPLE) then
    print '(a,i0,a,i0,a)', 'threads: FAIL on rank ', rank, ': MPI provides thread level ', provided, &
        ', not MPI_THREAD_MULTIPLE'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call gsr_set_error_mode(gsr_errors_return)
  call omp_set_dynamic(.false.)

  ! Communicator creation is collective: one per thread, in the same order on every rank.
  do t = 1, nthreads
    call MPI_Comm_dup(MPI_COMM_WORLD, comms(t), ierr)
  end do

  wrong_team = 0
  call gsr_test_handover_release()
  !$omp parallel num_threads(nthreads) private(t, s)
  call gsr_test_handover_acquire()
  t = omp_get_thread_num() + 1
  if (omp_get_num_threads() /= nthreads) then
    !$omp atomic write
    wrong_team = 1
  else
    call set_up(t)
    do s = 0, steps - 1
      if (handles(t) == 0) exit
      call run_step(t, s, threaded(:, s, t), .false.)
    end do
  end if
  call gsr_test_handover_release()
  !$omp end parallel
  call gsr_test_handover_acquire()
  if (wrong_team /= 0) then
    print '(a,i0,a,i0,a)', 'threads: FAIL on rank ', rank, ': the parallel region did not get ', &
        nthreads, ' threads'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! The same calls, one thread's handle after the other, on the main thread.
  do t = 1, nthreads
    do s = 0, steps - 1
      if (handles(t) == 0) exit
      call run_step(t, s, serial(:, s, t), .true.)
      if (any(threaded(:, s, t) /= serial(:, s, t))) &
          call fail(t, s, 'the thread''s results differ from the same calls made serially')
    end do
  end do

  ! A wait on the wrong thread; gslib's entry points from every thread at once; each thread
  ! frees its module handle.
  call gsr_test_handover_release()
  !$omp parallel num_threads(nthreads) private(t)
  call gsr_test_handover_acquire()
  t = omp_get_thread_num() + 1
  call wait_elsewhere(t)
  call gslib_calls(t)
  if (handles(t) /= 0) then
    call gs_free(handles(t))
    call expect_success(t, steps, 'gs_free')
  end if
  call gsr_test_handover_release()
  !$omp end parallel
  call gsr_test_handover_acquire()

  call contended_waits()

  do t = 1, nthreads
    call MPI_Comm_free(comms(t), ierr)
  end do
  failed = merge(1, 0, any(failures /= 0))
  call MPI_Allreduce(failed, any_failed, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (any_failed > 0) then
      print '(a)', 'threads: FAIL (see the ranks'' lines above)'
    else
      print '(a)', 'threads: PASS'
    end if
  end if
  call MPI_Finalize(ierr)
  if (any_failed > 0) error stop 1

contains

  subroutine fail(t, s, what)
    integer, intent(in) :: t, s
    character(len=*), intent(in) :: what
    failures(t) = failures(t) + 1
    if (failures(t) <= 8) &
        print '(a,i0,a,i0,a,i0,a,a)', 'threads: FAIL on rank ', rank, ', thread ', t, ', step ', s, ': ', what
  end subroutine

  ! The error record is the calling thread's; a failure stays in it until cleared.
  ! The message is read with gsr_get_last_error_message: the function form is not for
  ! threads (docs/fortran.md).
  subroutine expect_success(t, s, call)
    integer, intent(in) :: t, s
    character(len=*), intent(in) :: call
    character(len=:), allocatable :: message
    if (gsr_last_error() == gsr_success) return
    call gsr_get_last_error_message(message)
    call fail(t, s, call//' failed: '//message)
    call gsr_clear_error()
  end subroutine

  ! ---- deterministic inputs ----------------------------------------------------------------

  ! A number fixed by this rank, the thread, the step (-1: the ids), which array and entry:
  ! xorshift64 (shifts and exclusive ors, so no integer overflow) of their combination.
  integer(i8) function draw(t, s, array, entry)
    integer, intent(in) :: t, s, array, entry
    integer :: round
    draw = 1_i8 + rank*7919_i8 + t*104729_i8 + (s + 1)*1299709_i8 + array*15485863_i8 + &
           entry*32452843_i8
    do round = 1, 6
      draw = ieor(draw, ishft(draw, 13))
      draw = ieor(draw, ishft(draw, -7))
      draw = ieor(draw, ishft(draw, 17))
    end do
    draw = iand(draw, huge(draw))
  end function

  ! Input `entry` of array `array` of a step: integers, small enough that sums and products
  ! are exact (the second request of a pair, array max_k, is always a sum); halves for min
  ! and max.
  real(dp) function input(t, s, op, array, entry)
    integer, intent(in) :: t, s, op, array, entry
    integer(i8) :: r
    r = draw(t, s, array, entry)
    select case (op)
    case (gsr_mult)
      input = merge(2.0_dp, merge(1.0_dp, -1.0_dp, mod(r/256, 2_i8) == 1), mod(r, 8_i8) == 0)
    case (gsr_sum)
      input = real(mod(r, 17_i8), dp) - 8
    case default
      input = real(mod(r, 101_i8), dp) - 50 + 0.5_dp*real(mod(ishft(r, -40), 2_i8), dp)
    end select
  end function

  ! w <- count inputs of `array`, as values of dom.
  subroutine fill(w, dom, op, t, s, array, count)
    integer(i8), intent(inout), target, contiguous :: w(:)
    integer, intent(in) :: dom, op, t, s, array, count
    real(dp), pointer :: d(:)
    real(real32), pointer :: f(:)
    integer(int32), pointer :: i4(:)
    integer :: j
    select case (dom)
    case (gsr_double)
      call c_f_pointer(c_loc(w), d, [count])
      do j = 1, count
        d(j) = input(t, s, op, array, j - 1)
      end do
    case (gsr_float)
      call c_f_pointer(c_loc(w), f, [count])
      do j = 1, count
        f(j) = real(input(t, s, op, array, j - 1), real32)
      end do
    case (gsr_sint)
      call c_f_pointer(c_loc(w), i4, [count])
      do j = 1, count
        i4(j) = int(input(t, s, op, array, j - 1), int32)
      end do
    case default
      do j = 1, count
        w(j) = int(input(t, s, op, array, j - 1), i8)
      end do
    end select
  end subroutine

  ! The thread's ids: 1..max_id (so heavily shared), every 11th entry 0, and on threads other
  ! than the first about one in six flagged.
  subroutine make_ids(t)
    integer, intent(in) :: t
    integer :: i
    integer(i8) :: r
    n(t) = 32 + mod(rank*5 + (t - 1)*3, 17)
    do i = 1, n(t)
      r = draw(t, -1, 0, i)
      ids(i, t) = 1 + mod(r, int(max_id, i8))
      if (t /= 1 .and. mod(ishft(r, -20), 6_i8) == 0) ids(i, t) = -ids(i, t)
      if (mod(i, 11) == 6) ids(i, t) = 0
    end do
  end subroutine

  ! ---- the reference for sums --------------------------------------------------------------

  ! u: the result of a sum over doubles with k components per entry, from the inputs of
  ! `array`. Each id's sums (of every copy, of the unflagged ones) and its number of flagged
  ! copies come from MPI_Allreduce over arrays indexed by id, on the thread's communicator;
  ! the expected values follow docs/concepts.md (Flags and transpose).
  subroutine check_sum(t, s, array, u, k, transpose)
    integer, intent(in) :: t, s, array, k, transpose
    real(dp), intent(in) :: u(:)
    real(dp) :: mine(0:max_id, max_k, 3), table(0:max_id, max_k, 3)  ! all, unflagged, flagged count
    real(dp) :: x, want
    integer :: i, c, group, entry, ierr
    character(len=160) :: line
    mine = 0
    do i = 1, n(t)
      group = int(abs(ids(i, t)))
      if (group == 0) cycle
      if (ids(i, t) < 0) mine(group, 1, 3) = mine(group, 1, 3) + 1
      do c = 1, k
        x = input(t, s, gsr_sum, array, (i - 1)*k + c - 1)
        mine(group, c, 1) = mine(group, c, 1) + x
        if (ids(i, t) > 0) mine(group, c, 2) = mine(group, c, 2) + x
      end do
    end do
    call MPI_Allreduce(mine(0, 1, 1), table(0, 1, 1), size(table), MPI_DOUBLE_PRECISION, MPI_SUM, comms(t), ierr)
    if (ierr /= MPI_SUCCESS) then
      call fail(t, s, 'MPI_Allreduce of the reference sums failed')
      return
    end if
    do i = 1, n(t)
      group = int(abs(ids(i, t)))
      do c = 1, k
        entry = (i - 1)*k + c
        x = input(t, s, gsr_sum, array, entry - 1)
        want = table(group, c, 1)
        if (group == 0) then
          want = x
        else if (table(group, 1, 3) > 0 .and. transpose == 0) then
          want = table(group, c, 2)
        else if (table(group, 1, 3) > 0 .and. ids(i, t) < 0) then
          want = x
        end if
        if (u(entry) /= want) then
          write (line, '(a,i0,a,i0,a,i0,a,i0,a,f0.1,a,f0.1)') 'array ', array, ' entry ', entry, &
              ' (id ', ids(i, t), ', transpose ', transpose, ') is ', u(entry), ', the reference sum ', want
          call fail(t, s, trim(line))
          return
        end if
      end do
    end do
  end subroutine

  ! ---- the calls ---------------------------------------------------------------------------

  ! On the thread: its handle.
  subroutine set_up(t)
    integer, intent(in) :: t
    character(len=:), allocatable :: name
    call make_ids(t)
    call gs_setup_ext(handles(t), ids(:, t), n(t), comms(t), 0, methods(t), 0)
    call expect_success(t, -1, 'gs_setup_ext')
    if (handles(t) == 0 .or. method_names(t) == '') return
    call gsr_get_method_name(handles(t), name)
    if (name /= trim(method_names(t))) &
        call fail(t, -1, 'the handle''s method is '//name//', not '//trim(method_names(t)))
  end subroutine

  ! Runs step s of thread t's sequence on its handle, writing the results to `out`; `check`:
  ! also against the reference (collective, so only where every rank replays).
  subroutine run_step(t, s, out, check)
    integer, intent(in) :: t, s
    integer(i8), intent(out) :: out(step_words)
    logical, intent(in) :: check
    integer(i8), target, asynchronous :: w1(words), w2(words), w3(words), second(2*max_n)
    integer :: form, dom, op, k, transpose, nn, first_k, r1, r2, i
    integer(i8) :: local_work
    form = mod(s + t - 1, 4)
    dom = domains(mod(s, 4))
    op = ops(mod(s/4 + t - 1, 4))
    k = merge(1, 1 + mod(s + 2*(t - 1), max_k), form == one)
    transpose = mod(s/3 + t - 1, 2)
    nn = n(t)
    first_k = k
    w1 = 0
    w2 = 0
    w3 = 0
    second = 0
    select case (form)
    case (one)
      call fill(w1, dom, op, t, s, 0, nn)
      call gs_op(handles(t), w1, dom, op, transpose)
      call expect_success(t, s, 'gs_op')
    case (vec)
      call fill(w1, dom, op, t, s, 0, nn*k)
      call gs_vec(handles(t), w1, k, dom, op, transpose)
      call expect_success(t, s, 'gs_vec')
    case (many)
      call fill(w1, dom, op, t, s, 0, nn)
      call fill(w2, dom, op, t, s, 1, nn)
      call fill(w3, dom, op, t, s, 2, nn)
      call gs_many(handles(t), w1, w2, w3, k=k, dom=dom, op=op, transpose=transpose)
      call expect_success(t, s, 'gs_many')
    case (pair)
      ! The first request is igs_many on odd steps (k arrays), else igs_op (one); the second
      ! a sum of two components; waited for in reverse order, local work in between.
      if (mod(s, 2) == 0) first_k = 1
      call fill(w1, dom, op, t, s, 0, nn)
      call fill(w2, dom, op, t, s, 1, nn)
      call fill(w3, dom, op, t, s, 2, nn)
      call fill(second, gsr_double, gsr_sum, t, s, max_k, 2*nn)
      if (first_k > 1) then
        call igs_many(handles(t), w1, w2, w3, k=first_k, dom=dom, op=op, transpose=transpose, request=r1)
        call expect_success(t, s, 'igs_many')
      else
        call igs_op(handles(t), w1, dom, op, transpose, r1)
        call expect_success(t, s, 'igs_op')
      end if
      call igs_vec(handles(t), second, 2, gsr_double, gsr_sum, transpose, r2)
      call expect_success(t, s, 'igs_vec')
      local_work = 0
      do i = 1, nn
        local_work = local_work + ids(i, t)**2
      end do
      if (local_work < 0) call fail(t, s, 'the local work went wrong')
      call gs_wait(r2)
      call expect_success(t, s, 'gs_wait (second request)')
      call gs_op_wait(r1)
      call expect_success(t, s, 'gs_op_wait (first request)')
    end select

    ! Separate arrays take max_n words each, a single one up to all of them.
    if (form == many .or. form == pair) then
      out(1:max_n) = w1(1:max_n)
      out(max_n + 1:2*max_n) = w2(1:max_n)
      out(2*max_n + 1:words) = w3(1:max_n)
    else
      out(1:words) = w1
    end if
    out(words + 1:) = second

    if (.not. check) return
    if (form == pair) call check_sum(t, s, max_k, as_double(second, 2*nn), 2, transpose)
    if (dom /= gsr_double .or. op /= gsr_sum) return
    select case (form)
    case (one, vec)
      call check_sum(t, s, 0, as_double(w1, nn*k), k, transpose)
    case (many, pair)
      call check_sum(t, s, 0, as_double(w1, nn), 1, transpose)
      if (first_k > 1) call check_sum(t, s, 1, as_double(w2, nn), 1, transpose)
      if (first_k > 2) call check_sum(t, s, 2, as_double(w3, nn), 1, transpose)
    end select
  end subroutine

  ! The first count doubles held in w.
  function as_double(w, count) result(d)
    integer(i8), intent(in) :: w(:)
    integer, intent(in) :: count
    real(dp) :: d(count)
    d = transfer(w(1:count), 1.0_dp, count)
  end function

  ! On the thread, at once with the others: a request another thread waits for is refused
  ! (E-THREAD-OTHER-THREAD) and stays in flight, for the thread that started it to wait for.
  subroutine wait_elsewhere(t)
    integer, intent(in) :: t
    character(len=:), allocatable :: message
    real(dp), asynchronous :: u(max_n)
    integer :: other, i
    u = 0
    do i = 1, n(t)
      u(i) = input(t, steps + 1, gsr_sum, 0, i - 1)
    end do
    if (handles(t) /= 0) then
      call igs_op(handles(t), u, gsr_double, gsr_sum, 0, started(t))
      call expect_success(t, steps + 1, 'igs_op')
    end if
    call gsr_test_handover_release()
    !$omp barrier
    call gsr_test_handover_acquire()
    other = mod(t, nthreads) + 1
    if (started(other) /= 0) then
      call gs_op_wait(started(other))
      call gsr_get_last_error_message(message)
      if (gsr_last_error() /= gsr_err_state .or. index(message, 'started on another thread') == 0) &
          call fail(t, steps + 1, 'a wait for another thread''s request was not refused: "'//message//'"')
      call gsr_clear_error()
    end if
    call gsr_test_handover_release()
    !$omp barrier
    call gsr_test_handover_acquire()
    if (started(t) /= 0) then
      call gs_op_wait(started(t))
      call expect_success(t, steps + 1, 'gs_op_wait on the thread that started the request')
      call check_sum(t, steps + 1, 0, u(1:n(t)), 1, 0)
    end if
  end subroutine

  ! Two threads of a team on one handle, round after round: the first starts a request and
  ! waits for it, while the second waits for it again and again until the first is done. The
  ! second's waits are refused (it did not start the request); the first's must succeed, or
  ! be refused as in use by another thread (E-THREAD-HANDLE-BUSY), which it retries. Being
  ! told that its request is not in flight while it is would make a program reuse an array
  ! still in use.
  subroutine contended_waits()
    integer, parameter :: rounds = 50, t = 1
    integer(i8) :: mine(4) = [1_i8, 2_i8, 3_i8, 4_i8]
    real(dp), asynchronous :: u(4)
    character(len=:), allocatable :: message
    integer :: h, request, round, done, round_done, refusals, tried, tried_now
    real(dp) :: pause_until, give_up
    call gs_setup_ext(h, mine, 4, comms(t), 0, gsr_pairwise, 0)
    call expect_success(t, steps + 2, 'gs_setup_ext')
    if (h == 0) return
    done = 0
    tried = 0
    refusals = 0
    call gsr_test_handover_release()
    message = ''
    !$omp parallel num_threads(2) private(round, round_done, message, pause_until, tried_now, give_up)
    call gsr_test_handover_acquire()
    do round = 1, rounds
      if (omp_get_thread_num() == 0) then
        u = 1
        call igs_op(h, u, gsr_double, gsr_sum, 0, request)
        call expect_success(t, steps + 2, 'igs_op')
      end if
      call gsr_test_handover_release()
      !$omp barrier
      call gsr_test_handover_acquire()
      if (omp_get_thread_num() == 0) then
        ! The owner waits only once the second thread has tried (or 50 ms passed): on a
        ! loaded machine the owner could otherwise finish every round before the second
        ! thread's first try, and the test would show no contention at all.
        give_up = MPI_Wtime() + 0.05_dp
        do
          !$omp atomic read
          tried_now = tried
          if (tried_now /= 0 .or. MPI_Wtime() > give_up) exit
        end do
        do
          call gs_op_wait(request)
          if (gsr_last_error() == gsr_success) exit
          call gsr_get_last_error_message(message)
          call gsr_clear_error()
          if (index(message, 'in use by another thread') == 0) &
              call fail(t, steps + 2, 'the owner''s own wait failed: "'//message//'"')
          if (index(message, 'not in flight') == 0 .and. index(message, 'in use by another thread') == 0) exit
        end do
        if (any(u /= ranks)) call fail(t, steps + 2, 'the owner''s wait gave a wrong sum')
        !$omp atomic write
        done = 1
      else
        do
          !$omp atomic read
          round_done = done
          if (round_done /= 0) exit
          call gs_op_wait(request)
          if (gsr_last_error() == gsr_success) &
              call fail(t, steps + 2, 'a wait for another thread''s request succeeded')
          call gsr_clear_error()
          refusals = refusals + 1
          !$omp atomic write
          tried = 1
          ! A pause (20 us) between tries: the first thread's own tries must find the
          ! request free sometimes, or it would only ever be told to retry.
          pause_until = MPI_Wtime() + 2e-5_dp
          do while (MPI_Wtime() < pause_until)
          end do
        end do
      end if
      call gsr_test_handover_release()
      !$omp barrier
      call gsr_test_handover_acquire()
      if (omp_get_thread_num() == 0) then
        done = 0
        tried = 0
      end if
      call gsr_test_handover_release()
      !$omp barrier
      call gsr_test_handover_acquire()
    end do
    call gsr_test_handover_release()
    !$omp end parallel
    call gsr_test_handover_acquire()
    if (refusals == 0) call fail(t, steps + 2, 'the second thread never waited during the first''s wait')
    call gs_free(h)
    call expect_success(t, steps + 2, 'gs_free')
  end subroutine

  ! On the thread: gslib's entry points, as Nek5000 calls them, on the thread's communicator
  ! (F77 interfaces: handles, counts and codes default integers, ids integer*8).
  subroutine gslib_calls(t)
    integer, intent(in) :: t
    real(dp) :: fields(max_n, 2)
    integer :: tuples(3, 4)
    integer :: g, crystal, i, f, arrived, source
    ! The first thread lets gslib's setup pick the method (auto times each on the spot);
    ! the others name theirs, as the module handles do.
    if (t == 1) then
      call fgslib_gs_setup(g, ids(1, t), n(t), comms(t), ranks)
      call expect_success(t, steps, 'fgslib_gs_setup')
    else
      call fgslib_gs_setup_pick(g, ids(1, t), n(t), comms(t), ranks, methods(t - 1))
      call expect_success(t, steps, 'fgslib_gs_setup_pick')
    end if
    if (g < 0) return
    do f = 1, 2
      do i = 1, n(t)
        fields(i, f) = input(t, steps, gsr_sum, f - 1, i - 1)
      end do
    end do
    call fgslib_gs_op_fields(g, fields, max_n, 2, gsr_double, gsr_sum, 0)
    call expect_success(t, steps, 'fgslib_gs_op_fields')
    call check_sum(t, steps, 0, fields(1:n(t), 1), 1, 0)
    call check_sum(t, steps, 1, fields(1:n(t), 2), 1, 0)
    call fgslib_gs_free(g)
    call expect_success(t, steps, 'fgslib_gs_free')

    ! One tuple (destination, source, a tag of the thread) to the next rank.
    call fgslib_crystal_setup(crystal, comms(t), ranks)
    call expect_success(t, steps, 'fgslib_crystal_setup')
    if (crystal < 0) return
    tuples = 0
    tuples(:, 1) = [mod(rank + 1, ranks), rank, 1000*t + rank]
    arrived = 1
    call fgslib_crystal_ituple_transfer(crystal, tuples, 3, arrived, 4, 1)
    call expect_success(t, steps, 'fgslib_crystal_ituple_transfer')
    source = mod(rank + ranks - 1, ranks)
    if (arrived /= 1 .or. any(tuples(:, 1) /= [source, source, 1000*t + source])) &
        call fail(t, steps, 'the crystal router did not bring the previous rank''s tuple')
    call fgslib_crystal_free(crystal)
    call expect_success(t, steps, 'fgslib_crystal_free')
  end subroutine

end program threads
