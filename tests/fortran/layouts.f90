! layouts.f90 — gs_vec / gs_op_vec (u(k, n): k components per node) and gs_many /
! gs_op_many (k separate arrays) from Fortran, in all four domains, for the four ops, both
! transposes, on Table 1's id and id_asym (docs/concepts.md). The data are whole numbers (ten
! times Table 1's u, plus an offset per component), so every domain computes them exactly;
! the expected values come from the brute-force reference of seed_support.f90, which
! seed_tables.f90 checks against Tables 2-4.
program layouts
  use mpi
  use gsr
  use seed_support
  implicit none

  integer, parameter :: k = 3
  integer, parameter :: doms(4) = [gsr_double, gsr_sint, gsr_slong, gsr_float]
  character(len=6), parameter :: dom_names(4) = ['double', 'sint  ', 'slong ', 'float ']
  integer :: h(2), d, op, transpose, which
  integer(i8) :: ids(18, 2)
  character(len=80) :: label

  call start()
  ids(:, 1) = seed_id
  ids(:, 2) = seed_id_asym
  call gs_setup(h(1), seed_id(first:), count, MPI_COMM_WORLD, ranks)
  call gs_setup(h(2), seed_id_asym(first:), count, MPI_COMM_WORLD, ranks)

  do which = 1, 2
    do d = 1, 4
      do op = 1, 4
        do transpose = 0, 1
          write (label, '(a,a,a,a,a,i0)') merge('id      ', 'id_asym ', which == 1), &
              trim(dom_names(d)), ' ', trim(op_names(op)), ' transpose=', transpose
          call vec_case(h(which), ids(:, which), doms(d), op, transpose, trim(label))
          call many_case(h(which), ids(:, which), doms(d), op, transpose, trim(label))
        end do
      end do
    end do
  end do

  call gs_free(h(1))
  call gs_free(h(2))
  call finish('layouts')

contains

  ! Whole-number data: component c of entry i of the whole example.
  pure real(dp) function value(c, i)
    integer, intent(in) :: c, i
    value = nint(10*seed_u(i)) + 3*(c - 1)
  end function

  function expected(ids, c, op, transpose) result(want)
    integer(i8), intent(in) :: ids(18)
    integer, intent(in) :: c, op, transpose
    real(dp) :: want(18), data(18)
    integer :: i
    do i = 1, 18
      data(i) = value(c, i)
    end do
    do i = 1, 18
      want(i) = reference(ids, data, i, op, transpose)
    end do
  end function

  subroutine vec_case(h, ids, dom, op, transpose, label)
    integer, intent(in) :: h, dom, op, transpose
    integer(i8), intent(in) :: ids(18)
    character(len=*), intent(in) :: label
    real(dp) :: u(k, count)
    real(4) :: uf(k, count)
    integer(4) :: ui(k, count)
    integer(i8) :: ul(k, count)
    real(dp) :: want(18)
    integer :: c, i
    u = reshape([((value(c, first + i - 1), c = 1, k), i = 1, count)], [k, count])
    select case (dom)
    case (gsr_double)
      call gs_op_vec(h, u, k, dom, op, transpose)
    case (gsr_float)
      uf = real(u, 4)
      call gs_vec(h, uf, k, dom, op, transpose)
      u = real(uf, dp)
    case (gsr_sint)
      ui = nint(u)
      call gs_op_vec(h, ui, k, dom, op, transpose)
      u = real(ui, dp)
    case (gsr_slong)
      ul = nint(u, i8)
      call gs_vec(h, ul, k, dom, op, transpose)
      u = real(ul, dp)
    end select
    do c = 1, k
      want = expected(ids, c, op, transpose)
      call check_real('vec '//label, u(c, :), want(first:first + count - 1), 0.0_dp)
    end do
  end subroutine

  ! Three ways to pass the arrays: k = 3 with the rest omitted, all six with k = 6, and all
  ! six positionally with k = 2 (Nek5000 always passes all six: docs/fortran.md, "Migrating
  ! Nek5000-style code"), where u3..u6 must be left alone.
  subroutine many_case(h, ids, dom, op, transpose, label)
    integer, intent(in) :: h, dom, op, transpose
    integer(i8), intent(in) :: ids(18)
    character(len=*), intent(in) :: label
    real(dp) :: u(count, 6)
    real(4) :: uf(count, 6)
    integer(4) :: ui(count, 6)
    integer(i8) :: ul(count, 6)
    real(dp) :: want(18)
    integer :: c, i, variant, used
    character(len=12), parameter :: variants(3) = ['k=3 omitted ', 'k=6         ', &
                                                   'k=2 of six  ']
    do variant = 1, 3
      u = reshape([((value(c, first + i - 1), i = 1, count), c = 1, 6)], [count, 6])
      select case (dom)
      case (gsr_double)
        call many_call(variant, h, dom, op, transpose, &
                       u(:, 1), u(:, 2), u(:, 3), u(:, 4), u(:, 5), u(:, 6), used)
      case (gsr_float)
        uf = real(u, 4)
        call many_call(variant, h, dom, op, transpose, &
                       uf(:, 1), uf(:, 2), uf(:, 3), uf(:, 4), uf(:, 5), uf(:, 6), used)
        u = real(uf, dp)
      case (gsr_sint)
        ui = nint(u)
        call many_call(variant, h, dom, op, transpose, &
                       ui(:, 1), ui(:, 2), ui(:, 3), ui(:, 4), ui(:, 5), ui(:, 6), used)
        u = real(ui, dp)
      case (gsr_slong)
        ul = nint(u, i8)
        call many_call(variant, h, dom, op, transpose, &
                       ul(:, 1), ul(:, 2), ul(:, 3), ul(:, 4), ul(:, 5), ul(:, 6), used)
        u = real(ul, dp)
      end select
      do c = 1, 6
        if (c <= used) then
          want = expected(ids, c, op, transpose)
          call check_real('many '//trim(variants(variant))//' '//label, u(:, c), &
                          want(first:first + count - 1), 0.0_dp)
        else
          call check_real('many '//trim(variants(variant))//' untouched '//label, u(:, c), &
                          [(value(c, first + i - 1), i = 1, count)], 0.0_dp)
        end if
      end do
    end do
  end subroutine

  subroutine many_call(variant, h, dom, op, transpose, u1, u2, u3, u4, u5, u6, used)
    integer, intent(in) :: variant, h, dom, op, transpose
    type(*), intent(inout) :: u1(*), u2(*), u3(*), u4(*), u5(*), u6(*)
    integer, intent(out) :: used
    select case (variant)
    case (1)
      used = 3
      call gs_many(h, u1, u2, u3, k=3, dom=dom, op=op, transpose=transpose)
    case (2)
      used = 6
      call gs_op_many(h, u1, u2, u3, u4, u5, u6, 6, dom, op, transpose)
    case default
      used = 2
      call gs_op_many(h, u1, u2, u3, u4, u5, u6, 2, dom, op, transpose)
    end select
  end subroutine

end program layouts
