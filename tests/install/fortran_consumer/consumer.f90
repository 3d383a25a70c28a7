! consumer.f90 — Table 2 (sum) and Table 4 (max) of docs/concepts.md through the installed
! module `gsr`: one element per rank at P = 2, both on one rank at P = 1. Exits non-zero on
! any difference.
program consumer
  use mpi
  use gsr
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer(8), parameter :: id(18) = [integer(8) :: 1, 2, 3, 4, 5, 6, 7, 8, 9, &
                                     3, 10, 11, 6, 12, 13, 9, 14, 15]
  integer(8), parameter :: id_asym(18) = [integer(8) :: 1, 2, -3, 4, 5, 6, 7, 8, -9, &
                                          3, 10, 11, -6, 12, 13, 9, 14, 15]
  real(dp), parameter :: u0(18) = [1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 0.4_dp, 0.5_dp, &
      0.1_dp, 2.5_dp, 1.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 0.8_dp, 0.3_dp, 0.7_dp]
  real(dp), parameter :: sum_table2(18) = [1.0_dp, 1.5_dp, 3.0_dp, 2.0_dp, 0.8_dp, 1.6_dp, &
      0.5_dp, 0.1_dp, 3.3_dp, 3.0_dp, 0.3_dp, 0.9_dp, 1.6_dp, 1.2_dp, 2.1_dp, 3.3_dp, 0.3_dp, 0.7_dp]
  real(dp), parameter :: max_table4(18) = [1.0_dp, 1.5_dp, 2.0_dp, 2.0_dp, 0.8_dp, 1.2_dp, &
      0.5_dp, 0.1_dp, 2.5_dp, 2.0_dp, 0.3_dp, 0.9_dp, 1.2_dp, 1.2_dp, 2.1_dp, 2.5_dp, 0.3_dp, 0.7_dp]
  integer :: rank, ranks, first, n, h, h_asym, i, bad, total, ierr
  real(dp) :: u(18)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  if (ranks > 2) error stop 'run at P = 1 or 2'
  n = 18/ranks
  first = rank*n + 1

  call gs_setup(h, id(first:), n, MPI_COMM_WORLD, ranks)
  call gs_setup_ext(h_asym, id_asym(first:), n, MPI_COMM_WORLD, 0, gsr_auto, 0)
  bad = 0
  u(1:n) = u0(first:first + n - 1)
  call gs_op(h, u, gsr_double, gsr_sum, 0)
  do i = 1, n
    if (abs(u(i) - sum_table2(first + i - 1)) > 1.0e-12_dp*sum_table2(first + i - 1)) then
      print '(a,i0,a,i0,a,f8.4,a,f8.4)', 'rank ', rank, ' sum entry ', i, ': ', u(i), &
          ' expected ', sum_table2(first + i - 1)
      bad = bad + 1
    end if
  end do
  u(1:n) = u0(first:first + n - 1)
  call gs_op(h_asym, u, gsr_double, gsr_max, 1)
  do i = 1, n
    if (u(i) /= max_table4(first + i - 1)) then
      print '(a,i0,a,i0,a,f8.4,a,f8.4)', 'rank ', rank, ' max entry ', i, ': ', u(i), &
          ' expected ', max_table4(first + i - 1)
      bad = bad + 1
    end if
  end do
  if (rank == 0) print '(a,a)', 'installed gsr, method ', gsr_method_name(h)
  call gs_free(h)
  call gs_free(h_asym)

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 'installed gsr gave wrong values'
  if (rank == 0) print '(a)', 'consumer: Tables 2 (sum) and 4 (max) reproduced'
end program consumer
