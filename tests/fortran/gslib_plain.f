c     gslib_plain.f -- gslib's Fortran entry points without the fgslib_
c     prefix (gs_setup_, gs_op_, ... as gslib builds them when no prefix
c     is set), on the two-element example of docs/concepts.md: the sum
c     column of its Table 2, typed in below. Runs at P = 1 and 2.
      program gslib_plain
      implicit none
      include 'mpif.h'
      integer nid, np, nfail
      common /gstest/ nid, np, nfail

      integer ls
      parameter (ls = 20)
      integer*8 gid(18), ids(18)
      real*8 u0(18), t2(18), u(18), v(2,18), a1(18), a2(18), w(ls,2)
      real*8 e(18)
      integer n, i0, i, f, gsh, gshp, ireq, ierr, npos, ntot

      data gid  / 1, 2, 3, 4, 5, 6, 7, 8, 9,
     $            3,10,11, 6,12,13, 9,14,15 /
      data u0 / 1.0d0, 1.5d0, 2.0d0, 2.0d0, 0.8d0, 0.4d0, 0.5d0, 0.1d0,
     $          2.5d0, 1.0d0, 0.3d0, 0.9d0, 1.2d0, 1.2d0, 2.1d0, 0.8d0,
     $          0.3d0, 0.7d0 /
c     Table 2, op sum
      data t2 /
     $ 1.0d0,1.5d0,3.0d0,2.0d0,0.8d0,1.6d0,0.5d0,0.1d0,3.3d0,
     $ 3.0d0,0.3d0,0.9d0,1.6d0,1.2d0,2.1d0,3.3d0,0.3d0,0.7d0 /

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      nfail = 0
      n  = 18/np
      i0 = nid*n

      call gs_setup(gsh, gid(i0+1), n, mpi_comm_world, np)
c     method 1: pairwise
      call gs_setup_pick(gshp, gid(i0+1), n, mpi_comm_world, np, 1)
      call chkint('first handle', gsh, 0)
      call chkint('second handle', gshp, 1)

      call copyr(u, u0(i0+1), n)
      call gs_op(gsh, u, 1, 1, 0)
      call chkr('gs_op', u, t2(i0+1), n)
      call copyr(u, u0(i0+1), n)
      call gs_op(gshp, u, 1, 1, 0)
      call chkr('gs_op (gs_setup_pick)', u, t2(i0+1), n)

      do i = 1, n
         v(1,i) = u0(i0+i)
         v(2,i) = u0(i0+i)
      enddo
      call gs_op_vec(gsh, v, 2, 1, 1, 0)
      do i = 1, n
         u(i) = v(2,i)
      enddo
      call chkr('gs_op_vec', u, t2(i0+1), n)

      call copyr(a1, u0(i0+1), n)
      call copyr(a2, u0(i0+1), n)
      call gs_op_many(gsh, a1, a2, a1, a1, a1, a1, 2, 1, 1, 0)
      call chkr('gs_op_many u1', a1, t2(i0+1), n)
      call chkr('gs_op_many u2', a2, t2(i0+1), n)

      do f = 1, 2
         do i = 1, n
            w(i,f) = f*u0(i0+i)
         enddo
      enddo
      call gs_op_fields(gsh, w, ls, 2, 1, 1, 0)
      do f = 1, 2
         do i = 1, n
            e(i) = f*t2(i0+i)
         enddo
         call chkr('gs_op_fields', w(1,f), e, n)
      enddo

      call copyr(u, u0(i0+1), n)
      call igs_op(gsh, u, 1, 1, 0, ireq)
      call gs_op_wait(ireq)
      call chkr('igs_op', u, t2(i0+1), n)
      do i = 1, n
         v(1,i) = u0(i0+i)
         v(2,i) = u0(i0+i)
      enddo
      call igs_op_vec(gsh, v, 2, 1, 1, 0, ireq)
      call gs_op_wait(ireq)
      do i = 1, n
         u(i) = v(1,i)
      enddo
      call chkr('igs_op_vec', u, t2(i0+1), n)
      call copyr(a1, u0(i0+1), n)
      call igs_op_many(gsh, a1, a1, a1, a1, a1, a1, 1, 1, 1, 0, ireq)
      call gs_op_wait(ireq)
      call chkr('igs_op_many', a1, t2(i0+1), n)

      do i = 1, n
         ids(i) = gid(i0+i)
      enddo
      call gs_unique(ids, n, mpi_comm_world, np)
      npos = 0
      do i = 1, n
         if (ids(i).gt.0) npos = npos + 1
      enddo
      call mpi_allreduce(npos, ntot, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      call chkint('gs_unique positive entries', ntot, 15)

      call gs_free(gsh)
      call gs_free(gshp)

      call mpi_allreduce(nfail, ntot, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      if (nid.eq.0) write(6,'(a,i0,a,i0)') 'gslib_plain: ', ntot,
     $   ' check(s) failed at P = ', np
      call mpi_finalize(ierr)
      if (ntot.ne.0) stop 1
      end

