// gslib_consumer.cpp — C++ written for gslib (#include "gslib.h", ids in a
// std::vector<long long>, gs_many on two arrays), built against an installed gsr. The mesh is
// the two-element example of docs/concepts.md spread over the ranks; expected values are
// worked out here by brute force over the whole id list, without gsr. Exits non-zero on any
// mismatch.
#include "gslib.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

const std::vector<long long> global_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 10, 11, 6, 12, 13, 9, 14, 15};

double value_at(std::size_t i) { return 0.5 * static_cast<double>(i) - 1.0 / static_cast<double>(i + 2); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  const std::size_t total_n = global_id.size();
  const std::size_t first = total_n * c.id / c.np;
  const std::size_t n = total_n * (c.id + 1) / c.np - first;

  std::vector<long long> id(global_id.begin() + first, global_id.begin() + first + n);
  std::vector<double> sum(n), smallest(n);
  for (std::size_t i = 0; i < n; ++i) sum[i] = smallest[i] = value_at(first + i);

  gs_data* h = gs_setup(id.data(), static_cast<uint>(n), &c, 0, gs_crystal_router, 0);
  gs(sum.data(), gs_double, gs_add, 0, h, 0);
  // Every copy of a node holds the same sum, so min over the copies must leave sum_copy alone.
  std::vector<double> sum_copy = sum;
  void* arrays[2] = {smallest.data(), sum_copy.data()};
  gs_many(arrays, 2, gs_double, gs_min, 0, h, 0);
  gs_free(h);

  int failures = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double want_sum = 0, want_min = 1e300;
    for (std::size_t j = 0; j < total_n; ++j) {
      if (global_id[j] != id[i]) continue;
      want_sum += value_at(j);
      want_min = std::min(want_min, value_at(j));
    }
    if (std::fabs(sum[i] - want_sum) > 1e-12 || smallest[i] != want_min || std::fabs(sum_copy[i] - want_sum) > 1e-12) {
      std::fprintf(stderr, "rank %u, entry %zu (id %lld): got sum %g min %g; expected %g %g\n", c.id, first + i, id[i],
                   sum[i], smallest[i], want_sum, want_min);
      ++failures;
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, c.c);
  if (c.id == 0) std::printf("gslib_consumer.cpp at P = %u: %d wrong entries\n", c.np, total);
  comm_free(&c);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
