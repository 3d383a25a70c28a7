! transfer.f90 — the module's gsr_transfer, gsr_scatter and gsr_gather (docs/fortran.md), and
! the errors of gslib's crystal-router entry points in return mode.
!
! Every value that arrives is checked against what this program computes from who sent it
! to whom (rank s sends records(s, d) records to rank d, each naming s, d and its index),
! and the statistics against counts computed here (docs/transfer.md). Any difference is
! printed with the rank, and the program ends with error stop.
program transfer_test
  use mpi
  use gsr
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double
  implicit none
  integer :: rank, np, ierr, failures, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  failures = 0

  call check_transfer_double()
  call check_transfer_int()
  call check_transfer_int64()
  call check_scatter()
  call check_gather()
  call gsr_set_error_mode(gsr_errors_return)
  call check_module_errors()
  call check_crystal_errors()

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'transfer: ', total, ' check(s) failed at P = ', np
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 'transfer: checks failed'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    failures = failures + 1
    print '(a,i0,a,i0,a,a)', '[rank ', rank, '/', np, '] FAIL ', what
  end subroutine

  !> How many records rank s sends to rank d: 0, 1 or 2.
  integer function records(s, d)
    integer, intent(in) :: s, d
    records = mod(2*s + d, 3)
  end function

  integer function ceil_log2(p)
    integer, intent(in) :: p
    ceil_log2 = 0
    do while (2**ceil_log2 < p)
      ceil_log2 = ceil_log2 + 1
    end do
  end function

  ! This rank's outgoing records, destinations interleaved: (s, d, j) in the columns of
  ! `parts`, destination d in `to`.
  subroutine outgoing(parts, to)
    integer, allocatable, intent(out) :: parts(:, :), to(:)
    integer :: j, d, k
    allocate (parts(3, sum([(records(rank, d), d = 0, np - 1)])))
    allocate (to(size(parts, 2)))
    k = 0
    do j = 1, 2
      do d = 0, np - 1
        if (j <= records(rank, d)) then
          k = k + 1
          parts(:, k) = [rank, d, j]
          to(k) = d
        end if
      end do
    end do
  end subroutine

  ! The records this rank must receive, in gsr's order (by source, then the source's order).
  subroutine incoming(parts)
    integer, allocatable, intent(out) :: parts(:, :)
    integer :: s, j, k
    allocate (parts(3, sum([(records(s, rank), s = 0, np - 1)])))
    k = 0
    do s = 0, np - 1
      do j = 1, records(s, rank)
        k = k + 1
        parts(:, k) = [s, rank, j]
      end do
    end do
  end subroutine

  subroutine check_transfer_double()
    integer, parameter :: methods(4) = [gsr_transfer_auto, gsr_transfer_direct, &
                                        gsr_transfer_crystal_router, gsr_transfer_two_round]
    integer, allocatable :: parts(:, :), to(:), expected(:, :)
    real(c_double), allocatable :: mine(:, :), got(:, :)
    integer(c_int), allocatable :: from(:)
    type(gsr_transfer_stats) :: stats
    character(len=40) :: label
    integer :: i, k, method, code, d, s, partners

    call outgoing(parts, to)
    call incoming(expected)
    allocate (mine(3, size(parts, 2)))
    do k = 1, size(parts, 2)   ! source, destination, and 1000 s + 10 d + j + 1/4
      mine(:, k) = [real(parts(1, k), c_double), real(parts(2, k), c_double), &
                    1000d0*parts(1, k) + 10d0*parts(2, k) + parts(3, k) + 0.25d0]
    end do
    do i = 1, size(methods)
      method = methods(i)
      write (label, '(a,i0)') 'gsr_transfer real(8), method ', method
      call gsr_transfer(mine, int(to, c_int), MPI_COMM_WORLD, got, from, method=method, &
                        stats=stats, ierr=code)
      call check(code == gsr_success, trim(label)//': error code')
      call check(size(got, 1) == 3 .and. size(got, 2) == size(expected, 2), trim(label)//': count')
      if (size(got, 2) /= size(expected, 2)) cycle
      do k = 1, size(expected, 2)
        s = expected(1, k)
        call check(from(k) == s, trim(label)//': source')
        call check(all(got(:, k) == [real(s, c_double), real(rank, c_double), &
                                     1000d0*s + 10d0*rank + expected(3, k) + 0.25d0]), &
                   trim(label)//': record')
      end do
      if (method == gsr_transfer_auto) then
        call check(stats%method == gsr_transfer_direct .or. &
                   stats%method == gsr_transfer_crystal_router, trim(label)//': method chosen')
      else
        call check(stats%method == method, trim(label)//': method used')
      end if
      select case (stats%method)
      case (gsr_transfer_direct)
        call check(stats%stages == 1, trim(label)//': direct stages')
        partners = count([(records(rank, d) > 0 .and. d /= rank, d = 0, np - 1)])
        call check(stats%messages_sent == partners, trim(label)//': direct messages sent')
        call check(stats%records_sent == sum([(merge(0, records(rank, d), d == rank), d = 0, np - 1)]), &
                   trim(label)//': direct records sent')
        call check(stats%records_received == sum([(merge(0, records(s, rank), s == rank), s = 0, np - 1)]), &
                   trim(label)//': direct records received')
        call check(stats%bytes_sent == 24*stats%records_sent, trim(label)//': direct bytes sent')
      case (gsr_transfer_crystal_router)
        call check(stats%stages <= ceil_log2(np), trim(label)//': crystal router stages')
      case (gsr_transfer_two_round)
        call check(stats%stages == 2, trim(label)//': two-round stages')
      end select
    end do
  end subroutine

  subroutine check_transfer_int()
    integer, allocatable :: parts(:, :), to(:), expected(:, :)
    integer(c_int), allocatable :: got(:, :), from(:)
    integer :: k, code

    call outgoing(parts, to)
    call incoming(expected)
    call gsr_transfer(int(parts, c_int), int(to, c_int), MPI_COMM_WORLD, got, from, &
                      method=gsr_transfer_two_round, ierr=code)
    call check(code == gsr_success, 'gsr_transfer integer: error code')
    call check(size(got, 1) == 3 .and. size(got, 2) == size(expected, 2), 'gsr_transfer integer: count')
    if (size(got, 2) /= size(expected, 2)) return
    do k = 1, size(expected, 2)
      call check(all(got(:, k) == expected(:, k)) .and. from(k) == expected(1, k), &
                 'gsr_transfer integer: record or source')
    end do
  end subroutine

  subroutine check_transfer_int64()
    integer(c_int64_t), parameter :: big = 2_c_int64_t**33
    integer, allocatable :: parts(:, :), to(:), expected(:, :)
    integer(c_int64_t), allocatable :: mine(:, :), got(:, :)
    integer(c_int), allocatable :: from(:)
    integer :: k

    call outgoing(parts, to)
    call incoming(expected)
    allocate (mine(1, size(parts, 2)))
    mine(1, :) = big*parts(1, :) + 1000*parts(2, :) + parts(3, :)
    call gsr_transfer(mine, int(to, c_int), MPI_COMM_WORLD, got, from, method=gsr_transfer_crystal_router)
    call check(size(got, 1) == 1 .and. size(got, 2) == size(expected, 2), 'gsr_transfer integer(8): count')
    if (size(got, 2) /= size(expected, 2)) return
    do k = 1, size(expected, 2)
      call check(got(1, k) == big*expected(1, k) + 1000*rank + expected(3, k) .and. &
                 from(k) == expected(1, k), 'gsr_transfer integer(8): record or source')
    end do
  end subroutine

  ! Root P - 1 scatters m = 3 values to every rank (the statistics of docs/transfer.md), then
  ! rank r's block holds r values (rank 0's is empty), as integer and integer(8).
  subroutine check_scatter()
    integer, parameter :: m = 3
    integer :: root, r, i, rounds
    real(c_double), allocatable :: data(:), block(:)
    integer(c_int), allocatable :: idata(:), iblock(:)
    integer(c_int64_t), allocatable :: ldata(:), lblock(:), counts(:)
    type(gsr_tree_stats) :: stats

    root = np - 1
    rounds = ceil_log2(np)
    allocate (data(0), counts(0))
    if (rank == root) then
      data = [((100d0*r + i, i = 1, m), r = 0, np - 1)]
      counts = [(int(m, c_int64_t), r = 0, np - 1)]
    end if
    call gsr_scatter(data, counts, root, MPI_COMM_WORLD, block, stats)
    call check(size(block) == m, 'gsr_scatter real(8): block length')
    if (size(block) == m) call check(all(block == [(100d0*rank + i, i = 1, m)]), 'gsr_scatter real(8): values')
    call check(stats%tree_rounds == rounds, 'gsr_scatter: tree_rounds = ceil(log2 P)')
    if (rank == root) then
      call check(stats%rounds == rounds, 'gsr_scatter: root rounds')
      call check(stats%messages_sent == rounds, 'gsr_scatter: root messages = ceil(log2 P)')
      call check(stats%bytes_sent == 8*m*(np - 1), 'gsr_scatter: root bytes = m (P-1) 8')
      call check(stats%header_bytes_sent == 8*(np - 1), 'gsr_scatter: root header bytes')
    else
      call check(stats%messages_received == 1, 'gsr_scatter: one message received')
      call check(stats%bytes_received >= 8*m, 'gsr_scatter: bytes received')
    end if

    allocate (idata(0), ldata(0))
    if (rank == root) then
      idata = [((10*r + i, i = 1, r), r = 0, np - 1)]
      ldata = [((2_c_int64_t**40*r + i, i = 1, r), r = 0, np - 1)]
      counts = [(int(r, c_int64_t), r = 0, np - 1)]
    end if
    call gsr_scatter(idata, counts, root, MPI_COMM_WORLD, iblock)
    call check(size(iblock) == rank, 'gsr_scatter integer: block length')
    if (size(iblock) == rank) call check(all(iblock == [(10*rank + i, i = 1, rank)]), 'gsr_scatter integer: values')
    call gsr_scatter(ldata, counts, root, MPI_COMM_WORLD, lblock)
    call check(size(lblock) == rank, 'gsr_scatter integer(8): block length')
    if (size(lblock) == rank) &
      call check(all(lblock == [(2_c_int64_t**40*rank + i, i = 1, rank)]), 'gsr_scatter integer(8): values')
  end subroutine

  ! Rank r sends r + 1 values to root 0 (integer(8)), then m = 2 doubles and r integers to
  ! root P - 1.
  subroutine check_gather()
    integer :: r, i, rounds
    integer(c_int64_t), allocatable :: ldata(:), lblocks(:), counts(:)
    real(c_double), allocatable :: blocks(:)
    integer(c_int), allocatable :: iblocks(:)
    type(gsr_tree_stats) :: stats

    rounds = ceil_log2(np)
    allocate (ldata(rank + 1))
    ldata = [(1000_c_int64_t*rank + i, i = 1, rank + 1)]
    call gsr_gather(ldata, 0, MPI_COMM_WORLD, lblocks, counts, stats)
    call check(stats%tree_rounds == rounds, 'gsr_gather: tree_rounds = ceil(log2 P)')
    if (rank == 0) then
      call check(size(counts) == np, 'gsr_gather integer(8): counts on the root')
      if (size(counts) == np) call check(all(counts == [(r + 1, r = 0, np - 1)]), 'gsr_gather integer(8): counts')
      call check(size(lblocks) == np*(np + 1)/2, 'gsr_gather integer(8): length')
      if (size(lblocks) == np*(np + 1)/2) &
        call check(all(lblocks == [((1000_c_int64_t*r + i, i = 1, r + 1), r = 0, np - 1)]), &
                   'gsr_gather integer(8): values')
      call check(stats%messages_received == rounds, 'gsr_gather: root messages = ceil(log2 P)')
      call check(stats%bytes_received == 8*(np*(np + 1)/2 - 1), 'gsr_gather: root bytes')
    else
      call check(size(counts) == 0 .and. size(lblocks) == 0, 'gsr_gather: nothing off the root')
      call check(stats%messages_sent == 1, 'gsr_gather: one message sent')
    end if

    call gsr_gather([real(c_double) :: rank + 0.5d0, -rank], np - 1, MPI_COMM_WORLD, blocks, counts)
    if (rank == np - 1) then
      call check(size(blocks) == 2*np, 'gsr_gather real(8): length')
      if (size(blocks) == 2*np) &
        call check(all(blocks == [(r + 0.5d0, -real(r, c_double), r = 0, np - 1)]), 'gsr_gather real(8): values')
    end if
    call gsr_gather([(int(7*rank + i, c_int), i = 1, rank)], np - 1, MPI_COMM_WORLD, iblocks, counts)
    if (rank == np - 1) then
      call check(size(iblocks) == np*(np - 1)/2, 'gsr_gather integer: length')
      if (size(iblocks) == np*(np - 1)/2) &
        call check(all(iblocks == [((7*r + i, i = 1, r), r = 0, np - 1)]), 'gsr_gather integer: values')
    end if
  end subroutine

  ! Return mode: a bad argument on one rank is an error there (invalid_argument, naming the
  ! call and the value) and gsr_err_remote on the others; nobody waits.
  subroutine check_module_errors()
    real(c_double) :: mine(2, 2)
    real(c_double), allocatable :: got(:, :), block(:)
    integer(c_int), allocatable :: from(:)
    integer(c_int64_t), allocatable :: counts(:)
    integer :: code, bad, r

    bad = np - 1
    mine = 1
    if (rank == bad) then
      call gsr_transfer(mine, [0_c_int], MPI_COMM_WORLD, got, from, ierr=code)
      call check(code == gsr_err_invalid_argument, 'gsr_transfer lengths: code on the bad rank')
      call check(index(gsr_last_error_message(), 'gsr: gsr_transfer: ') == 1 .and. &
                 index(gsr_last_error_message(), '2 records but 1 destinations') > 0, &
                 'gsr_transfer lengths: message')
    else
      call gsr_transfer(mine, [0_c_int, 0_c_int], MPI_COMM_WORLD, got, from, ierr=code)
      call check(code == gsr_err_remote, 'gsr_transfer lengths: code on the other ranks')
      call check(index(gsr_last_error_message(), '2 records but 1 destinations') > 0, &
                 'gsr_transfer lengths: the other ranks quote the bad rank''s message')
    end if
    call check(size(got, 2) == 0 .and. size(from) == 0, 'gsr_transfer lengths: nothing received')
    call gsr_clear_error()

    allocate (counts(np))
    counts = [(1_c_int64_t, r = 1, np)]
    call gsr_scatter([real(c_double) :: (1, r = 1, np + 1)], counts, 0, MPI_COMM_WORLD, block, ierr=code)
    if (rank == 0) then
      call check(code == gsr_err_invalid_argument, 'gsr_scatter sum: code on the root')
      call check(index(gsr_last_error_message(), 'the counts add up to') > 0, 'gsr_scatter sum: message')
    else
      call check(code == gsr_err_remote, 'gsr_scatter sum: code on the other ranks')
      call check(index(gsr_last_error_message(), 'the counts add up to') > 0, &
                 'gsr_scatter sum: the other ranks quote the root''s message')
    end if
    call gsr_clear_error()
  end subroutine

  ! gslib's crystal-router entry points in return mode (called without an interface, as F77
  ! code does).
  subroutine check_crystal_errors()
    external :: fgslib_crystal_setup, fgslib_crystal_ituple_transfer, fgslib_crystal_free
    integer :: it(2, 8), h, h2, n, i, bad

    ! more tuples arrive than max: the first max are kept, n says how many arrived
    call fgslib_crystal_setup(h, MPI_COMM_WORLD, np)
    call check(gsr_last_error() == gsr_success .and. h >= 0, 'crystal_setup')
    it(1, :) = [(100*rank + i, i = 1, 8)]
    it(2, :) = 0
    n = 3
    call fgslib_crystal_ituple_transfer(h, it, 2, n, 3, 2)
    if (rank == 0 .and. np > 1) then
      call check(gsr_last_error() == gsr_err_invalid_argument, 'overflow: code')
      call check(index(gsr_last_error_message(), 'gsr: crystal_ituple_transfer: ') > 0 .and. &
                 index(gsr_last_error_message(), ' tuples arrived, more than max = 3') > 0, 'overflow: message')
      call check(n == 3*np, 'overflow: n is the number that arrived')
      call check(all(it(1, 1:3) == [1, 2, 3]) .and. all(it(2, 1:3) == 0), 'overflow: the first max kept')
      call check(all(it(1, 4:8) == [4, 5, 6, 7, 8]), 'overflow: nothing written past max')
    else
      call check(gsr_last_error() == gsr_success, 'no overflow: code')
      call check(n == merge(3, 0, rank == 0), 'no overflow: n')
    end if
    call gsr_clear_error()

    ! a bad kp on one rank: an error there, gsr_err_remote elsewhere, n unchanged
    bad = np - 1
    n = 1
    it(2, 1) = 0
    call fgslib_crystal_ituple_transfer(h, it, 2, n, 8, merge(3, 2, rank == bad))
    if (rank == bad) then
      call check(gsr_last_error() == gsr_err_invalid_argument, 'kp: code on the bad rank')
      call check(index(gsr_last_error_message(), &
                       'gsr: crystal_ituple_transfer: kp = 3 is not an integer column of the tuples (1 to 2)') > 0, &
                 'kp: message')
    else
      call check(gsr_last_error() == gsr_err_remote, 'kp: code on the other ranks')
      call check(index(gsr_last_error_message(), &
                       'failed: gsr: crystal_ituple_transfer: kp = 3 is not an integer column') > 0, &
                 'kp: the other ranks quote the bad rank''s message')
    end if
    call check(n == 1, 'kp: n unchanged')
    call gsr_clear_error()

    ! a destination that is no rank, on rank 0
    n = 1
    it(2, 1) = merge(np, 0, rank == 0)
    call fgslib_crystal_ituple_transfer(h, it, 2, n, 8, 2)
    if (rank == 0) then
      call check(index(gsr_last_error_message(), 'tuple 1 goes to rank ') > 0 .and. &
                 index(gsr_last_error_message(), 'which is not a rank of the communicator') > 0, 'dest: message')
    else
      call check(gsr_last_error() == gsr_err_remote, 'dest: code on the other ranks')
    end if
    call gsr_clear_error()

    ! after the errors the handle works
    n = 1
    it(2, 1) = 0
    call fgslib_crystal_ituple_transfer(h, it, 2, n, 8, 2)
    call check(gsr_last_error() == gsr_success .and. n == merge(np, 0, rank == 0), 'transfer after errors')

    ! np wrong on one rank: no handle anywhere
    call fgslib_crystal_setup(h2, MPI_COMM_WORLD, merge(np + 1, np, rank == bad))
    call check(h2 == -1, 'crystal_setup np: handle -1')
    if (rank == bad) then
      call check(index(gsr_last_error_message(), 'gsr: crystal_setup: np = ') > 0, 'crystal_setup np: message')
    else
      call check(gsr_last_error() == gsr_err_remote, 'crystal_setup np: code on the other ranks')
      call check(index(gsr_last_error_message(), 'failed: gsr: crystal_setup: np = ') > 0, &
                 'crystal_setup np: the other ranks quote the bad rank''s message')
    end if
    call gsr_clear_error()

    ! a freed handle
    call fgslib_crystal_free(h)
    call fgslib_crystal_ituple_transfer(h, it, 2, n, 8, 2)
    call check(gsr_last_error() == gsr_err_state, 'freed handle: code')
    call check(index(gsr_last_error_message(), 'has been freed') > 0, 'freed handle: message')
    call gsr_clear_error()
  end subroutine

end program transfer_test
