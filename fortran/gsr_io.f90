! gsr_io.f90 — the Fortran module `gsr_io`: loading a mesh file (gsr/mesh.h) from Fortran.
! A module and library of their own (libgsr_io_fortran, over libgsr_io) so that programs
! using only the gather-scatter module `gsr` never link HDF5. Errors follow the module
! `gsr`'s error mode and record (gsr_set_error_mode, gsr_last_error). See docs/fortran.md.
module gsr_io
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_char, c_ptr, &
                                         c_null_char, c_null_ptr, c_f_pointer
  use gsr, only: gsr_success
  implicit none
  private

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

  interface
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
  end interface

contains

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

end module gsr_io
