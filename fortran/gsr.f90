! gsr.f90 — the Fortran module `gsr`: the gather-scatter calls of Nek5000's gs library,
! bound to the gsr C API through ISO_C_BINDING (the C side is gsr_fortran.c).
!
! Handles and requests are plain default integers. Data arrays are assumed-type,
! assumed-size dummies, so an array of any supported type is passed by address, never
! copied; `dom` tells the library what it holds. See docs/fortran.md for the calls, the
! codes, errors and an example.
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

  ! mesh distributions for gsr_mesh_load (the values of mesh.h)
  integer, parameter, public :: gsr_mesh_blocks = 0     ! rank r: the r-th contiguous block
  integer, parameter, public :: gsr_mesh_partition = 1  ! rank r: elements /mesh/partition gives r

  ! gsr/mesh.h's struct, which owns the arrays.
  type, bind(c) :: c_mesh
    integer(c_int) :: dim = 0, order = 0, nodes_per_element = 0, has_coordinates = 0
    integer(c_int64_t) :: global_elements = 0, local_elements = 0, n = 0
    type(c_ptr) :: elements = c_null_ptr, ids = c_null_ptr, coordinates = c_null_ptr
  end type

  !> This rank's part of a mesh file, as loaded by gsr_mesh_load. The arrays point into
  !> memory the library owns until gsr_mesh_free: ids(1:n) (ready for gs_setup, element
  !> after element, x fastest within an element), elements(1:local_elements) (0-based
  !> indices into the file) and, when has_coordinates, coordinates(1:dim, 1:n).
  type, public :: gsr_mesh
    integer :: dim = 0, order = 0, nodes_per_element = 0
    logical :: has_coordinates = .false.
    integer(c_int64_t) :: global_elements = 0, local_elements = 0, n = 0
    integer(c_int64_t), pointer, contiguous :: ids(:) => null()
    integer(c_int64_t), pointer, contiguous :: elements(:) => null()
    real(c_double), pointer, contiguous :: coordinates(:, :) => null()
    type(c_mesh), private :: c
  end type

  ! What an empty rank's arrays point to, so that they are always safe to pass on.
  integer(c_int64_t), target, save :: no_int64(0)
  real(c_double), target, save :: no_double(0, 0)

  public :: gsr_mesh_load, gsr_mesh_free
  public :: gs_setup, gs_setup_ext, gs_unique, gs_free
  public :: gs_op, gs_vec, gs_op_vec, gs_many, gs_op_many
  public :: igs_op, igs_vec, igs_op_vec, igs_many, igs_op_many, gs_op_wait, gs_wait
  public :: gsr_set_error_mode, gsr_get_error_mode, gsr_last_error, gsr_last_error_message
  public :: gsr_clear_error, gsr_method_name

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

    type(c_ptr) function c_method_name(handle) bind(c, name='gsr_f_method_name')
      import :: c_int, c_ptr
      integer(c_int), value :: handle
    end function

    integer(c_int) function c_mesh_load(path, comm, distribution, with_coordinates, mesh) &
        bind(c, name='gsr_f_mesh_load')
      import :: c_int, c_char, c_mesh
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: comm, distribution, with_coordinates
      type(c_mesh), intent(inout) :: mesh
    end function

    subroutine c_mesh_free(mesh) bind(c, name='gsr_mesh_free')
      import :: c_mesh
      type(c_mesh), intent(inout) :: mesh
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
    message = from_c_string(c_last_error_message())
  end function

  subroutine gsr_clear_error()
    call c_clear_error()
  end subroutine

  !> The exchange method a handle uses: "pairwise", "crystal_router" or "allreduce".
  function gsr_method_name(handle) result(name)
    integer, intent(in) :: handle
    character(len=:), allocatable :: name
    name = from_c_string(c_method_name(handle))
  end function

  ! ---- meshes --------------------------------------------------------------------------

  !> Collective over comm: each rank reads its own elements of the mesh file `path`
  !> (distribution gsr_mesh_blocks or gsr_mesh_partition; coordinates too when asked and
  !> present). ierr, if given, receives the error code (return mode); after an error the
  !> mesh is empty. A mesh loaded before is freed first.
  subroutine gsr_mesh_load(path, comm, distribution, with_coordinates, mesh, ierr)
    character(len=*), intent(in) :: path
    integer, intent(in) :: comm, distribution
    logical, intent(in) :: with_coordinates
    type(gsr_mesh), intent(inout) :: mesh
    integer, intent(out), optional :: ierr
    integer :: code
    call gsr_mesh_free(mesh)
    code = c_mesh_load(trim(path)//c_null_char, comm, distribution, &
                       merge(1, 0, with_coordinates), mesh%c)
    if (present(ierr)) ierr = code
    if (code /= gsr_success) return
    mesh%dim = mesh%c%dim
    mesh%order = mesh%c%order
    mesh%nodes_per_element = mesh%c%nodes_per_element
    mesh%has_coordinates = mesh%c%has_coordinates /= 0
    mesh%global_elements = mesh%c%global_elements
    mesh%local_elements = mesh%c%local_elements
    mesh%n = mesh%c%n
    if (mesh%n > 0) then
      call c_f_pointer(mesh%c%ids, mesh%ids, [mesh%n])
      call c_f_pointer(mesh%c%elements, mesh%elements, [mesh%local_elements])
    else
      mesh%ids => no_int64
      mesh%elements => no_int64
    end if
    if (mesh%has_coordinates .and. mesh%n > 0) then
      call c_f_pointer(mesh%c%coordinates, mesh%coordinates, [int(mesh%dim, c_int64_t), mesh%n])
    else if (mesh%has_coordinates) then
      mesh%coordinates => no_double
    end if
  end subroutine

  !> Releases a mesh's arrays and empties it; safe on an empty or already freed mesh.
  subroutine gsr_mesh_free(mesh)
    type(gsr_mesh), intent(inout) :: mesh
    call c_mesh_free(mesh%c)
    mesh = gsr_mesh()
  end subroutine

  ! ---- helpers -------------------------------------------------------------------------

  function from_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
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
  end function

end module gsr
