// Every method, non-blocking, against the serial reference (bit for bit): several requests
// in flight on one handle, local work between start and wait, waits in an order that
// differs from rank to rank, requests outliving their handle or never waited explicitly,
// and the op x domain x transpose matrix both blocking and start/wait. Registered at
// P = 1..5 (3 and 5 take the crystal router's odd-split path).
#include "methods_support.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>

namespace {

using gsr::Op;
using gsr::Transpose;
using methods_test::PerRank;
using methods_test::world_rank;
using methods_test::world_size;

constexpr std::uint64_t seed0 = 0x63727973746c;  // fixed: failures must reproduce

/// Random ids with entries on every rank (the bad-call test needs some everywhere).
PerRank<std::int64_t> random_ids(std::uint64_t seed) {
  return gsr_test::make_ids("random", seed, world_size(), /*empty_rank=*/-1).ids;
}

/// One call: its input on this rank, the reference's answer, and how to start it.
struct Call {
  virtual ~Call() = default;
  virtual gsr::Request start(gsr::Handle& h) = 0;
  virtual void apply(gsr::Handle& h) = 0;
  virtual void check(const std::string& label) = 0;
  std::string what;
};

template <class T>
struct TypedCall final : Call {
  Op op;
  Transpose t;
  std::size_t k;
  bool many;
  std::vector<T> want, got;            // vec layout: got[i*k + c]
  std::vector<std::vector<T>> arrays;  // many layout: arrays[c][i]
  std::vector<T*> pointers;

  TypedCall(const PerRank<std::int64_t>& ids, Op op_, Transpose t_, std::size_t k_, bool many_, std::uint64_t seed)
      : op(op_), t(t_), k(k_), many(many_) {
    const auto rank = static_cast<std::size_t>(world_rank());
    const PerRank<T> input = gsr_test::random_values<T>(ids, k, op, seed);
    PerRank<T> reference = input;
    gsr_test::apply(ids, reference, k, op, t);
    want = reference[rank];
    got = input[rank];
    const std::size_t n = ids[rank].size();
    if (many) {
      arrays.assign(k, std::vector<T>(n));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) arrays[c][i] = got[i * k + c];
      for (auto& a : arrays) pointers.push_back(a.data());
    }
    what = std::string(gsr::to_string(gsr::domain_of<T>())) + " " + std::string(gsr::to_string(op)) +
           " transpose=" + std::to_string(int(t)) + " k=" + std::to_string(k) + (many ? " many" : " vec");
  }
  gsr::Request start(gsr::Handle& h) override {
    if (many) return h.start_many(std::span<T* const>(pointers), op, t);
    return h.start_vec(std::span<T>(got), k, op, t);
  }
  void apply(gsr::Handle& h) override {
    if (many)
      h.apply_many(std::span<T* const>(pointers), op, t);
    else
      h.apply_vec(std::span<T>(got), k, op, t);
  }
  void check(const std::string& label) override {
    if (many)
      for (std::size_t i = 0; i < got.size() / k; ++i)
        for (std::size_t c = 0; c < k; ++c) got[i * k + c] = arrays[c][i];
    methods_test::expect_bitwise(want, got, label + " " + what);
  }
};

template <class T>
std::unique_ptr<Call> call(const PerRank<std::int64_t>& ids, Op op, Transpose t, std::size_t k, bool many,
                           std::uint64_t seed) {
  return std::make_unique<TypedCall<T>>(ids, op, t, k, many, seed);
}

/// Work between start and wait that touches none of the data in flight.
double local_work() {
  std::vector<double> scratch(4096);
  std::iota(scratch.begin(), scratch.end(), 1.0);
  return std::accumulate(scratch.begin(), scratch.end(), 0.0);
}

class NonBlocking : public ::testing::TestWithParam<gsr::Method> {
protected:
  std::string label(const std::string& test) const {
    return test + " method=" + std::string(gsr::to_string(GetParam())) + " P=" + std::to_string(world_size()) +
           " rank=" + std::to_string(world_rank());
  }
};

TEST_P(NonBlocking, ManyInFlightWaitedInRankDependentOrder) {
  const PerRank<std::int64_t> ids = random_ids(seed0);
  gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  EXPECT_EQ(h.stats().method, GetParam());

  std::vector<std::unique_ptr<Call>> calls;
  calls.push_back(call<double>(ids, Op::add, Transpose::no, 1, false, seed0 + 1));
  calls.push_back(call<float>(ids, Op::mul, Transpose::yes, 3, false, seed0 + 2));
  calls.push_back(call<std::int64_t>(ids, Op::bpr, Transpose::no, 2, true, seed0 + 3));
  calls.push_back(call<std::int32_t>(ids, Op::min, Transpose::no, 1, false, seed0 + 4));
  calls.push_back(call<double>(ids, Op::max, Transpose::yes, 2, false, seed0 + 5));
  calls.push_back(call<double>(ids, Op::add, Transpose::yes, 3, true, seed0 + 6));

  std::vector<gsr::Request> requests;
  for (auto& c : calls) {
    requests.push_back(c->start(h));
    EXPECT_GT(local_work(), 0.0);
  }
  EXPECT_EQ(h.pending_requests(), calls.size());

  // Rank 0 waits in start order, rank 1 in reverse, rank 2 in a shuffled order, ...
  std::vector<std::size_t> order(calls.size());
  std::iota(order.begin(), order.end(), 0);
  if (world_rank() % 3 == 1) std::reverse(order.begin(), order.end());
  if (world_rank() % 3 == 2) order = {3, 0, 5, 1, 4, 2};
  for (std::size_t i : order) {
    EXPECT_TRUE(requests[i].pending());
    requests[i].wait();
    EXPECT_FALSE(requests[i].pending());
  }
  EXPECT_EQ(h.pending_requests(), 0u);
  for (auto& c : calls) c->check(label("in flight together"));
}

