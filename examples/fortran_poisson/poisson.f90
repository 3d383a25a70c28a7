! gsr-fortran-poisson — the spectral-element Poisson example in Fortran, as a Nek5000 user
! would write it: the mesh (global ids and coordinates) comes from gsr_mesh_load, every
! exchange between elements is a call of the `gsr` module (gs_setup, gs_op), and the rest is
! plain local arithmetic. Solves -Laplace(u) = f on a 2-D gsr mesh of an axis-aligned box,
! u = 0 on the walls, with u = sin(pi x') sin(pi y') (x', y' scaled to [0, 1]), by
! conjugate gradients with a Jacobi preconditioner; prints iterations and max error.
!
!   mpiexec -n 2 gsr-fortran-poisson MESH.h5 [MAX_ERROR [TOLERANCE]]
!
! With MAX_ERROR given, the program exits with status 1 if the max-norm error exceeds it
! (status 3 if CG does not converge).
program fortran_poisson
  use mpi_f08
  use gsr
  use gsr_io
  use, intrinsic :: iso_fortran_env, only: dp => real64, int64
  implicit none

  real(dp), parameter :: pi = 3.14159265358979323846_dp
  type(gsr_mesh) :: mesh
  integer :: rank, ranks, ierr, handle, order, n1, nodes, n, elements, iterations
  real(dp) :: tolerance, max_allowed, error, lo(2), hi(2), wave(2), t0, gs_time
  real(dp), allocatable :: points(:), weights(:), d(:, :)
  real(dp), allocatable :: g(:, :, :), mass(:, :)       ! g(3, nodes, elements): G_rr, G_ss, G_rs
  real(dp), allocatable :: mask(:), dot_weight(:), b(:), u(:), diag(:), exact(:)
  character(len=512) :: path, argument
  logical :: converged

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)

  if (command_argument_count() < 1) then
    if (rank == 0) print '(a)', 'usage: gsr-fortran-poisson MESH.h5 [MAX_ERROR [TOLERANCE]]'
    call MPI_Finalize(ierr)
    error stop 2
  end if
  call get_command_argument(1, path)
  max_allowed = -1
  tolerance = 1e-10_dp
  if (command_argument_count() >= 2) then
    call get_command_argument(2, argument)
    read (argument, *) max_allowed
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, argument)
    read (argument, *) tolerance
  end if

  ! ---- the mesh and the gs handle ------------------------------------------------------
  ! Each rank reads its own block of elements; a bad file aborts the job with a message.
  ! The gsr module takes communicators as integers (mpif.h style): MPI_COMM_WORLD%MPI_VAL.
  call gsr_mesh_load(trim(path), MPI_COMM_WORLD%MPI_VAL, gsr_mesh_blocks, .true., mesh)
  if (mesh%dim /= 2 .or. .not. mesh%has_coordinates) then
    if (rank == 0) print '(a)', 'gsr-fortran-poisson: needs a 2-D mesh with coordinates'
    call gsr_mesh_free(mesh)
    call MPI_Finalize(ierr)
    error stop 1
  end if
  order = mesh%order
  n1 = order + 1
  nodes = mesh%nodes_per_element
  n = int(mesh%n)
  elements = int(mesh%local_elements)
  call gs_setup(handle, mesh%ids, n, MPI_COMM_WORLD%MPI_VAL, ranks)  ! an integer communicator, as in Nek5000

  ! ---- element operators ---------------------------------------------------------------
  allocate (points(0:order), weights(0:order), d(0:order, 0:order))
  call gll_rule(order, points, weights, d)
  allocate (g(3, nodes, elements), mass(nodes, elements))
  call geometric_factors()

  ! ---- problem data --------------------------------------------------------------------
  call bounding_box()
  wave = pi / (hi - lo)
  allocate (mask(n), dot_weight(n), b(n), u(n), diag(n), exact(n))
  call setup_problem()

  ! ---- solve ---------------------------------------------------------------------------
  gs_time = 0
  t0 = MPI_Wtime()
  u = 0
  call pcg(b, u, tolerance, 2000, iterations, converged)
  t0 = MPI_Wtime() - t0

  error = maxval(abs(u - exact))
  call MPI_Allreduce(MPI_IN_PLACE, error, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, t0, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, gs_time, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, a, a, i0, a, i0, a, i0, a)', 'gsr-fortran-poisson: ', trim(path), ' (order ', order, &
      ', ', mesh%global_elements, ' elements) on ', ranks, ' ranks'
    print '(a, a)', '  gs method    ', gsr_method_name(handle)
    print '(a, l1, a, i0, a)', '  converged    ', converged, ' in ', iterations, ' CG iterations'
    print '(a, es10.3)', '  max error    ', error
    print '(a, f8.4, a, f8.4, a)', '  solve time   ', t0, ' s, of which ', gs_time, ' s in gs_op'
  end if

  ! The main program's arrays are never freed automatically (they are saved), and stop ends
  ! the program without freeing them either: free everything before leaving.
  deallocate (points, weights, d, g, mass, mask, dot_weight, b, u, diag, exact)
  call gs_free(handle)
  call gsr_mesh_free(mesh)
  call MPI_Finalize(ierr)
  ! Every rank has the same (reduced) error and convergence flag, so all stop alike.
  if (.not. converged) then
    if (rank == 0) print '(a)', 'FAIL: CG did not reach the tolerance'
    stop 3
  end if
  if (max_allowed > 0 .and. .not. error <= max_allowed) then
    if (rank == 0) print '(a, es10.3, a, es10.3)', 'FAIL: max error', error, ' above the allowed', max_allowed
    stop 1
  end if

contains

  !> GLL points (ascending), weights and derivative matrix d(i, j) = l_j'(x_i) of order N.
  subroutine gll_rule(order, x, w, d)
    integer, intent(in) :: order
    real(dp), intent(out) :: x(0:order), w(0:order), d(0:order, 0:order)
    real(dp) :: p(0:order), step
    integer :: i, j, iteration
    do i = 0, order
      x(i) = -cos(pi * i / order)
      if (i > 0 .and. i < order) then
        ! Newton on P_{N-1} - x P_N (zero at the interior GLL points).
        do iteration = 1, 100
          step = (x(i) * legendre(order, x(i)) - legendre(order - 1, x(i))) / &
                 ((order + 1) * legendre(order, x(i)))
          x(i) = x(i) - step
          if (abs(step) < 1e-16_dp) exit
        end do
      end if
      p(i) = legendre(order, x(i))
      w(i) = 2.0_dp / (order * (order + 1) * p(i)**2)
    end do
    d = 0
    do j = 0, order
      do i = 0, order
        if (i /= j) d(i, j) = p(i) / (p(j) * (x(i) - x(j)))
      end do
    end do
    d(0, 0) = -order * (order + 1) / 4.0_dp
    d(order, order) = order * (order + 1) / 4.0_dp
  end subroutine

  pure real(dp) function legendre(degree, x)
    integer, intent(in) :: degree
    real(dp), intent(in) :: x
    real(dp) :: previous, next
    integer :: k
    legendre = 1
    if (degree == 0) return
    previous = 1
    legendre = x
    do k = 1, degree - 1
      next = ((2 * k + 1) * x * legendre - k * previous) / (k + 1)
      previous = legendre
      legendre = next
    end do
  end function

  !> G = w |J| J^-1 J^-T and B = w |J| at every node, from the node coordinates.
  subroutine geometric_factors()
    real(dp) :: x(n1, n1), y(n1, n1), xr(n1, n1), xs(n1, n1), yr(n1, n1), ys(n1, n1), jac, w
    integer :: e, i, j, p
    do e = 1, elements
      x = reshape(mesh%coordinates(1, (e - 1) * nodes + 1:e * nodes), [n1, n1])
      y = reshape(mesh%coordinates(2, (e - 1) * nodes + 1:e * nodes), [n1, n1])
      xr = matmul(d, x)                  ! first index runs along r (x fastest in the file)
      yr = matmul(d, y)
      xs = matmul(x, transpose(d))
      ys = matmul(y, transpose(d))
      do j = 1, n1
        do i = 1, n1
          p = i + n1 * (j - 1)
          jac = xr(i, j) * ys(i, j) - xs(i, j) * yr(i, j)
          if (jac <= 0) error stop 'an element has a non-positive Jacobian'
          w = weights(i - 1) * weights(j - 1)
          g(1, p, e) = w * (xs(i, j)**2 + ys(i, j)**2) / jac
          g(2, p, e) = w * (xr(i, j)**2 + yr(i, j)**2) / jac
          g(3, p, e) = -w * (xr(i, j) * xs(i, j) + yr(i, j) * ys(i, j)) / jac
          mass(p, e) = w * jac
        end do
      end do
    end do
  end subroutine

  subroutine bounding_box()
    real(dp) :: local(4), global(4)
    if (n > 0) then
      local = [-minval(mesh%coordinates(1, :)), -minval(mesh%coordinates(2, :)), &
               maxval(mesh%coordinates(1, :)), maxval(mesh%coordinates(2, :))]
    else
      local = -huge(1.0_dp)
    end if
    call MPI_Allreduce(local, global, 4, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    lo = -global(1:2)
    hi = global(3:4)
  end subroutine

  !> Mask, inner-product weights, right-hand side, Jacobi diagonal and exact solution.
  subroutine setup_problem()
    real(dp) :: x, y, tol, local_diag(n1, n1)
    integer :: e, i, j, k, p, q
    tol = 1e-9_dp * maxval(hi - lo)
    do q = 1, n
      x = mesh%coordinates(1, q)
      y = mesh%coordinates(2, q)
      exact(q) = sin(wave(1) * (x - lo(1))) * sin(wave(2) * (y - lo(2)))
      mask(q) = 1
      if (abs(x - lo(1)) <= tol .or. abs(x - hi(1)) <= tol .or. &
          abs(y - lo(2)) <= tol .or. abs(y - hi(2)) <= tol) mask(q) = 0
    end do
    ! Copies of one node agree on the mask (min), and are counted once in dot products
    ! (weight 1 / number of copies, the copies counted by summing ones).
    call gs_op(handle, mask, gsr_double, gsr_min, 0)
    dot_weight = 1
    call gs_op(handle, dot_weight, gsr_double, gsr_sum, 0)
    dot_weight = 1 / dot_weight

    ! b = mask . QQ^T (B_L f), with f = (kx^2 + ky^2) u_exact.
    b = [(mass(mod(q - 1, nodes) + 1, (q - 1) / nodes + 1) * sum(wave**2) * exact(q), q = 1, n)]
    call gs_op(handle, b, gsr_double, gsr_sum, 0)
    b = b * mask

    ! Diagonal of the element stiffness, then assembled: QQ^T sums the element entries.
    do e = 1, elements
      do j = 1, n1
        do i = 1, n1
          p = i + n1 * (j - 1)
          local_diag(i, j) = 2 * g(3, p, e) * d(i - 1, i - 1) * d(j - 1, j - 1)
          do k = 1, n1
            local_diag(i, j) = local_diag(i, j) + g(1, k + n1 * (j - 1), e) * d(k - 1, i - 1)**2 &
                                                + g(2, i + n1 * (k - 1), e) * d(k - 1, j - 1)**2
          end do
        end do
      end do
      diag((e - 1) * nodes + 1:e * nodes) = reshape(local_diag, [nodes])
    end do
    call gs_op(handle, diag, gsr_double, gsr_sum, 0)
    where (mask > 0)
      diag = 1 / diag
    elsewhere
      diag = 0
    end where
  end subroutine

  !> out = mask . QQ^T (A_L v): element by element, then direct stiffness summation.
  subroutine apply_laplacian(v, out)
    real(dp), intent(in) :: v(n)
    real(dp), intent(out) :: out(n)
    real(dp) :: ue(n1, n1), ur(n1, n1), us(n1, n1), fr(n1, n1), fs(n1, n1)
    real(dp) :: t
    integer :: e, first
    do e = 1, elements
      first = (e - 1) * nodes
      ue = reshape(v(first + 1:first + nodes), [n1, n1])
      ur = matmul(d, ue)
      us = matmul(ue, transpose(d))
      fr = reshape(g(1, :, e), [n1, n1]) * ur + reshape(g(3, :, e), [n1, n1]) * us
      fs = reshape(g(3, :, e), [n1, n1]) * ur + reshape(g(2, :, e), [n1, n1]) * us
      out(first + 1:first + nodes) = reshape(matmul(transpose(d), fr) + matmul(fs, d), [nodes])
    end do
    t = MPI_Wtime()
    call gs_op(handle, out, gsr_double, gsr_sum, 0)
    gs_time = gs_time + (MPI_Wtime() - t)
    out = out * mask
  end subroutine

  !> Inner product counting each global node once.
  real(dp) function dot(a, c)
    real(dp), intent(in) :: a(n), c(n)
    dot = sum(dot_weight * a * c)
    call MPI_Allreduce(MPI_IN_PLACE, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function

  subroutine pcg(rhs, x, tolerance, max_iterations, iterations, converged)
    real(dp), intent(in) :: rhs(n), tolerance
    real(dp), intent(inout) :: x(n)
    integer, intent(in) :: max_iterations
    integer, intent(out) :: iterations
    logical, intent(out) :: converged
    real(dp) :: r(n), z(n), p(n), ap(n), rz, rz_next, alpha, b_norm
    call apply_laplacian(x, ap)
    r = rhs - ap
    z = diag * r
    p = z
    rz = dot(r, z)
    b_norm = sqrt(dot(rhs, rhs))
    iterations = 0
    converged = b_norm == 0 .or. sqrt(dot(r, r)) <= tolerance * b_norm
    do while (.not. converged .and. iterations < max_iterations)
      call apply_laplacian(p, ap)
      alpha = rz / dot(p, ap)
      x = x + alpha * p
      r = r - alpha * ap
      iterations = iterations + 1
      converged = sqrt(dot(r, r)) <= tolerance * b_norm
      if (converged) exit
      z = diag * r
      rz_next = dot(r, z)
      p = z + (rz_next / rz) * p
      rz = rz_next
    end do
  end subroutine

end program
