c     gslib_abort.f -- a bad call of gslib's entry points ends the job
c     with "gsr: <routine>: <what>" (gsr's default error mode). The
c     argument picks the mistake: handle (a handle never set up), unique
c     (np is not the communicator's size), fields (an unknown dom).
      program gslib_abort
      implicit none
      include 'mpif.h'
      integer*8 gid(9)
      real*8 u(9)
      integer nid, np, n, gsh, ierr
      character*16 what
      data gid / 1, 2, 3, 4, 5, 6, 7, 8, 9 /
      data u / 9*1.0d0 /

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      call get_command_argument(1, what)
      n = 9
      if (what.eq.'handle') then
         call fgslib_gs_setup(gsh, gid, n, mpi_comm_world, np)
         call fgslib_gs_op(gsh+5, u, 1, 1, 0)
      else if (what.eq.'unique') then
         call fgslib_gs_unique(gid, n, mpi_comm_world, np+1)
      else if (what.eq.'fields') then
         call fgslib_gs_setup(gsh, gid, n, mpi_comm_world, np)
         call fgslib_gs_op_fields(gsh, u, 9, 1, 9, 1, 0)
      endif
      write(6,*) 'NOT ABORTED'
      call mpi_finalize(ierr)
      end
