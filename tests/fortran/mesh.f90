! mesh.f90 — gsr_mesh_load / gsr_mesh_free from Fortran on the two-element example of
! docs/concepts.md written as a mesh file (write_seed_mesh.cpp): the ids of Table 1 arrive on
! the right ranks, for both distributions, with their coordinates; a handle built from them
! reproduces Table 2 (sum); a missing file is a clear error. Usage: fortran_mesh <mesh.h5>
program mesh
  use mpi
  use gsr
  use gsr_io
  use seed_support
  implicit none

  character(len=4096) :: path
  type(gsr_mesh) :: m
  integer :: h, ierr, e, a, element
  real(dp) :: u(18)
  real(dp) :: x, y

  call start()
  call get_command_argument(1, path)
  call gsr_set_error_mode(gsr_errors_return)

  ! Blocks: element 1 on rank 0, element 2 on rank 1 (both on one rank at P = 1).
  call gsr_mesh_load(path, MPI_COMM_WORLD, gsr_mesh_blocks, .true., m, ierr)
  call check_true('gsr_mesh_load blocks succeeds: '//gsr_last_error_message(), ierr == gsr_success)
  if (ierr == gsr_success) then
    call check_true('dim 2, order 2, 9 nodes per element, 2 elements', m%dim == 2 .and. &
                    m%order == 2 .and. m%nodes_per_element == 9 .and. m%global_elements == 2)
    call check_true('local elements and n', m%local_elements == count/9 .and. m%n == count)
    call check_int('blocks: ids', m%ids, seed_id(first:first + count - 1))
    call check_int('blocks: elements', m%elements, [(int(e, i8), e = (first - 1)/9, &
                                                      (first + count - 2)/9)])
    call check_true('coordinates present', m%has_coordinates .and. associated(m%coordinates))
    if (associated(m%coordinates)) then
      call check_true('coordinates shape', all(shape(m%coordinates) == [2, count]))
      do a = 1, count
        element = (first + a - 2)/9          ! 0-based element in the file
        x = element + 0.5_dp*mod(mod(first + a - 2, 9), 3)
        y = 0.5_dp*(mod(first + a - 2, 9)/3)
        call check_real('blocks: coordinates', m%coordinates(:, a), [x, y], 0.0_dp)
      end do
    end if

    call gs_setup(h, m%ids, int(m%n), MPI_COMM_WORLD, ranks)
    u(1:count) = seed_u(first:first + count - 1)
    call gs_op(h, u, gsr_double, gsr_sum, 0)
    call check_real('table 2 sum on the loaded ids', u(1:count), table2(first:first + count - 1, 1))
    call gs_free(h)
  end if
  call gsr_mesh_free(m)
  call check_true('gsr_mesh_free empties the mesh', m%n == 0 .and. .not. associated(m%ids))
  call gsr_mesh_free(m)

  ! Partition (made for two ranks): element 2 on rank 0, element 1 on rank 1.
  call gsr_mesh_load(path, MPI_COMM_WORLD, gsr_mesh_partition, .false., m, ierr)
  if (ranks == 2) then
    call check_true('gsr_mesh_load partition succeeds: '//gsr_last_error_message(), &
                    ierr == gsr_success)
    if (ierr == gsr_success) then
      call check_int('partition: ids', m%ids, seed_id(10 - 9*rank:18 - 9*rank))
      call check_int('partition: elements', m%elements, [int(1 - rank, i8)])
      call check_true('no coordinates when not asked', .not. associated(m%coordinates))
    end if
  else
    call check_true('partition for 2 ranks refused at P = 1', ierr /= gsr_success)
    call check_true('... with a message', len(gsr_last_error_message()) > 0)
    if (rank == 0) print '(a,a,a)', 'partition at P = 1 -> "', gsr_last_error_message(), '"'
  end if
  call gsr_mesh_free(m)

  ! A missing file: GSR_ERR_IO, naming the file, on every rank.
  call gsr_mesh_load('no-such-mesh.h5', MPI_COMM_WORLD, gsr_mesh_blocks, .true., m, ierr)
  call check_error('gsr_mesh_load of a missing file', ierr, gsr_last_error_message(), &
                   gsr_err_io, 'no-such-mesh.h5')
  call check_true('gsr_last_error agrees with ierr', gsr_last_error() == gsr_err_io)
  call check_true('the message names gsr_mesh_load', &
                  index(gsr_last_error_message(), 'gsr: gsr_mesh_load: ') == 1)
  call check_true('a failed load leaves the mesh empty', m%n == 0 .and. .not. associated(m%ids))

  ! A bad distribution code.
  call gsr_mesh_load(path, MPI_COMM_WORLD, 7, .true., m, ierr)
  call check_error('gsr_mesh_load distribution = 7', ierr, gsr_last_error_message(), &
                   gsr_err_invalid_argument, 'distribution 7')

  call finish('mesh')
end program mesh
