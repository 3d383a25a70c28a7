c     gslib_checks.f - the checks the gslib-style F77 tests share (gslib_nek.f,
c     gslib_plain.f): each failed check counts in common /gstest/ and prints the rank,
c     what was checked and the entry, so a test ends with the total over the ranks.
      subroutine copyr(a, b, n)
      integer n, i
      real*8 a(n), b(n)
      do i = 1, n
         a(i) = b(i)
      enddo
      return
      end

      subroutine fail(what, i)
      character*(*) what
      integer i
      integer nid, np, nfail
      common /gstest/ nid, np, nfail
      nfail = nfail + 1
      write(6,'(a,i0,a,i0,a,a,a,i0)') '[rank ', nid, '/', np,
     $   '] FAIL ', what, ': entry ', i
      return
      end

c     Doubles from the tables are not exact in binary: relative 1e-12.
      subroutine chkr(what, got, expect, n)
      character*(*) what
      integer n, i
      real*8 got(n), expect(n)
      do i = 1, n
         if (abs(got(i)-expect(i)).gt.1d-12*max(abs(expect(i)),1d-30))
     $      then
            call fail(what, i)
            write(6,*) '   got ', got(i), ' expected ', expect(i)
         endif
      enddo
      return
      end

      subroutine chki8(what, got, expect, n)
      character*(*) what
      integer n, i
      integer*8 got(n), expect(n)
      do i = 1, n
         if (got(i).ne.expect(i)) then
            call fail(what, i)
            write(6,*) '   got ', got(i), ' expected ', expect(i)
         endif
      enddo
      return
      end

      subroutine chkint(what, got, expect)
      character*(*) what
      integer got, expect
      if (got.ne.expect) then
         call fail(what, 0)
         write(6,*) '   got ', got, ' expected ', expect
      endif
      return
      end
