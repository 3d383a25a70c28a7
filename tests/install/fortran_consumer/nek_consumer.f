c     nek_consumer.f -- fixed-form F77 calling gslib's Fortran entry
c     points as Nek5000 does (no module, include 'mpif.h', integer*8
c     ids, the fgslib_ prefix), built against an installed gsr. The
c     two-element mesh of docs/concepts.md is spread over the ranks;
c     expected values are worked out here by brute force over the whole
c     id list, without gsr. Stops with a non-zero code on any mismatch.
      program nek_consumer
      implicit none
      include 'mpif.h'
      integer ntot
      parameter (ntot = 18)
      integer*8 gid(ntot)
      real*8 u(ntot), umax(ntot), umin(ntot), ones(ntot)
      real*8 wsum, wmax, wmin, wcnt, val
      integer nid, np, n, i0, i, j, gsh, ierr, nbad, nbadall
      data gid / 1, 2, 3, 4, 5, 6, 7, 8, 9,
     $           3,10,11, 6,12,13, 9,14,15 /

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      i0 = (ntot*nid)/np
      n  = (ntot*(nid+1))/np - i0

      do i = 1, n
         u(i)    = val(i0+i)
         umax(i) = val(i0+i)
         umin(i) = val(i0+i)
         ones(i) = 1
      enddo

c     dom 1 = real*8; op 1 = add, 3 = min, 4 = max
      call fgslib_gs_setup(gsh, gid(i0+1), n, mpi_comm_world, np)
      call fgslib_gs_op(gsh, u, 1, 1, 0)
      call fgslib_gs_op(gsh, umax, 1, 4, 0)
      call fgslib_gs_op_many(gsh, umin, ones, ones, ones, ones, ones,
     $                       1, 1, 3, 0)
      call fgslib_gs_free(gsh)
c     multiplicity: the sum of ones over the copies of each node
      call fgslib_gs_setup(gsh, gid(i0+1), n, mpi_comm_world, np)
      call fgslib_gs_op(gsh, ones, 1, 1, 0)
      call fgslib_gs_free(gsh)

      nbad = 0
      do i = 1, n
         wsum = 0
         wmax = -1d300
         wmin = 1d300
         wcnt = 0
         do j = 1, ntot
            if (gid(j).eq.gid(i0+i)) then
               wsum = wsum + val(j)
               wmax = max(wmax, val(j))
               wmin = min(wmin, val(j))
               wcnt = wcnt + 1
            endif
         enddo
         if (abs(u(i)-wsum).gt.1d-12 .or. umax(i).ne.wmax .or.
     $       umin(i).ne.wmin .or. ones(i).ne.wcnt) then
            write(6,'(a,i0,a,i0,a,4g14.6,a,4g14.6)') 'rank ', nid,
     $         ' entry ', i0+i, ': got ', u(i), umax(i), umin(i),
     $         ones(i), ' expected ', wsum, wmax, wmin, wcnt
            nbad = nbad + 1
         endif
      enddo

      call mpi_allreduce(nbad, nbadall, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      if (nid.eq.0) write(6,'(a,i0,a,i0)') 'nek_consumer at P = ', np,
     $   ': wrong entries ', nbadall
      call mpi_finalize(ierr)
      if (nbadall.ne.0) stop 1
      end

c     the value given to entry i of the global list
      real*8 function val(i)
      integer i
      val = 0.75d0*i - 2d0/(i+1)
      end
