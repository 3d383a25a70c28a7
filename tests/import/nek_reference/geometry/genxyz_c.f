c     genxyz_c.f - Nek5000's arcsrf (core/genxyz.f, appended by make_reference.sh) on one
c     quad with 'C' sides 1, 3 and 4, at lx1 = 8 (order 7), after the bilinear map; the GLL
c     points from Nek5000's zwgll. Writes the GLL nodes x, y, x fastest.
c     tests/import/geometry_test.cpp (NekReference) builds the same element.
      program arcdrv
      parameter (lx1=8, ly1=8, lz1=1)
      COMMON /CTMP1/ H(LX1,3,2),XCRVED(LX1),YCRVED(LY1),ZCRVED(LZ1)
     $             , ZGML(LX1,3),WORK(3,LX1,LZ1)
      common /crv/ xc(8,1), yc(8,1), curve(6,8,1), eface1(6)
      integer eface1
      real xml(lx1,ly1,1,1), yml(lx1,ly1,1,1), zml(lx1,ly1,1,1), wt(lx1)
      real xcb(2,2), ycb(2,2)
      integer indx(4)
      data indx / 1,2,4,3 /
      data eface1 / 3,2,4,1,5,6 /
      nxl = lx1
      nyl = ly1
      nzl = 1
      xc(1,1) = 0.0
      yc(1,1) = 0.0
      xc(2,1) = 2.0
      yc(2,1) = 0.2
      xc(3,1) = 2.1
      yc(3,1) = 1.5
      xc(4,1) = -0.1
      yc(4,1) = 1.3
      curve(1,1,1) = 1.3
      curve(1,3,1) = 1.4
      curve(1,4,1) = -2.0
      call zwgll(zgml(1,1),wt,lx1)
      call zwgll(zgml(1,2),wt,lx1)
      do ix=1,nxl
         h(ix,1,1)=(1.0-zgml(ix,1))*0.5
         h(ix,1,2)=(1.0+zgml(ix,1))*0.5
         h(ix,2,1)=(1.0-zgml(ix,2))*0.5
         h(ix,2,2)=(1.0+zgml(ix,2))*0.5
      enddo
      h(1,3,1) = 1
      h(1,3,2) = 1
      do ii=1,4
         xcb(ii,1) = xc(indx(ii),1)
         ycb(ii,1) = yc(indx(ii),1)
      enddo
      do j=1,nyl
      do i=1,nxl
         xml(i,j,1,1) = 0
         yml(i,j,1,1) = 0
         do b=1,2
         do a=1,2
            xml(i,j,1,1)=xml(i,j,1,1)+h(i,1,a)*h(j,2,b)*xcb(a,b)
            yml(i,j,1,1)=yml(i,j,1,1)+h(i,1,a)*h(j,2,b)*ycb(a,b)
         enddo
         enddo
      enddo
      enddo
      do isid=1,4
         if (curve(1,isid,1).ne.0) then
            call arcsrf(xml,yml,zml,nxl,nyl,nzl,1,isid)
         endif
      enddo
      do j=1,nyl
      do i=1,nxl
         write(6,'(2ES25.16)') xml(i,j,1,1),yml(i,j,1,1)
      enddo
      enddo
      end
      subroutine arcsrf(xml,yml,zml,nxl,nyl,nzl,ie,isid)
      parameter (lx1=8, ly1=8, lz1=1)
      COMMON /CTMP1/ H(LX1,3,2),XCRVED(LX1),YCRVED(LY1),ZCRVED(LZ1)
     $             , ZGML(LX1,3),WORK(3,LX1,LZ1)
      common /crv/ xc(8,1), yc(8,1), curve(6,8,1), eface1(6)
      integer eface1
      DIMENSION XML(NXL,NYL,NZL,1),YML(NXL,NYL,NZL,1),ZML(NXL,NYL,NZL,1)
      LOGICAL IFGLJ
      IFGLJ = .FALSE.