TEST_P(NonBlocking, RepeatedOverlappingRoundsReuseSlots) {
  const PerRank<std::int64_t> ids = random_ids(seed0 + 10);
  gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  for (std::uint64_t round = 0; round < 8; ++round) {
    auto a = call<double>(ids, Op::add, Transpose::no, 1, false, seed0 + 100 + 2 * round);
    auto b = call<std::int32_t>(ids, Op::add, Transpose::yes, 2, false, seed0 + 101 + 2 * round);
    gsr::Request ra = a->start(h);
    gsr::Request rb = b->start(h);
    local_work();
    if (round % 2) {
      rb.wait();
      ra.wait();
    } else {
      ra.wait();
      rb.wait();
    }
    a->check(label("round " + std::to_string(round)));
    b->check(label("round " + std::to_string(round)));
  }
}

TEST_P(NonBlocking, RequestOutlivesItsHandle) {
  const PerRank<std::int64_t> ids = random_ids(seed0 + 20);
  auto c = call<double>(ids, Op::add, Transpose::no, 2, false, seed0 + 21);
  gsr::Request request;
  {
    gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
    request = c->start(h);
  }
  EXPECT_TRUE(request.pending());
  request.wait();
  c->check(label("after the handle was destroyed"));
}

TEST_P(NonBlocking, UnwaitedRequestIsCompletedByItsDestructor) {
  const PerRank<std::int64_t> ids = random_ids(seed0 + 30);
  gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  auto first = call<float>(ids, Op::add, Transpose::no, 1, false, seed0 + 31);
  auto second = call<std::int64_t>(ids, Op::max, Transpose::no, 1, false, seed0 + 32);
  {
    gsr::Request r1 = first->start(h);
    gsr::Request r2 = second->start(h);
  }  // destroyed in reverse order of starting: r2 is waited first
  EXPECT_EQ(h.pending_requests(), 0u);
  first->check(label("destructor"));
  second->check(label("destructor"));
}

TEST_P(NonBlocking, EveryOpDomainTransposeBlockingAndStartWait) {
  const PerRank<std::int64_t> ids = random_ids(seed0 + 40);
  gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  std::uint64_t seed = seed0 + 1000;
  for (Op op : {Op::add, Op::mul, Op::min, Op::max, Op::bpr}) {
    for (Transpose t : {Transpose::no, Transpose::yes}) {
      std::vector<std::unique_ptr<Call>> calls;
      if (op != Op::bpr) {
        calls.push_back(call<double>(ids, op, t, 1, false, ++seed));
        calls.push_back(call<float>(ids, op, t, 1, false, ++seed));
      }
      calls.push_back(call<std::int32_t>(ids, op, t, 1, false, ++seed));
      calls.push_back(call<std::int64_t>(ids, op, t, 1, false, ++seed));
      for (auto& c : calls) {
        c->apply(h);
        c->check(label("blocking"));
      }
      calls.clear();
      if (op != Op::bpr) calls.push_back(call<double>(ids, op, t, 1, false, ++seed));
      calls.push_back(call<std::int64_t>(ids, op, t, 1, false, ++seed));
      for (auto& c : calls) {
        gsr::Request r = c->start(h);
        local_work();
        r.wait();
        c->check(label("start/wait"));
      }
    }
  }
}

TEST_P(NonBlocking, BadCallOnOneRankWhileAnotherIsInFlight) {
  // The last rank passes too short an array. It must get invalid_argument; the others get a
  // remote (or mismatch) error or complete with correct values; the request started before
  // is unharmed everywhere, and the next call works (nothing is left on the wire).
  const PerRank<std::int64_t> ids = random_ids(seed0 + 50);
  gsr::Handle h(ids[world_rank()], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  const bool bad_rank = world_rank() == world_size() - 1;
  auto before = call<double>(ids, Op::add, Transpose::no, 1, false, seed0 + 51);
  auto middle = call<double>(ids, Op::mul, Transpose::no, 1, false, seed0 + 52);
  auto after = call<std::int32_t>(ids, Op::max, Transpose::no, 1, false, seed0 + 53);

  gsr::Request first = before->start(h);
  if (bad_rank) {
    std::vector<double> too_short(ids[world_rank()].size() + 1);
    try {
      gsr::Request never =
          h.start_vec(too_short.data(), too_short.size() - 2, 1, gsr::Domain::float64, Op::mul, Transpose::no);
      ADD_FAILURE() << label("bad call") << ": a short array was accepted";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << e.what();
    }
  } else {
    try {
      gsr::Request r = middle->start(h);
      r.wait();
      middle->check(label("completed beside a bad call"));
    } catch (const gsr::Error& e) {
      EXPECT_TRUE(e.code() == gsr::ErrorCode::remote || e.code() == gsr::ErrorCode::mismatch)
          << label("beside a bad call") << ": " << e.what();
    }
  }
  first.wait();
  before->check(label("started before a bad call"));
  after->apply(h);
  after->check(label("after a bad call"));
}

INSTANTIATE_TEST_SUITE_P(Methods, NonBlocking, ::testing::ValuesIn(gsr::registered_methods()),
                         methods_test::method_name);

}  // namespace
