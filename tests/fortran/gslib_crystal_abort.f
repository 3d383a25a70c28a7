c     gslib_crystal_abort.f -- a bad call of gslib's crystal-router
c     entry points ends the job with "gsr: <routine>: <what>" (gsr's
c     default error mode). The argument picks the mistake: overflow
c     (rank 0 receives more than max tuples; P >= 2), kp (kp is not a
c     column), dest (a destination that is no rank), np (np is not the
c     communicator's size), key (a sort key that is no column), freed (a
c     freed handle), layout (rank 0's tuples are three integers, the
c     others' an integer and a long: 12 bytes each, columns that differ;
c     P >= 2; E-TRANSFER-DISAGREE-LAYOUT). Ranks that did nothing wrong wait in a barrier, so only
c     the abort ends them.
      program gslib_crystal_abort
      implicit none
      include 'mpif.h'
      integer it(4,8), vi(1,8), key(1), nid, np, n, h, ierr
      integer*8 vl(1,8)
      real*8 vr(1,8)
      character*16 what

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      call get_command_argument(1, what)
      if (what.eq.'np') then
         call fgslib_crystal_setup(h, mpi_comm_world, np+1)
      else
         call fgslib_crystal_setup(h, mpi_comm_world, np)
      endif
      do n = 1, 8
         it(1,n) = 0
         it(2,n) = n
         it(3,n) = nid
         it(4,n) = 0
         vi(1,n) = 0
         vl(1,n) = n
         vr(1,n) = n
      enddo
      n = 3
      key(1) = 1
      if (what.eq.'overflow') then
c        every rank sends 3 tuples to rank 0, which has room for 3
         call fgslib_crystal_ituple_transfer(h, it, 4, n, 3, 1)
      else if (what.eq.'kp') then
         call fgslib_crystal_ituple_transfer(h, it, 4, n, 8, 5)
      else if (what.eq.'dest') then
         vi(1,1) = np
         call fgslib_crystal_tuple_transfer(h, n, 8, vi, 1, vl, 1,
     $                                      vr, 1, 1)
      else if (what.eq.'layout') then
         if (nid.eq.0) then
c           it read as 3-integer tuples: every first column is 0
            call fgslib_crystal_tuple_transfer(h, n, 8, it, 3, vl, 0,
     $                                         vr, 0, 1)
         else
            call fgslib_crystal_tuple_transfer(h, n, 8, vi, 1, vl, 1,
     $                                         vr, 0, 1)
         endif
      else if (what.eq.'key') then
         key(1) = 3
         call fgslib_crystal_tuple_sort(h, n, vi, 1, vl, 1, vr, 1,
     $                                  key, 1)
      else if (what.eq.'freed') then
         call fgslib_crystal_free(h)
         call fgslib_crystal_ituple_sort(h, it, 4, n, key, 1)
      endif
      call mpi_barrier(mpi_comm_world, ierr)
      write(6,*) 'NOT ABORTED'
      call mpi_finalize(ierr)
      end
