c     gslib_nek.f -- gslib's Fortran entry points called as Nek5000's
c     core calls them (fixed form, no module, include 'mpif.h',
c     integer*8 ids, the fgslib_ prefix); see docs/fortran.md.
c
c     The two-element example of docs/concepts.md (at P = 1 and 2) is
c     checked against its Tables 1-4, typed in below; a random mesh (at
c     any P) against the same operations done through the module gsr
c     (gslib_reference.f90).
      program gslib_nek
      implicit none
      include 'mpif.h'
      integer nid, np, nfail
      common /gstest/ nid, np, nfail
      integer ierr, ntotal

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      nfail = 0

      if (np.le.2) call seed_checks
      call random_checks

      call mpi_allreduce(nfail, ntotal, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      if (nid.eq.0) write(6,'(a,i0,a,i0)') 'gslib_nek: ', ntotal,
     $   ' check(s) failed at P = ', np
      call mpi_finalize(ierr)
      if (ntotal.ne.0) stop 1
      end

c-----------------------------------------------------------------------
      subroutine seed_checks
      implicit none
      include 'mpif.h'
      integer nid, np, nfail
      common /gstest/ nid, np, nfail

      integer ls
      parameter (ls = 23)
      integer*8 gid(18), gida(18), ids(18), ref(18)
      real*8 u0(18), t2(18,4), t3(18), t4(18,4)
      real*8 u(18), v(2,18), a1(18), a2(18), a3(18), e(18), w(ls,3)
      integer*8 w8(ls,3), e8(18)
      integer w4(ls,3)
      integer n, i0, i, f, op, gsh, gsha, ireq, ierr, npos, ntot

c     Table 1
      data gid  / 1, 2, 3, 4, 5, 6, 7, 8, 9,
     $            3,10,11, 6,12,13, 9,14,15 /
      data gida / 1, 2,-3, 4, 5, 6, 7, 8,-9,
     $            3,10,11,-6,12,13, 9,14,15 /
      data u0 / 1.0d0, 1.5d0, 2.0d0, 2.0d0, 0.8d0, 0.4d0, 0.5d0, 0.1d0,
     $          2.5d0, 1.0d0, 0.3d0, 0.9d0, 1.2d0, 1.2d0, 2.1d0, 0.8d0,
     $          0.3d0, 0.7d0 /
c     Table 2 (id; columns sum, mult, min, max)
      data t2 /
     $ 1.0d0,1.5d0,3.0d0,2.0d0,0.8d0,1.6d0,0.5d0,0.1d0,3.3d0,
     $ 3.0d0,0.3d0,0.9d0,1.6d0,1.2d0,2.1d0,3.3d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,0.48d0,0.5d0,0.1d0,2.0d0,
     $ 2.0d0,0.3d0,0.9d0,0.48d0,1.2d0,2.1d0,2.0d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,1.0d0,2.0d0,0.8d0,0.4d0,0.5d0,0.1d0,0.8d0,
     $ 1.0d0,0.3d0,0.9d0,0.4d0,1.2d0,2.1d0,0.8d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,1.2d0,0.5d0,0.1d0,2.5d0,
     $ 2.0d0,0.3d0,0.9d0,1.2d0,1.2d0,2.1d0,2.5d0,0.3d0,0.7d0 /
c     Table 3 (id_asym, transpose = 0): the same for every op
      data t3 /
     $ 1.0d0,1.5d0,1.0d0,2.0d0,0.8d0,0.4d0,0.5d0,0.1d0,0.8d0,
     $ 1.0d0,0.3d0,0.9d0,0.4d0,1.2d0,2.1d0,0.8d0,0.3d0,0.7d0 /
c     Table 4 (id_asym, transpose = 1; columns sum, mult, min, max)
      data t4 /
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,1.6d0,0.5d0,0.1d0,2.5d0,
     $ 3.0d0,0.3d0,0.9d0,1.2d0,1.2d0,2.1d0,3.3d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,0.48d0,0.5d0,0.1d0,2.5d0,
     $ 2.0d0,0.3d0,0.9d0,1.2d0,1.2d0,2.1d0,2.0d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,0.4d0,0.5d0,0.1d0,2.5d0,
     $ 1.0d0,0.3d0,0.9d0,1.2d0,1.2d0,2.1d0,0.8d0,0.3d0,0.7d0,
     $ 1.0d0,1.5d0,2.0d0,2.0d0,0.8d0,1.2d0,0.5d0,0.1d0,2.5d0,
     $ 2.0d0,0.3d0,0.9d0,1.2d0,1.2d0,2.1d0,2.5d0,0.3d0,0.7d0 /

c     Element 1 on rank 0, element 2 on rank 1 (both on one rank at P=1)
      n  = 18/np
      i0 = nid*n

c     gslib numbers its Fortran handles from 0
      call fgslib_gs_setup(gsh , gid (i0+1), n, mpi_comm_world, np)
      call fgslib_gs_setup(gsha, gida(i0+1), n, mpi_comm_world, np)
      call chkint('first handle', gsh, 0)
      call chkint('second handle', gsha, 1)

      do op = 1, 4
         call copyr(u, u0(i0+1), n)
         call fgslib_gs_op(gsh, u, 1, op, 0)
         call chkr('gs_op id', u, t2(i0+1,op), n)
         call copyr(u, u0(i0+1), n)
         call fgslib_gs_op(gsha, u, 1, op, 0)
         call chkr('gs_op id_asym transpose 0', u, t3(i0+1), n)
         call copyr(u, u0(i0+1), n)
         call fgslib_gs_op(gsha, u, 1, op, 1)
         call chkr('gs_op id_asym transpose 1', u, t4(i0+1,op), n)
      enddo

c     two components per node, stored together
      do i = 1, n
         v(1,i) = u0(i0+i)
         v(2,i) = 2*u0(i0+i)
      enddo
      call fgslib_gs_op_vec(gsh, v, 2, 1, 1, 0)
      do i = 1, n
         u(i) = v(1,i)
         a1(i) = v(2,i)
         e(i) = 2*t2(i0+i,1)
      enddo
      call chkr('gs_op_vec component 1', u, t2(i0+1,1), n)
      call chkr('gs_op_vec component 2', a1, e, n)

c     three arrays through gs_op_many (Nek5000 always passes six)
      do i = 1, n
         a1(i) = u0(i0+i)
         a2(i) = 2*u0(i0+i)
         a3(i) = 4*u0(i0+i)
      enddo
      call fgslib_gs_op_many(gsh, a1, a2, a3, a1, a1, a1, 3, 1, 4, 0)
      call chkr('gs_op_many u1', a1, t2(i0+1,4), n)
      do i = 1, n
         e(i) = 2*t2(i0+i,4)
      enddo
      call chkr('gs_op_many u2', a2, e, n)
      do i = 1, n
         e(i) = 4*t2(i0+i,4)
      enddo
      call chkr('gs_op_many u3', a3, e, n)

c     three fields ls entries apart, in each domain; the ls-n entries
c     after each field must stay as they are (-7)
      do f = 1, 3
         do i = 1, ls
            w(i,f)  = -7
            w8(i,f) = -7
            w4(i,f) = -7
         enddo
         do i = 1, n
            w(i,f)  = f*u0(i0+i)
            w8(i,f) = f*nint(10*u0(i0+i))
            w4(i,f) = f*nint(10*u0(i0+i))
         enddo
      enddo
      call fgslib_gs_op_fields(gsh, w , ls, 3, 1, 1, 0)
      call fgslib_gs_op_fields(gsh, w4, ls, 3, 2, 1, 0)
      call fgslib_gs_op_fields(gsh, w8, ls, 3, 3, 1, 0)
      do f = 1, 3
         do i = 1, n
            e(i)  = f*t2(i0+i,1)
            e8(i) = f*nint(10*t2(i0+i,1))
         enddo
         call chkr('gs_op_fields dom 1', w(1,f), e, n)
         call chki8('gs_op_fields dom 3', w8(1,f), e8, n)
         do i = 1, n
            if (w4(i,f).ne.e8(i)) call fail('gs_op_fields dom 2', i)
         enddo
         do i = n+1, ls
            if (w(i,f).ne.-7) call fail('gs_op_fields dom 1 pad', i)
            if (w8(i,f).ne.-7) call fail('gs_op_fields dom 3 pad', i)
            if (w4(i,f).ne.-7) call fail('gs_op_fields dom 2 pad', i)
         enddo
      enddo

c     non-blocking
      call copyr(u, u0(i0+1), n)
      call fgslib_igs_op(gsh, u, 1, 1, 0, ireq)
      call fgslib_gs_op_wait(ireq)
      call chkr('igs_op', u, t2(i0+1,1), n)
      do i = 1, n
         v(1,i) = u0(i0+i)
         v(2,i) = u0(i0+i)
      enddo
      call fgslib_igs_op_vec(gsh, v, 2, 1, 3, 0, ireq)
      call fgslib_gs_op_wait(ireq)
      do i = 1, n
         u(i) = v(2,i)
      enddo
      call chkr('igs_op_vec', u, t2(i0+1,3), n)
      call copyr(a1, u0(i0+1), n)
      call copyr(a2, u0(i0+1), n)
      call fgslib_igs_op_many(gsh, a1, a2, a1, a1, a1, a1, 2, 1, 2, 0,
     $                        ireq)
      call fgslib_gs_op_wait(ireq)
      call chkr('igs_op_many u1', a1, t2(i0+1,2), n)
      call chkr('igs_op_many u2', a2, t2(i0+1,2), n)

c     gs_unique: as the module's, and one positive entry per id
      do i = 1, n
         ids(i) = gid(i0+i)
         ref(i) = gid(i0+i)
      enddo
      call fgslib_gs_unique(ids, n, mpi_comm_world, np)
      call ref_unique(ref, n)
      call chki8('gs_unique', ids, ref, n)
      npos = 0
      do i = 1, n
         if (ids(i).gt.0) npos = npos + 1
      enddo
      call mpi_allreduce(npos, ntot, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      call chkint('gs_unique positive entries', ntot, 15)

      call fgslib_gs_free(gsh)
      call fgslib_gs_free(gsha)
      return
      end

c-----------------------------------------------------------------------
c     A random mesh: 40 + 13*rank entries, ids 0..29 (0 takes no part),
c     one in five flagged; every dom, op and transpose against the
c     module, and gs_op_fields in dom 3.
      subroutine random_checks
      implicit none
      include 'mpif.h'
      integer nid, np, nfail
      common /gstest/ nid, np, nfail

      integer lx, ls
      parameter (lx = 100, ls = 103)
      integer*8 ids(lx), seed, r, i8(lx), j8(lx), k8(lx), w8(ls,2)
      real*8 x(lx), y(lx), z(lx)
      integer i4(lx), j4(lx), k4(lx)
      integer n, i, f, op, tr, gsh

      n = 40 + 13*nid
      seed = 12345 + 977*nid
      do i = 1, n
         seed = mod(seed*1103515245_8 + 12345_8, 2147483648_8)
         r = seed/16
         ids(i) = mod(r, 30_8)
         if (mod(r/30, 5_8).eq.0) ids(i) = -ids(i)
         x(i)  = 0.5d0 + mod(r, 1000_8)/250d0
         i4(i) = 1 + int(mod(r/7, 3_8))
         i8(i) = 1 + mod(r/11, 5_8)
      enddo

      call fgslib_gs_setup(gsh, ids, n, mpi_comm_world, np)
      call ref_setup(ids, n)
c     each operation starts from the same values, in both calls
      do op = 1, 4
         do tr = 0, 1
            call copyr(y, x, n)
            call copyr(z, x, n)
            call fgslib_gs_op(gsh, y, 1, op, tr)
            call ref_op_r8(n, z, op, tr)
            call chkr('random dom 1', y, z, n)
            do i = 1, n
               j4(i) = i4(i)
               k4(i) = i4(i)
            enddo
            call fgslib_gs_op(gsh, j4, 2, op, tr)
            call ref_op_i4(n, k4, op, tr)
            do i = 1, n
               if (j4(i).ne.k4(i)) call fail('random dom 2', i)
            enddo
            do i = 1, n
               j8(i) = i8(i)
               k8(i) = i8(i)
            enddo
            call fgslib_gs_op(gsh, j8, 3, op, tr)
            call ref_op_i8(n, k8, op, tr)
            call chki8('random dom 3', j8, k8, n)
         enddo
      enddo

      do f = 1, 2
         do i = 1, n
            w8(i,f) = f*i8(i) + i
         enddo
      enddo
      call fgslib_gs_op_fields(gsh, w8, ls, 2, 3, 4, 1)
      do f = 1, 2
         do i = 1, n
            j8(i) = f*i8(i) + i
         enddo
         call ref_op_i8(n, j8, 4, 1)
         call chki8('random gs_op_fields dom 3', w8(1,f), j8, n)
      enddo
      call fgslib_gs_free(gsh)
      call ref_free
      return
      end

