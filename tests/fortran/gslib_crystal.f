c     gslib_crystal.f -- gslib's crystal-router Fortran entry points
c     called as Nek5000 calls them (fixed form, no module, include
c     'mpif.h', integer*8 long entries, real*8), once with the fgslib_
c     prefix and once without; see docs/fortran.md.
c
c     Rank s sends ncount(s,d) tuples to every rank d (1 to 4, in an
c     order that interleaves the destinations); tuple j of s for d
c     carries s, d and j in every column. Each rank checks the count,
c     the source column, every entry, the order gsr promises (by
c     source, then the sender's order) and the order after each sort,
c     all against values computed here from s, d and j.
      program gslib_crystal
      implicit none
      include 'mpif.h'
      integer nid, np, nfail
      common /crtest/ nid, np, nfail
      integer ierr, ntotal

      call mpi_init(ierr)
      call mpi_comm_rank(mpi_comm_world, nid, ierr)
      call mpi_comm_size(mpi_comm_world, np, ierr)
      nfail = 0

      call crystal_checks(.true.)
      call crystal_checks(.false.)

      call mpi_allreduce(nfail, ntotal, 1, mpi_integer, mpi_sum,
     $                   mpi_comm_world, ierr)
      if (nid.eq.0) write(6,'(a,i0,a,i0)') 'gslib_crystal: ', ntotal,
     $   ' check(s) failed at P = ', np
      call mpi_finalize(ierr)
      if (ntotal.ne.0) stop 1
      end

c-----------------------------------------------------------------------
c     How many tuples rank src sends to rank dst.
      integer function ncount(src, dst)
      integer src, dst
      ncount = 1 + mod(3*src + dst, 4)
      return
      end

c-----------------------------------------------------------------------
      subroutine crystal_checks(pref)
      implicit none
      include 'mpif.h'
      logical pref
      integer nid, np, nfail
      common /crtest/ nid, np, nfail
      integer lmax, m, mi, ml, mr
      parameter (lmax = 256, m = 4, mi = 3, ml = 2, mr = 2)
      integer it(m,lmax), vi(mi,lmax), key(3), seen(0:63,4)
      integer*8 vl(ml,lmax), big, el1, el2
      real*8 vr(mr,lmax)
      integer h, n, nexp, src, dst, j, i, k, ip, a, b, v, ncount
      character*8 tag
      external ncount

      tag = 'plain'
      if (pref) tag = 'fgslib'
      big = 2_8**40
      if (4*np.gt.lmax .or. np.gt.64) then
         call cfail(tag, 'too many ranks for this test', np)
         return
      endif

      call xsetup(pref, h, mpi_comm_world, np)
c     gslib numbers crystal handles from 0 and never reuses them
      if (pref .and. h.ne.0) call cfail(tag, 'first handle', h)
      if (.not.pref .and. h.ne.1) call cfail(tag, 'second handle', h)

c     ---- crystal_ituple_transfer: column kp = 2 holds the destination
      n = 0
      do j = 1, 4
         do dst = np-1, 0, -1
            if (j.le.ncount(nid, dst)) then
               n = n + 1
               it(1,n) = nid*10000 + dst*100 + j
               it(2,n) = dst
               it(3,n) = mod(j, 2)
               it(4,n) = 7*j - nid
            endif
         enddo
      enddo
      call xitran(pref, h, it, m, n, lmax, 2)

      nexp = 0
      do src = 0, np-1
         nexp = nexp + ncount(src, nid)
      enddo
      if (n.ne.nexp) call cfail(tag, 'ituple_transfer count', n)
      do src = 0, np-1
         do j = 1, 4
            seen(src,j) = 0
         enddo
      enddo
c     every tuple decoded from its payload, the rest checked against it
      do i = 1, min(n, lmax)
         src = it(1,i)/10000
         dst = mod(it(1,i)/100, 100)
         j = mod(it(1,i), 100)
         if (src.lt.0 .or. src.ge.np .or. j.lt.1 .or. j.gt.4) then
            call cfail(tag, 'ituple_transfer payload', i)
         else
            seen(src,j) = seen(src,j) + 1
            if (dst.ne.nid) call cfail(tag, 'ituple dest', i)
            if (it(2,i).ne.src) call cfail(tag, 'ituple source col', i)
            if (it(3,i).ne.mod(j,2)) call cfail(tag, 'ituple col 3', i)
            if (it(4,i).ne.7*j-src) call cfail(tag, 'ituple col 4', i)
         endif
      enddo
      do src = 0, np-1
         do j = 1, 4
            k = 0
            if (j.le.ncount(src, nid)) k = 1
            if (seen(src,j).ne.k) call cfail(tag, 'ituple seen', j)
         enddo
      enddo
c     gsr's order: by source, each source's tuples in its order
      i = 0
      do src = 0, np-1
         do j = 1, ncount(src, nid)
            i = i + 1
            if (it(1,i).ne.src*10000+nid*100+j)
     $         call cfail(tag, 'ituple arrival order', i)
         enddo
      enddo

c     ---- crystal_ituple_sort: by column 4 (7j - src): j, then source
c     descending
      key(1) = 4
      call xisort(pref, h, it, m, n, key, 1)
      i = 0
      do j = 1, 4
         do src = np-1, 0, -1
            if (j.le.ncount(src, nid)) then
               i = i + 1
               if (it(1,i).ne.src*10000+nid*100+j)
     $            call cfail(tag, 'ituple_sort key 4', i)
            endif
         enddo
      enddo
c     by parity of j, then source; ties keep the order above (stable)
      key(1) = 3
      key(2) = 2
      call xisort(pref, h, it, m, n, key, 2)
      i = 0
      do v = 0, 1
         do src = 0, np-1
            do j = 1, ncount(src, nid)
               if (mod(j,2).eq.v) then
                  i = i + 1
                  if (it(1,i).ne.src*10000+nid*100+j .or.
     $                it(2,i).ne.src .or. it(4,i).ne.7*j-src)
     $               call cfail(tag, 'ituple_sort keys 3 2', i)
               endif
            enddo
         enddo
      enddo

c     ---- crystal_tuple_transfer: kp = 3 in vi
      n = 0
      do j = 1, 4
         do dst = 0, np-1
            if (j.le.ncount(nid, dst)) then
               n = n + 1
               vi(1,n) = nid*10000 + dst*100 + j
               vi(2,n) = mod(j, 3)
               vi(3,n) = dst
               vl(1,n) = big*(nid+1) + 1000*dst + j
               vl(2,n) = mod(j+nid, 2)
               vr(1,n) = nid + j/8d0
               vr(2,n) = dst*0.5d0 + j
            endif
         enddo
      enddo
      call xttran(pref, h, n, lmax, vi, mi, vl, ml, vr, mr, 3)
      if (n.ne.nexp) call cfail(tag, 'tuple_transfer count', n)
      i = 0
      do src = 0, np-1
         do j = 1, ncount(src, nid)
            i = i + 1
            call chktup(tag, 'tuple_transfer', i, vi(1,i), vl(1,i),
     $                  vr(1,i), src, j, big)
         enddo
      enddo

c     ---- crystal_tuple_sort: by vl(2) (key mi+2), then vi(2); ties
c     keep the arrival order (source, then j)
      key(1) = mi + 2
      key(2) = 2
      call xtsort(pref, h, n, vi, mi, vl, ml, vr, mr, key, 2)
      i = 0
      do a = 0, 1
         do b = 0, 2
            do src = 0, np-1
               do j = 1, ncount(src, nid)
                  if (mod(j+src,2).eq.a .and. mod(j,3).eq.b) then
                     i = i + 1
                     call chktup(tag, 'tuple_sort', i, vi(1,i),
     $                           vl(1,i), vr(1,i), src, j, big)
                  endif
               enddo
            enddo
         enddo
      enddo
c     by vl(1) (key mi+1): source, then j
      key(1) = mi + 1
      call xtsort(pref, h, n, vi, mi, vl, ml, vr, mr, key, 1)
      i = 0
      do src = 0, np-1
         do j = 1, ncount(src, nid)
            i = i + 1
            call chktup(tag, 'tuple_sort vl', i, vi(1,i), vl(1,i),
     $                  vr(1,i), src, j, big)
         enddo
      enddo
c     nkey = 0 leaves the tuples alone, as in gslib
      el1 = vl(1,1)
      el2 = vl(1,n)
      call xtsort(pref, h, n, vi, mi, vl, ml, vr, mr, key, 0)
      if (vl(1,1).ne.el1 .or. vl(1,n).ne.el2)
     $   call cfail(tag, 'tuple_sort nkey 0', 1)

c     ---- nothing sent anywhere: nothing arrives
      n = 0
      call xitran(pref, h, it, m, n, lmax, 2)
      if (n.ne.0) call cfail(tag, 'empty ituple_transfer', n)
      ip = 0
      call xttran(pref, h, ip, lmax, vi, mi, vl, ml, vr, mr, 3)
      if (ip.ne.0) call cfail(tag, 'empty tuple_transfer', ip)

      call xfree(pref, h)
      return
      end

c-----------------------------------------------------------------------
c     Tuple i of crystal_tuple_transfer must be tuple j of rank src for
c     this rank, with its source in vi(3).
      subroutine chktup(tag, what, i, vi, vl, vr, src, j, big)
      implicit none
      character*(*) tag, what
      integer i, vi(3), src, j
      integer*8 vl(2), big
      real*8 vr(2)
      integer nid, np, nfail
      common /crtest/ nid, np, nfail
      logical ok
      ok = vi(1).eq.src*10000 + nid*100 + j .and.
     $     vi(2).eq.mod(j,3) .and. vi(3).eq.src .and.
     $     vl(1).eq.big*(src+1) + 1000*nid + j .and.
     $     vl(2).eq.mod(j+src,2) .and.
     $     vr(1).eq.src + j/8d0 .and. vr(2).eq.nid*0.5d0 + j
      if (.not.ok) then
         call cfail(tag, what, i)
         write(6,'(a,i0,a,i0,a,3i8,2i16,2f10.4)') '  expected source ',
     $      src, ' tuple ', j, ', got ', vi(1), vi(2), vi(3), vl(1),
     $      vl(2), vr(1), vr(2)
      endif
      return
      end

      subroutine cfail(tag, what, i)
      implicit none
      character*(*) tag, what
      integer i
      integer nid, np, nfail
      common /crtest/ nid, np, nfail
      nfail = nfail + 1
      write(6,'(a,i0,a,i0,a,a,a,a,a,i0)') '[rank ', nid, '/', np,
     $   '] FAIL (', tag, ') ', what, ': entry ', i
      return
      end

c-----------------------------------------------------------------------
c     The same calls with the fgslib_ prefix (pref) or without it.
      subroutine xsetup(pref, h, comm, np)
      logical pref
      integer h, comm, np
      if (pref) then
         call fgslib_crystal_setup(h, comm, np)
      else
         call crystal_setup(h, comm, np)
      endif
      return
      end

      subroutine xitran(pref, h, it, m, n, max, kp)
      logical pref
      integer h, m, n, max, kp, it(m,max)
      if (pref) then
         call fgslib_crystal_ituple_transfer(h, it, m, n, max, kp)
      else
         call crystal_ituple_transfer(h, it, m, n, max, kp)
      endif
      return
      end

      subroutine xttran(pref, h, n, max, vi, mi, vl, ml, vr, mr, kp)
      logical pref
      integer h, n, max, mi, ml, mr, kp, vi(mi,max)
      integer*8 vl(ml,max)
      real*8 vr(mr,max)
      if (pref) then
         call fgslib_crystal_tuple_transfer(h, n, max, vi, mi, vl, ml,
     $                                      vr, mr, kp)
      else
         call crystal_tuple_transfer(h, n, max, vi, mi, vl, ml, vr, mr,
     $                               kp)
      endif
      return
      end

      subroutine xisort(pref, h, it, m, n, key, nkey)
      logical pref
      integer h, m, n, nkey, it(m,*), key(*)
      if (pref) then
         call fgslib_crystal_ituple_sort(h, it, m, n, key, nkey)
      else
         call crystal_ituple_sort(h, it, m, n, key, nkey)
      endif
      return
      end

      subroutine xtsort(pref, h, n, vi, mi, vl, ml, vr, mr, key, nkey)
      logical pref
      integer h, n, mi, ml, mr, nkey, vi(mi,*), key(*)
      integer*8 vl(ml,*)
      real*8 vr(mr,*)
      if (pref) then
         call fgslib_crystal_tuple_sort(h, n, vi, mi, vl, ml, vr, mr,
     $                                  key, nkey)
      else
         call crystal_tuple_sort(h, n, vi, mi, vl, ml, vr, mr, key,
     $                           nkey)
      endif
      return
      end

      subroutine xfree(pref, h)
      logical pref
      integer h
      if (pref) then
         call fgslib_crystal_free(h)
      else
         call crystal_free(h)
      endif
      return
      end
