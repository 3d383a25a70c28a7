! gsr.f90 — the Fortran module `gsr`: the gather-scatter calls of Nek5000's gs library,
! bound to the gsr C API through ISO_C_BINDING (the C side is gsr_fortran.c), and gsr's
! personalized communication (gsr/transfer.h): record transfer, scatter and gather.
!
! Handles and requests are plain default integers. Data arrays are assumed-type,
! assumed-size dummies, so an array of any supported type is passed by address, never
! copied; `dom` tells the library what it holds. See docs/fortran.md for the calls, the
! codes, errors and an example. The transfer, scatter and gather calls take typed arrays
! and return what arrived in allocatable arrays (copied out of the C library's malloc'd
! memory, which is released at once).
module gsr
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_char, c_ptr, &
                                         c_null_char, c_null_ptr, c_associated, c_f_pointer, &
                                         c_size_t
  implicit none
  private

  ! dom codes (the first three as in Nek5000; float is new)
  integer, parameter, public :: gsr_double = 1
  integer, parameter, public :: gsr_sint = 2    ! integer(4)
  integer, parameter, public :: gsr_slong = 3   ! integer(8)
  integer, parameter, public :: gsr_float = 4   ! real(4)

  ! op codes (the first four as in Nek5000; bpr is the C library's gs_bpr, integers only)
  integer, parameter, public :: gsr_sum = 1
  integer, parameter, public :: gsr_mult = 2
  integer, parameter, public :: gsr_min = 3
  integer, parameter, public :: gsr_max = 4
  integer, parameter, public :: gsr_bpr = 5

  ! exchange methods for gs_setup_ext (the values of gs.h's gs_method)
  integer, parameter, public :: gsr_auto = 0
  integer, parameter, public :: gsr_pairwise = 1
  integer, parameter, public :: gsr_crystal_router = 2
  integer, parameter, public :: gsr_all_reduce = 3
  integer, parameter, public :: gsr_neighbor = 4

  ! error codes and modes (the values of gs.h)
  integer, parameter, public :: gsr_success = 0
  integer, parameter, public :: gsr_err_invalid_argument = 1
  integer, parameter, public :: gsr_err_mismatch = 2
  integer, parameter, public :: gsr_err_remote = 3
  integer, parameter, public :: gsr_err_state = 4
  integer, parameter, public :: gsr_err_io = 5
  integer, parameter, public :: gsr_err_mpi = 6
  integer, parameter, public :: gsr_err_internal = 7
  integer, parameter, public :: gsr_err_timeout = 8
  integer, parameter, public :: gsr_errors_abort = 0
  integer, parameter, public :: gsr_errors_return = 1

  ! record transfer methods for gsr_transfer (the values of transfer.h's GSR_TRANSFER_*)
  integer, parameter, public :: gsr_transfer_auto = 0
  integer, parameter, public :: gsr_transfer_direct = 1
  integer, parameter, public :: gsr_transfer_crystal_router = 2
  integer, parameter, public :: gsr_transfer_two_round = 3

  !> What one gsr_transfer did on this rank, summed over its rounds (transfer.h's
  !> gsr_transfer_stats): the method used, its rounds (direct 1, crystal router at most
  !> ceil(log2 P), two-round 2), and the messages, records and bytes sent and received
  !> (messages to itself not counted), and the largest message sent.
  type, bind(c), public :: gsr_transfer_stats
    integer(c_int) :: method = 0, stages = 0
    integer(c_size_t) :: messages_sent = 0, messages_received = 0
    integer(c_size_t) :: records_sent = 0, records_received = 0
    integer(c_size_t) :: bytes_sent = 0, bytes_received = 0
    integer(c_size_t) :: largest_message_records = 0, largest_message_bytes = 0
  end type

  !> What one gsr_scatter or gsr_gather did on this rank (transfer.h's gsr_tree_stats):
  !> tree_rounds = ceil(log2 P), the rounds this rank took part in, its messages, payload
  !> bytes and header bytes (8 per block carried) sent and received.
  type, bind(c), public :: gsr_tree_stats
    integer(c_int) :: tree_rounds = 0, rounds = 0
    integer(c_size_t) :: messages_sent = 0, messages_received = 0
    integer(c_size_t) :: bytes_sent = 0, bytes_received = 0
    integer(c_size_t) :: header_bytes_sent = 0, header_bytes_received = 0
  end type

  public :: gs_setup, gs_setup_ext, gs_unique, gs_free
  public :: gs_op, gs_vec, gs_op_vec, gs_many, gs_op_many
  public :: igs_op, igs_vec, igs_op_vec, igs_many, igs_op_many, gs_op_wait, gs_wait, gsr_progress
  public :: gsr_set_error_mode, gsr_get_error_mode, gsr_last_error, gsr_last_error_message
  public :: gsr_clear_error, gsr_method_name
  public :: gsr_get_last_error_message, gsr_get_method_name
  public :: gsr_transfer, gsr_scatter, gsr_gather

  !> Sends column i of records(:, :) to rank destinations(i) of comm; received(:, j) is the
  !> j-th record that arrived and sources(j) the rank it came from (sorted by source, each
  !> source's records in its order). Collective. See docs/fortran.md.
  interface gsr_transfer
    module procedure transfer_double, transfer_int, transfer_int64
  end interface

  !> From the root, counts(r + 1) values of data (blocks back to back in rank order) go to
  !> rank r; every rank receives its block. Collective. See docs/fortran.md.
  interface gsr_scatter
    module procedure scatter_double, scatter_int, scatter_int64
  end interface

  !> Every rank's data goes to the root, which receives the blocks back to back in rank
  !> order and their counts. Collective. See docs/fortran.md.
  interface gsr_gather
    module procedure gather_double, gather_int, gather_int64
  end interface

  interface
    integer(c_int) function c_setup(id, n, comm, check_np, np, unique, method, verbose, call) &
        bind(c, name='gsr_f_setup')
      import :: c_int, c_int64_t, c_char
      integer(c_int64_t), intent(in) :: id(*)
      integer(c_int), value :: n, comm, check_np, np, unique, method, verbose
      character(kind=c_char), intent(in) :: call(*)
    end function

    subroutine c_unique(id, n, comm) bind(c, name='gsr_f_unique')
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(inout) :: id(*)
      integer(c_int), value :: n, comm
    end subroutine

    subroutine c_free(handle) bind(c, name='gsr_f_free')
      import :: c_int
      integer(c_int), value :: handle
    end subroutine

    subroutine c_op(handle, u, dom, op, transpose, call) bind(c, name='gsr_f_op')
      import :: c_int, c_char
      integer(c_int), value :: handle, dom, op, transpose
      type(*) :: u(*)
      character(kind=c_char), intent(in) :: call(*)
    end subroutine

    subroutine c_vec(handle, u, k, dom, op, transpose, call) bind(c, name='gsr_f_vec')
      import :: c_int, c_char
      integer(c_int), value :: handle, k, dom, op, transpose
      type(*) :: u(*)
      character(kind=c_char), intent(in) :: call(*)
    end subroutine

    subroutine c_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, call) &
        bind(c, name='gsr_f_many')
      import :: c_int, c_char
      integer(c_int), value :: handle, k, dom, op, transpose
      type(*) :: u1(*)
      type(*), optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
      character(kind=c_char), intent(in) :: call(*)
    end subroutine

    integer(c_int) function c_iop(handle, u, dom, op, transpose, call) bind(c, name='gsr_f_iop')
      import :: c_int, c_char
      integer(c_int), value :: handle, dom, op, transpose
      type(*) :: u(*)
      character(kind=c_char), intent(in) :: call(*)
    end function

    integer(c_int) function c_ivec(handle, u, k, dom, op, transpose, call) &
        bind(c, name='gsr_f_ivec')
      import :: c_int, c_char
      integer(c_int), value :: handle, k, dom, op, transpose
      type(*) :: u(*)
      character(kind=c_char), intent(in) :: call(*)
    end function

    integer(c_int) function c_imany(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, &
                                    call) bind(c, name='gsr_f_imany')
      import :: c_int, c_char
      integer(c_int), value :: handle, k, dom, op, transpose
      type(*) :: u1(*)
      type(*), optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
      character(kind=c_char), intent(in) :: call(*)
    end function

    subroutine c_wait(request, call) bind(c, name='gsr_f_wait')
      import :: c_int, c_char
      integer(c_int), value :: request
      character(kind=c_char), intent(in) :: call(*)
    end subroutine

    subroutine c_set_error_mode(mode) bind(c, name='gsr_set_error_mode')
      import :: c_int
      integer(c_int), value :: mode
    end subroutine

    integer(c_int) function c_get_error_mode() bind(c, name='gsr_get_error_mode')
      import :: c_int
    end function

    integer(c_int) function c_last_error() bind(c, name='gsr_f_last_error')
      import :: c_int
    end function

    type(c_ptr) function c_last_error_message() bind(c, name='gsr_f_last_error_message')
      import :: c_ptr
    end function

    subroutine c_clear_error() bind(c, name='gsr_f_clear_error')
    end subroutine

    integer(c_int) function c_progress() bind(c, name='gsr_f_progress')
      import :: c_int
    end function

    type(c_ptr) function c_method_name(handle) bind(c, name='gsr_f_method_name')
      import :: c_int, c_ptr
      integer(c_int), value :: handle
    end function

    integer(c_int) function c_transfer(records, count, record_bytes, destinations, &
                                       destination_count, comm, method, received, sources, &
                                       received_count, stats, call) bind(c, name='gsr_f_transfer')
      import :: c_int, c_int64_t, c_ptr, c_char, gsr_transfer_stats
      type(*), intent(in) :: records(*)
      integer(c_int64_t), value :: count, record_bytes, destination_count
      integer(c_int), intent(in) :: destinations(*)
      integer(c_int), value :: comm, method
      type(c_ptr), intent(out) :: received, sources
      integer(c_int64_t), intent(out) :: received_count
      type(gsr_transfer_stats), intent(out), optional :: stats
      character(kind=c_char), intent(in) :: call(*)
    end function

    integer(c_int) function c_scatter(data, data_count, counts, counts_count, value_bytes, root, &
                                      comm, block, count, stats, call) bind(c, name='gsr_f_scatter')
      import :: c_int, c_int64_t, c_ptr, c_char, gsr_tree_stats
      type(*), intent(in) :: data(*)
      integer(c_int64_t), value :: data_count, counts_count, value_bytes
      integer(c_int64_t), intent(in) :: counts(*)
      integer(c_int), value :: root, comm
      type(c_ptr), intent(out) :: block
      integer(c_int64_t), intent(out) :: count
      type(gsr_tree_stats), intent(out), optional :: stats
      character(kind=c_char), intent(in) :: call(*)
    end function

    integer(c_int) function c_gather(data, count, value_bytes, root, comm, blocks, counts, ranks, &
                                     stats, call) bind(c, name='gsr_f_gather')
      import :: c_int, c_int64_t, c_ptr, c_char, gsr_tree_stats
      type(*), intent(in) :: data(*)
      integer(c_int64_t), value :: count, value_bytes
      integer(c_int), value :: root, comm
      type(c_ptr), intent(out) :: blocks, counts
      integer(c_int), intent(out) :: ranks
      type(gsr_tree_stats), intent(out), optional :: stats
      character(kind=c_char), intent(in) :: call(*)
    end function

    ! The C library's results are malloc'd; they are copied into Fortran arrays and released.
    subroutine c_release(p) bind(c, name='free')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine

    integer(c_size_t) function c_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! ---- setup, unique, free ------------------------------------------------------------

  !> Builds a handle from this rank's n global ids (Nek5000's call). comm is a Fortran MPI
  !> communicator and np must equal its size. handle is 0 after an error (return mode).
  subroutine gs_setup(handle, id, n, comm, np)
    integer, intent(out) :: handle
    integer(c_int64_t), intent(in) :: id(*)
    integer, intent(in) :: n, comm, np
    handle = c_setup(id, n, comm, 1, np, 0, gsr_auto, 0, 'gs_setup'//c_null_char)
  end subroutine

  !> gs_setup with what the original Fortran call lacked: unique /= 0 behaves as if
  !> gs_unique had been applied to id first (id itself is left alone), method is one of
  !> gsr_auto, gsr_pairwise, gsr_crystal_router, gsr_all_reduce, gsr_neighbor, and verbose /= 0 prints
  !> the setup statistics on rank 0. np is optional here; when given it is checked.
  subroutine gs_setup_ext(handle, id, n, comm, unique, method, verbose, np)
    integer, intent(out) :: handle
    integer(c_int64_t), intent(in) :: id(*)
    integer, intent(in) :: n, comm, unique, method, verbose
    integer, intent(in), optional :: np
    if (present(np)) then
      handle = c_setup(id, n, comm, 1, np, unique, method, verbose, 'gs_setup_ext'//c_null_char)
    else
      handle = c_setup(id, n, comm, 0, 0, unique, method, verbose, 'gs_setup_ext'//c_null_char)
    end if
  end subroutine

  !> Flags (negates) all entries of each id group except one, across all ranks of comm.
  subroutine gs_unique(id, n, comm)
    integer(c_int64_t), intent(inout) :: id(*)
    integer, intent(in) :: n, comm
    call c_unique(id, n, comm)
  end subroutine

  subroutine gs_free(handle)
    integer, intent(in) :: handle
    call c_free(handle)
  end subroutine

  ! ---- blocking operations -------------------------------------------------------------

  !> u(1:n) <- gather-scatter of u under op; dom says what u holds; transpose /= 0 selects
  !> the gather-like (Q^T) behaviour for flagged ids.
  subroutine gs_op(handle, u, dom, op, transpose)
    integer, intent(in) :: handle
    type(*), intent(inout) :: u(*)
    integer, intent(in) :: dom, op, transpose
    call c_op(handle, u, dom, op, transpose, 'gs_op'//c_null_char)
  end subroutine

  !> u(1:k, 1:n): k components per node, reduced component by component.
  subroutine gs_vec(handle, u, k, dom, op, transpose)
    integer, intent(in) :: handle
    type(*), intent(inout) :: u(*)
    integer, intent(in) :: k, dom, op, transpose
    call c_vec(handle, u, k, dom, op, transpose, 'gs_vec'//c_null_char)
  end subroutine

  !> k separate arrays u1..uk of length n (k <= 6) in one exchange; the arrays after the
  !> k-th are ignored and may be omitted (pass k, dom, op, transpose by keyword then).
  subroutine gs_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose)
    integer, intent(in) :: handle
    type(*), intent(inout) :: u1(*)
    type(*), intent(inout), optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
    integer, intent(in) :: k, dom, op, transpose
    call c_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, &
                'gs_many'//c_null_char)
  end subroutine

  ! The Nek5000 names of the same calls (specific procedures, not generics: a generic would
  ! refuse a rank-2 array for the assumed-size argument, which a specific accepts).

  subroutine gs_op_vec(handle, u, k, dom, op, transpose)
    integer, intent(in) :: handle
    type(*), intent(inout) :: u(*)
    integer, intent(in) :: k, dom, op, transpose
    call c_vec(handle, u, k, dom, op, transpose, 'gs_op_vec'//c_null_char)
  end subroutine

  subroutine gs_op_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose)
    integer, intent(in) :: handle
    type(*), intent(inout) :: u1(*)
    type(*), intent(inout), optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
    integer, intent(in) :: k, dom, op, transpose
    call c_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, &
                'gs_op_many'//c_null_char)
  end subroutine

  ! ---- non-blocking operations ---------------------------------------------------------
  ! Start with igs_op / igs_vec / igs_many, do local work, then gs_op_wait(request). The
  ! arrays must be contiguous, must stay alive and must not be touched at shared entries
  ! until the wait returns (declare them asynchronous in the caller). request is 0 after
  ! an error (return mode).

  subroutine igs_op(handle, u, dom, op, transpose, request)
    integer, intent(in) :: handle
    type(*), intent(inout), asynchronous :: u(*)
    integer, intent(in) :: dom, op, transpose
    integer, intent(out) :: request
    request = c_iop(handle, u, dom, op, transpose, 'igs_op'//c_null_char)
  end subroutine

  subroutine igs_vec(handle, u, k, dom, op, transpose, request)
    integer, intent(in) :: handle
    type(*), intent(inout), asynchronous :: u(*)
    integer, intent(in) :: k, dom, op, transpose
    integer, intent(out) :: request
    request = c_ivec(handle, u, k, dom, op, transpose, 'igs_vec'//c_null_char)
  end subroutine

  ! igs_op_vec and igs_op_many: the Nek5000-style names of igs_vec and igs_many, specific
  ! procedures for the reason given above gs_op_vec; each names its own call in errors.
  subroutine igs_op_vec(handle, u, k, dom, op, transpose, request)
    integer, intent(in) :: handle
    type(*), intent(inout), asynchronous :: u(*)
    integer, intent(in) :: k, dom, op, transpose
    integer, intent(out) :: request
    request = c_ivec(handle, u, k, dom, op, transpose, 'igs_op_vec'//c_null_char)
  end subroutine

  subroutine igs_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, request)
    integer, intent(in) :: handle
    type(*), intent(inout), asynchronous :: u1(*)
    type(*), intent(inout), asynchronous, optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
    integer, intent(in) :: k, dom, op, transpose
    integer, intent(out) :: request
    request = c_imany(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, &
                      'igs_many'//c_null_char)
  end subroutine

  subroutine igs_op_many(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, request)
    integer, intent(in) :: handle
    type(*), intent(inout), asynchronous :: u1(*)
    type(*), intent(inout), asynchronous, optional :: u2(*), u3(*), u4(*), u5(*), u6(*)
    integer, intent(in) :: k, dom, op, transpose
    integer, intent(out) :: request
    request = c_imany(handle, u1, u2, u3, u4, u5, u6, k, dom, op, transpose, &
                      'igs_op_many'//c_null_char)
  end subroutine

  !> Completes a request started by igs_op, igs_vec or igs_many.
  subroutine gs_op_wait(request)
    integer, intent(in) :: request
    call c_wait(request, 'gs_op_wait'//c_null_char)
  end subroutine

  subroutine gs_wait(request)
    integer, intent(in) :: request
    call c_wait(request, 'gs_wait'//c_null_char)
  end subroutine

  !> Advances every call in flight on this thread without blocking (gsr_progress in C):
  !> call it now and then from long work between igs_* and gs_wait so that the messages
  !> travel meanwhile. done: .true. when no call waits for other ranks any more.
  subroutine gsr_progress(done)
    logical, intent(out), optional :: done
    integer(c_int) :: all_done
    all_done = c_progress()
    if (present(done)) done = all_done /= 0
  end subroutine

  ! ---- errors and introspection --------------------------------------------------------

  !> gsr_errors_abort (default: print and MPI_Abort) or gsr_errors_return.
  subroutine gsr_set_error_mode(mode)
    integer, intent(in) :: mode
    call c_set_error_mode(mode)
  end subroutine

  integer function gsr_get_error_mode()
    gsr_get_error_mode = c_get_error_mode()
  end function

  !> Code of the last failed gsr call (gsr_success if none since the last clear).
  integer function gsr_last_error()
    gsr_last_error = c_last_error()
  end function

  !> Message of the last failed gsr call ("" if none).
  function gsr_last_error_message() result(message)
    character(len=:), allocatable :: message
    call from_c_string(c_last_error_message(), message)
  end function

  !> gsr_last_error_message as a subroutine, for OpenMP threads: gfortran (12) keeps the
  !> length of a deferred-length function result in a static variable of the calling code,
  !> which threads calling the function at once would share; an argument has no such copy.
  subroutine gsr_get_last_error_message(message)
    character(len=:), allocatable, intent(out) :: message
    call from_c_string(c_last_error_message(), message)
  end subroutine

  subroutine gsr_clear_error()
    call c_clear_error()
  end subroutine

  !> The exchange method a handle uses: "pairwise", "crystal_router" or "allreduce".
  function gsr_method_name(handle) result(name)
    integer, intent(in) :: handle
    character(len=:), allocatable :: name
    call from_c_string(c_method_name(handle), name)
  end function

  !> gsr_method_name as a subroutine, for OpenMP threads (see gsr_get_last_error_message).
  subroutine gsr_get_method_name(handle, name)
    integer, intent(in) :: handle
    character(len=:), allocatable, intent(out) :: name
    call from_c_string(c_method_name(handle), name)
  end subroutine

  ! ---- record transfer ------------------------------------------------------------------
  ! One specific procedure per type: each runs the transfer on its records as bytes
  ! (run_transfer) and copies what arrived into its typed result. With method absent the
  ! library chooses (gsr_transfer_auto); every rank must pass the same method and the same
  ! number of rows, also a rank with no records (records(rows, 0)). ierr, if given, receives
  ! the error code (return mode); after an error received(rows, 0) and sources(0) are empty.

  subroutine transfer_double(records, destinations, comm, received, sources, method, stats, ierr)
    real(c_double), intent(in) :: records(:, :)
    integer(c_int), intent(in) :: destinations(:)
    integer, intent(in) :: comm
    real(c_double), allocatable, intent(out) :: received(:, :)
    integer(c_int), allocatable, intent(out) :: sources(:)
    integer, intent(in), optional :: method
    type(gsr_transfer_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    real(c_double), pointer :: arrived(:, :)
    type(c_ptr) :: got
    integer(c_int64_t) :: rows, n
    rows = size(records, 1, c_int64_t)
    call run_transfer(records, rows, size(records, 2, c_int64_t), storage_size(records, c_int64_t) / 8, &
                      destinations, comm, got, n, sources, method, stats, ierr)
    allocate (received(rows, n))
    if (rows > 0 .and. n > 0) then
      call c_f_pointer(got, arrived, [rows, n])
      received = arrived
    end if
    call c_release(got)
  end subroutine

  subroutine transfer_int(records, destinations, comm, received, sources, method, stats, ierr)
    integer(c_int), intent(in) :: records(:, :)
    integer(c_int), intent(in) :: destinations(:)
    integer, intent(in) :: comm
    integer(c_int), allocatable, intent(out) :: received(:, :)
    integer(c_int), allocatable, intent(out) :: sources(:)
    integer, intent(in), optional :: method
    type(gsr_transfer_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int), pointer :: arrived(:, :)
    type(c_ptr) :: got
    integer(c_int64_t) :: rows, n
    rows = size(records, 1, c_int64_t)
    call run_transfer(records, rows, size(records, 2, c_int64_t), storage_size(records, c_int64_t) / 8, &
                      destinations, comm, got, n, sources, method, stats, ierr)
    allocate (received(rows, n))
    if (rows > 0 .and. n > 0) then
      call c_f_pointer(got, arrived, [rows, n])
      received = arrived
    end if
    call c_release(got)
  end subroutine

  subroutine transfer_int64(records, destinations, comm, received, sources, method, stats, ierr)
    integer(c_int64_t), intent(in) :: records(:, :)
    integer(c_int), intent(in) :: destinations(:)
    integer, intent(in) :: comm
    integer(c_int64_t), allocatable, intent(out) :: received(:, :)
    integer(c_int), allocatable, intent(out) :: sources(:)
    integer, intent(in), optional :: method
    type(gsr_transfer_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int64_t), pointer :: arrived(:, :)
    type(c_ptr) :: got
    integer(c_int64_t) :: rows, n
    rows = size(records, 1, c_int64_t)
    call run_transfer(records, rows, size(records, 2, c_int64_t), storage_size(records, c_int64_t) / 8, &
                      destinations, comm, got, n, sources, method, stats, ierr)
    allocate (received(rows, n))
    if (rows > 0 .and. n > 0) then
      call c_f_pointer(got, arrived, [rows, n])
      received = arrived
    end if
    call c_release(got)
  end subroutine

  ! The untyped part: got points to the n records that arrived (release with c_release).
  subroutine run_transfer(records, rows, count, value_bytes, destinations, comm, got, n, sources, &
                          method, stats, ierr)
    type(*), intent(in) :: records(*)
    integer(c_int64_t), intent(in) :: rows, count, value_bytes
    integer(c_int), intent(in) :: destinations(:)
    integer, intent(in) :: comm
    type(c_ptr), intent(out) :: got
    integer(c_int64_t), intent(out) :: n
    integer(c_int), allocatable, intent(out) :: sources(:)
    integer, intent(in), optional :: method
    type(gsr_transfer_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int), pointer :: ranks(:)
    type(c_ptr) :: from
    integer :: code, chosen
    chosen = gsr_transfer_auto
    if (present(method)) chosen = method
    code = c_transfer(records, count, rows * value_bytes, destinations, &
                      size(destinations, kind=c_int64_t), comm, chosen, got, from, n, stats, &
                      'gsr_transfer'//c_null_char)
    if (present(ierr)) ierr = code
    allocate (sources(n))
    if (n > 0) then
      call c_f_pointer(from, ranks, [n])
      sources = ranks
    end if
    call c_release(from)
  end subroutine

  ! ---- scatter and gather ---------------------------------------------------------------
  ! Blocks of any length (0 included), from or to any root, along the binomial tree of
  ! docs/transfer.md. On the root of a scatter, counts has one entry per rank and the counts
  ! add up to size(data); elsewhere data and counts are not read (pass empty arrays). After
  ! an error (return mode) the results are empty arrays and ierr, if given, holds the code.

  subroutine scatter_double(data, counts, root, comm, block, stats, ierr)
    real(c_double), intent(in) :: data(:)
    integer(c_int64_t), intent(in) :: counts(:)
    integer, intent(in) :: root, comm
    real(c_double), allocatable, intent(out) :: block(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    real(c_double), pointer :: values(:)
    type(c_ptr) :: got
    integer(c_int64_t) :: n
    call run_scatter(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, counts, &
                     root, comm, got, n, stats, ierr)
    allocate (block(n))
    if (n > 0) then
      call c_f_pointer(got, values, [n])
      block = values
    end if
    call c_release(got)
  end subroutine

  subroutine scatter_int(data, counts, root, comm, block, stats, ierr)
    integer(c_int), intent(in) :: data(:)
    integer(c_int64_t), intent(in) :: counts(:)
    integer, intent(in) :: root, comm
    integer(c_int), allocatable, intent(out) :: block(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int), pointer :: values(:)
    type(c_ptr) :: got
    integer(c_int64_t) :: n
    call run_scatter(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, counts, &
                     root, comm, got, n, stats, ierr)
    allocate (block(n))
    if (n > 0) then
      call c_f_pointer(got, values, [n])
      block = values
    end if
    call c_release(got)
  end subroutine

  subroutine scatter_int64(data, counts, root, comm, block, stats, ierr)
    integer(c_int64_t), intent(in) :: data(:)
    integer(c_int64_t), intent(in) :: counts(:)
    integer, intent(in) :: root, comm
    integer(c_int64_t), allocatable, intent(out) :: block(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int64_t), pointer :: values(:)
    type(c_ptr) :: got
    integer(c_int64_t) :: n
    call run_scatter(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, counts, &
                     root, comm, got, n, stats, ierr)
    allocate (block(n))
    if (n > 0) then
      call c_f_pointer(got, values, [n])
      block = values
    end if
    call c_release(got)
  end subroutine

  subroutine run_scatter(data, data_count, value_bytes, counts, root, comm, got, n, stats, ierr)
    type(*), intent(in) :: data(*)
    integer(c_int64_t), intent(in) :: data_count, value_bytes
    integer(c_int64_t), intent(in) :: counts(:)
    integer, intent(in) :: root, comm
    type(c_ptr), intent(out) :: got
    integer(c_int64_t), intent(out) :: n
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer :: code
    code = c_scatter(data, data_count, counts, size(counts, kind=c_int64_t), value_bytes, root, &
                     comm, got, n, stats, 'gsr_scatter'//c_null_char)
    if (present(ierr)) ierr = code
  end subroutine

  subroutine gather_double(data, root, comm, blocks, counts, stats, ierr)
    real(c_double), intent(in) :: data(:)
    integer, intent(in) :: root, comm
    real(c_double), allocatable, intent(out) :: blocks(:)
    integer(c_int64_t), allocatable, intent(out) :: counts(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    real(c_double), pointer :: values(:)
    type(c_ptr) :: got
    call run_gather(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, root, comm, &
                    got, counts, stats, ierr)
    allocate (blocks(sum(counts)))
    if (size(blocks) > 0) then
      call c_f_pointer(got, values, [size(blocks)])
      blocks = values
    end if
    call c_release(got)
  end subroutine

  subroutine gather_int(data, root, comm, blocks, counts, stats, ierr)
    integer(c_int), intent(in) :: data(:)
    integer, intent(in) :: root, comm
    integer(c_int), allocatable, intent(out) :: blocks(:)
    integer(c_int64_t), allocatable, intent(out) :: counts(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int), pointer :: values(:)
    type(c_ptr) :: got
    call run_gather(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, root, comm, &
                    got, counts, stats, ierr)
    allocate (blocks(sum(counts)))
    if (size(blocks) > 0) then
      call c_f_pointer(got, values, [size(blocks)])
      blocks = values
    end if
    call c_release(got)
  end subroutine

  subroutine gather_int64(data, root, comm, blocks, counts, stats, ierr)
    integer(c_int64_t), intent(in) :: data(:)
    integer, intent(in) :: root, comm
    integer(c_int64_t), allocatable, intent(out) :: blocks(:)
    integer(c_int64_t), allocatable, intent(out) :: counts(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int64_t), pointer :: values(:)
    type(c_ptr) :: got
    call run_gather(data, size(data, kind=c_int64_t), storage_size(data, c_int64_t) / 8, root, comm, &
                    got, counts, stats, ierr)
    allocate (blocks(sum(counts)))
    if (size(blocks) > 0) then
      call c_f_pointer(got, values, [size(blocks)])
      blocks = values
    end if
    call c_release(got)
  end subroutine

  ! counts: one per rank on the root, empty elsewhere; got: the blocks (release with c_release).
  subroutine run_gather(data, count, value_bytes, root, comm, got, counts, stats, ierr)
    type(*), intent(in) :: data(*)
    integer(c_int64_t), intent(in) :: count, value_bytes
    integer, intent(in) :: root, comm
    type(c_ptr), intent(out) :: got
    integer(c_int64_t), allocatable, intent(out) :: counts(:)
    type(gsr_tree_stats), intent(out), optional :: stats
    integer, intent(out), optional :: ierr
    integer(c_int64_t), pointer :: sizes(:)
    type(c_ptr) :: from
    integer(c_int) :: ranks
    integer :: code
    code = c_gather(data, count, value_bytes, root, comm, got, from, ranks, stats, &
                    'gsr_gather'//c_null_char)
    if (present(ierr)) ierr = code
    allocate (counts(ranks))
    if (ranks > 0) then
      call c_f_pointer(from, sizes, [ranks])
      counts = sizes
    end if
    call c_release(from)
  end subroutine

  ! ---- helpers -------------------------------------------------------------------------

  ! A subroutine, not a function: gfortran 12 keeps the length of a deferred-length function
  ! result assigned to an allocatable in a static variable, which threads would share.
  subroutine from_c_string(p, s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable, intent(out) :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, length
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    length = int(c_strlen(p))
    call c_f_pointer(p, chars, [length])
    allocate (character(len=length) :: s)
    do i = 1, length
      s(i:i) = chars(i)
    end do
  end subroutine

end module gsr
