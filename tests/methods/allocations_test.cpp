// No allocation per call: after warm-up, 100 calls of every kind (gs, gs_vec and gs_many
// with k = 3; blocking and start/wait; two requests in flight) allocate nothing through
// operator new, for every method. The counter replaces every replaceable global operator
// new and delete of this test program (plain, array, nothrow, aligned), so it sees every
// allocation the library makes through the C++ runtime (std::vector, std::string,
// make_unique, shared_ptr), also in a sanitized build, whose runtime would otherwise serve
// the variants not replaced here, uncounted and with its own bookkeeping. Allocations
// inside MPI (C malloc) are not gsr's and are not counted.
#include "world.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace {

std::atomic<long> allocations{0};

void* counted_allocation(std::size_t size, std::size_t alignment = 0) noexcept {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  // aligned_alloc wants a size that is a multiple of the alignment.
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

void* counted_or_throw(std::size_t size, std::size_t alignment = 0) {
  if (void* p = counted_allocation(size, alignment)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return counted_or_throw(size); }
void* operator new[](std::size_t size) { return counted_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size); }
void* operator new(std::size_t size, std::align_val_t a) { return counted_or_throw(size, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t size, std::align_val_t a) {
  return counted_or_throw(size, static_cast<std::size_t>(a));
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_allocation(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_allocation(size, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

using gsr::Method;
using gsr_test::world_rank;
using gsr_test::world_size;

// Element-like ids: each rank holds 4 blocks of 27 nodes; neighbouring ranks share a face
// of their blocks, and blocks share nodes within a rank, so every code path (shared groups,
// local groups, fixed-size groups) runs.
std::vector<std::int64_t> ids_of_rank() {
  std::vector<std::int64_t> ids;
  for (int b = 0; b < 4; ++b)
    for (int z = 0; z < 3; ++z)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
          const std::int64_t gx = (world_rank() * 4 + b) * 2 + x;  // blocks touch at x faces
          ids.push_back(1 + gx + 1000 * (y + 3 * z));
        }
  return ids;
}

/// Allocations on this rank during the timed rounds of every call kind on `h` (after a
/// warm-up); `what` names the handle in failure messages.
long allocations_per_rounds(gsr::Handle& h, const std::vector<std::int64_t>& ids, const std::string& what) {
  const std::size_t n = ids.size();
  std::vector<double> u(n, 1.0), v(3 * n, 1.0), w(n, 2.0);
  std::vector<double> a(n, 1.0), b(n, 1.0), c(n, 1.0);
  double* arrays[3] = {a.data(), b.data(), c.data()};
  std::vector<std::int32_t> iu(n, 1);

  auto calls = [&] {
    h.apply(std::span(u), gsr::Op::add);
    h.apply_vec(std::span(v), 3, gsr::Op::max);
    h.apply_many(std::span<double* const>(arrays, 3), gsr::Op::min);
    h.apply(std::span(iu), gsr::Op::add, gsr::Transpose::yes);
    gsr::Request r1 = h.start(std::span(u), gsr::Op::add);
    gsr::Request r2 = h.start(std::span(w), gsr::Op::mul);
    r2.wait();
    r1.wait();
    gsr::Request r3 = h.start_vec(std::span(v), 3, gsr::Op::add);
    r3.wait();
    gsr::Request r4 = h.start_many(std::span<double* const>(arrays, 3), gsr::Op::add);
    r4.wait();
  };
  for (int i = 0; i < 3; ++i) calls();  // warm-up: buffers reach their size
  // The counter sees allocations at all (else the test below could not fail).
  const long probe = allocations.load();
  std::vector<double>* heap = new std::vector<double>(1);
  delete heap;
  EXPECT_GE(allocations.load() - probe, 2) << what;

  // 100 rounds (800 calls); 13 rounds at P > 2, where each collective costs milliseconds.
  const int rounds = world_size() > 2 ? 13 : 100;
  const long before = allocations.load();
  for (int i = 0; i < rounds; ++i) calls();
  const long during = allocations.load() - before;
  // A rank that frees the handle sends its neighbours a notice (core/ledger.hpp); one still
  // waiting in its last call records it, which allocates once. That is the handle's end,
  // not a call's cost: no rank frees it before every rank has counted.
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(during, 0) << what << " allocated " << during << " times in " << rounds << " rounds of 8 calls on rank "
                       << world_rank() << " of " << world_size();
  return during;
}

class Allocations : public ::testing::TestWithParam<Method> {};

TEST_P(Allocations, NoneAfterWarmUp) {
  gsr::SetupOptions options;
  options.method = GetParam();
  const std::vector<std::int64_t> ids = ids_of_rank();
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  allocations_per_rounds(h, ids, "method " + std::string(gsr::to_string(GetParam())));
}

// With methods per call size (auto's table, here given as a method table, the option
// GSR_METHOD sets), calls of k = 1 and k = 3 alternate between two methods: each keeps its
// own scratch, none is rebuilt.
TEST(AllocationsBySize, NoneWhenSizesAlternateBetweenMethods) {
  for (const char* table : {"crystal_router,neighbor:24", "pairwise,allreduce:24", "neighbor,crystal_router:16"}) {
    gsr::SetupOptions options;
    options.method_table = table;
    const std::vector<std::int64_t> ids = ids_of_rank();
    gsr::Handle h(ids, MPI_COMM_WORLD, options);
    EXPECT_EQ(h.stats().methods_by_size.size(), 2u) << table;
    allocations_per_rounds(h, ids, std::string("method_table=") + table);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Allocations, ::testing::ValuesIn(gsr::registered_methods()),
                         [](const ::testing::TestParamInfo<Method>& info) {
                           return std::string(gsr::to_string(info.param));
                         });

}  // namespace
