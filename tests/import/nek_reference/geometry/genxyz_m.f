c     genxyz_m.f - Nek5000's xyzquad (core/genxyz.f) for one hex with four 'm' sides, at
c     lx1 = 6 (order 5), with Nek5000's own gh_face_extend_3d (core/navier5.f),
c     fd_weights_full (core/fast3d.f) and zwgll (core/speclib.f); tensr3 written out as
c     sums. Writes the GLL nodes x, y, z, x fastest. make_reference.sh builds and runs it;
c     tests/import/geometry_test.cpp (NekReference) builds the same element.
      program drv
      implicit none
      integer lx, n
      parameter (lx=6)
      real xc(8),yc(8),zc(8), xm(3,12)
      character*1 cc(12)
      real xq(27),yq(27),zq(27), w1(27), w2(27)
      real xcb(2,2,2),ycb(2,2,2),zcb(2,2,2)
      real zgml(3), zlin(2), zquad(3), wl(2,3), wq(3,lx), z(lx), wt(lx)
      real xl(lx,lx,lx),yl(lx,lx,lx),zl(lx,lx,lx)
      integer eindx(12), indx(8), i,j,k,a,b,c,e,ii
      data eindx / 2,6,8,4, 20,24,26,22, 10,12,18,16 /
      data indx / 1,2,4,3,5,6,8,7 /
c     prenek corners: a distorted hex
      data xc / 0.0, 1.1, 1.2, -0.1, 0.05, 1.0, 1.3, 0.0 /
      data yc / 0.0, 0.1, 1.0, 0.9, 0.0, -0.1, 1.1, 1.0 /
      data zc / 0.0, 0.1, -0.05, 0.0, 1.0, 1.1, 0.9, 1.05 /
      do e=1,12
         cc(e) = ' '
      enddo
      cc(2) = 'm'
      xm(1,2) = 1.3
      xm(2,2) = 0.5
      xm(3,2) = 0.05
      cc(9) = 'm'
      xm(1,9) = -0.1
      xm(2,9) = -0.1
      xm(3,9) = 0.45
      cc(7) = 'm'
      xm(1,7) = 0.7
      xm(2,7) = 1.2
      xm(3,7) = 1.0
      cc(11) = 'm'
      xm(1,11) = 1.35
      xm(2,11) = 1.0
      xm(3,11) = 0.4
c     xyzlin to 3x3x3
      zgml(1) = -1
      zgml(2) = 0
      zgml(3) = 1
      zlin(1) = -1
      zlin(2) = 1
      do i=1,3
         call fd_weights_full(zgml(i),zlin,1,0,wl(1,i))
      enddo
      do ii=1,8
         i = indx(ii)
         xcb(ii,1,1) = xc(i)
         ycb(ii,1,1) = yc(i)
         zcb(ii,1,1) = zc(i)
      enddo
      do k=1,3
      do j=1,3
      do i=1,3
         ii = i + 3*(j-1) + 9*(k-1)
         xq(ii) = 0
         yq(ii) = 0
         zq(ii) = 0
         do c=1,2
         do b=1,2
         do a=1,2
            xq(ii) = xq(ii) + wl(a,i)*wl(b,j)*wl(c,k)*xcb(a,b,c)
            yq(ii) = yq(ii) + wl(a,i)*wl(b,j)*wl(c,k)*ycb(a,b,c)
            zq(ii) = zq(ii) + wl(a,i)*wl(b,j)*wl(c,k)*zcb(a,b,c)
         enddo
         enddo
         enddo
      enddo
      enddo
      enddo
      do e=1,12
         if (cc(e).eq.'m') then
            j = eindx(e)
            xq(j) = xm(1,e)
            yq(j) = xm(2,e)
            zq(j) = xm(3,e)
         endif
      enddo
      call gh_face_extend_3d(xq,zgml,3,2,w1,w2)
      call gh_face_extend_3d(yq,zgml,3,2,w1,w2)
      call gh_face_extend_3d(zq,zgml,3,2,w1,w2)
      call zwgll(z,wt,lx)
      zquad(1) = -1
      zquad(2) = 0
      zquad(3) = 1
      do i=1,lx
         call fd_weights_full(z(i),zquad,2,0,wq(1,i))
      enddo
      do k=1,lx
      do j=1,lx
      do i=1,lx
         xl(i,j,k) = 0
         yl(i,j,k) = 0
         zl(i,j,k) = 0
         do c=1,3
         do b=1,3
         do a=1,3
            ii = a + 3*(b-1) + 9*(c-1)
            xl(i,j,k) = xl(i,j,k) + wq(a,i)*wq(b,j)*wq(c,k)*xq(ii)
            yl(i,j,k) = yl(i,j,k) + wq(a,i)*wq(b,j)*wq(c,k)*yq(ii)
            zl(i,j,k) = zl(i,j,k) + wq(a,i)*wq(b,j)*wq(c,k)*zq(ii)
         enddo
         enddo
         enddo
      enddo
      enddo
      enddo
      do k=1,lx
      do j=1,lx
      do i=1,lx
         write(6,'(3ES25.16)') xl(i,j,k),yl(i,j,k),zl(i,j,k)
      enddo
      enddo
      enddo
      end
c     core/math.f's rzero, copy, add2 (there with operation counters)
      subroutine rzero(a,n)
      real a(n)
      do i=1,n
         a(i)=0
      enddo
      end
      subroutine copy(a,b,n)
      real a(n),b(n)
      do i=1,n
         a(i)=b(i)
      enddo
      end
      subroutine add2(a,b,n)
      real a(n),b(n)
      do i=1,n
         a(i)=a(i)+b(i)
      enddo
      end
