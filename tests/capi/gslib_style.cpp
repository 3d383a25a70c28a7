// gslib_style.cpp — C++ written the way gslib users write it (#include "gslib.h"), built
// against gsr/gslib.h with only -I<include>/gsr and run at P = 1, 2 and 3 on the two-element
// example.
// Ids are std::vector<long long> handed to gs_setup and gs_unique without a cast, which only
// compiles while slong is long long. Expected values: the tables of docs/concepts.md.
#include "gslib.h"

#include "gslib_style_tables.h"

#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

static_assert(std::is_same<slong, long long>::value, "gslib's default build: slong is long long");
static_assert(std::is_same<ulong, unsigned long long>::value, "gslib's default build: ulong is unsigned long long");
static_assert(std::is_same<sint, int>::value && std::is_same<uint, unsigned int>::value, "sint and uint are int");
static_assert(gs_slong == gs_long_long && gs_sint == gs_int && gs_dom_n == 5, "gslib's domain codes");

namespace {

int failures = 0;

void check(bool ok, const char* what, uint rank, uint entry) {
  if (ok) return;
  std::fprintf(stderr, "[rank %u] FAILED: %s, entry %u\n", rank, what, entry);
  ++failures;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-12; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  const uint first = SEED_N * c.id / c.np;
  const uint n = SEED_N * (c.id + 1) / c.np - first;

  std::vector<long long> ids(seed_id + first, seed_id + first + n);
  struct gs_data* h = gs_setup(ids.data(), n, &c, 0, gs_auto, 0);

  std::vector<double> u(seed_u + first, seed_u + first + n);
  gs(u.data(), gs_double, gs_add, 0, h, 0);
  for (uint i = 0; i < n; ++i) check(near(u[i], seed_add[first + i]), "gs add", c.id, first + i);

  std::vector<double> v(2 * n);
  for (uint i = 0; i < n; ++i) v[2 * i] = seed_u[first + i], v[2 * i + 1] = -seed_u[first + i];
  gs_vec(v.data(), 2, gs_double, gs_min, 0, h, 0);
  for (uint i = 0; i < n; ++i) {
    check(v[2 * i] == seed_min[first + i], "gs_vec min, component 0", c.id, first + i);
    check(v[2 * i + 1] == -seed_max[first + i], "gs_vec min, component 1", c.id, first + i);
  }

  std::vector<double> a(seed_u + first, seed_u + first + n), b(n);
  for (uint i = 0; i < n; ++i) b[i] = -seed_u[first + i];
  void* arrays[2] = {a.data(), b.data()};
  gs_many(arrays, 2, gs_double, gs_max, 0, h, 0);
  for (uint i = 0; i < n; ++i) {
    check(a[i] == seed_max[first + i], "gs_many max, array 0", c.id, first + i);
    check(b[i] == -seed_min[first + i], "gs_many max, array 1", c.id, first + i);
  }

  u.assign(seed_u + first, seed_u + first + n);
  int request = -1;
  igs(u.data(), gs_double, gs_add, 0, h, 0, &request);
  gs_wait(request);
  for (uint i = 0; i < n; ++i) check(near(u[i], seed_add[first + i]), "igs add", c.id, first + i);

  std::vector<long long> big(n);
  for (uint i = 0; i < n; ++i) big[i] = seed_id[first + i] + (1LL << 40);
  gs(big.data(), gs_slong, gs_add, 0, h, 0);
  for (uint i = 0; i < n; ++i) {
    const long long copies =
        seed_id[first + i] <= 9 && seed_id[first + i] % 3 == 0 ? 2 : 1;  // nodes 3, 6, 9 are shared
    check(big[i] == copies * (seed_id[first + i] + (1LL << 40)), "gs gs_slong add", c.id, first + i);
  }
  gs_free(h);

  gs_unique(ids.data(), n, &c);
  for (uint i = 0; i < n; ++i) {
    check(ids[i] == seed_id[first + i] || ids[i] == -seed_id[first + i], "gs_unique keeps |id|", c.id, first + i);
    if (c.np == 2) check(ids[i] == seed_id_asym[first + i], "gs_unique gives id_asym", c.id, first + i);
  }

  int global_failures = 0;
  MPI_Allreduce(&failures, &global_failures, 1, MPI_INT, MPI_SUM, c.c);
  const uint rank = c.id;
  comm_free(&c);
  MPI_Finalize();
  if (global_failures == 0 && rank == 0) std::printf("gslib_style.cpp: all checks passed\n");
  return global_failures == 0 ? 0 : 1;
}
