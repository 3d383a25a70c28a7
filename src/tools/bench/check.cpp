// tools/bench/check.cpp — the bitwise comparison of every contender behind --check.
//
// Each rank fills its values from a hash of (rank, index), different on every copy of a
// node and spread over many exponents, so a method that combined in another order would
// round differently; each contender then runs the same call on the same values, and its
// output is compared byte for byte with the first contender's. One collective at the end
// adds up the differing values of every comparison over the ranks.
#include "tools/bench/check.hpp"

#include "tools/bench/calls.hpp"

#include <cmath>
#include <cstring>
#include <span>

namespace gsr::tools::bench {
namespace {

struct Case {
  Domain domain;
  Op op;
  Transpose transpose;
  std::string label() const {
    return std::string(to_string(domain)) + " " + std::string(to_string(op)) +
           (transpose == Transpose::yes ? " transposed" : "");
  }
};

/// Every op of every domain (bpr on integers only); also transposed for add on float64 and
/// max on int64 (the ids have flagged entries, so Q and Q^T differ).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Domain domain : {Domain::float64, Domain::float32, Domain::int32, Domain::int64})
    for (const Op op : {Op::add, Op::mul, Op::min, Op::max, Op::bpr}) {
      const bool floating = domain == Domain::float64 || domain == Domain::float32;
      if (!(floating && op == Op::bpr)) out.push_back(Case{domain, op, Transpose::no});
    }
  out.push_back(Case{Domain::float64, Op::add, Transpose::yes});
  out.push_back(Case{Domain::int64, Op::max, Transpose::yes});
  return out;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Values for `op`: products stay small (no overflow), bpr gets non-negative integers,
/// floating sums mix magnitudes from 2^-12 to 2^12.
template <class T>
void fill(std::span<T> u, Op op, std::uint64_t seed) {
  for (std::size_t i = 0; i < u.size(); ++i) {
    const std::uint64_t h = mix(seed * 0x100000001b3ULL + i);
    const double unit = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
    if constexpr (std::is_floating_point_v<T>)
      u[i] = static_cast<T>(op == Op::mul ? 0.5 + unit : (unit - 0.5) * std::ldexp(1.0, static_cast<int>(h % 25) - 12));
    else if (op == Op::mul)
      u[i] = static_cast<T>(static_cast<int>(h % 5) - 2);
    else if (op == Op::bpr)
      u[i] = static_cast<T>(h >> (65 - 8 * sizeof(T)));
    else
      u[i] = static_cast<T>(static_cast<long long>(h % 2001) - 1000);
  }
}

void fill(std::vector<std::uint64_t>& storage, std::size_t values, const Case& c, std::uint64_t seed) {
  void* data = storage.data();
  switch (c.domain) {
    case Domain::float64:
      fill(std::span(static_cast<double*>(data), values), c.op, seed);
      break;
    case Domain::float32:
      fill(std::span(static_cast<float*>(data), values), c.op, seed);
      break;
    case Domain::int32:
      fill(std::span(static_cast<std::int32_t*>(data), values), c.op, seed);
      break;
    case Domain::int64:
      fill(std::span(static_cast<std::int64_t*>(data), values), c.op, seed);
      break;
  }
}

/// Values of `width` bytes that differ between a and b.
long long differing_values(const void* a, const void* b, std::size_t values, std::size_t width) {
  long long count = 0;
  for (std::size_t i = 0; i < values; ++i)
    count += std::memcmp(static_cast<const std::byte*>(a) + i * width, static_cast<const std::byte*>(b) + i * width,
                         width) != 0;
  return count;
}

/// Fills the values, runs the call, and flips a bit of the first value if told to.
void run_case(Contender& contender, const CallKind& kind, const Case& c, std::vector<std::uint64_t>& storage,
              std::uint64_t seed, bool inject) {
  const std::size_t values = contender.handle.size() * kind.k;
  fill(storage, values, c, seed);
  run_call(contender.handle, kind, storage.data(), c.domain, c.op, c.transpose);
  if (inject && values > 0) reinterpret_cast<unsigned char*>(storage.data())[0] ^= 1;
}

}  // namespace

CheckResult check_methods(const std::vector<std::int64_t>& ids, MPI_Comm comm, std::optional<Method> inject) {
  std::vector<Contender> contenders = build_contenders(ids, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto injected = [&](const Contender& c) { return inject && c.name == to_string(*inject); };
  std::vector<std::uint64_t> reference(ids.size() * max_k), trial(ids.size() * max_k);
  std::vector<long long> differing;
  std::vector<std::string> what;
  for (const Case& c : cases())
    for (const CallKind& kind : call_kinds()) {
      const std::uint64_t seed = static_cast<std::uint64_t>(rank) + 1;
      run_case(contenders[0], kind, c, reference, seed, injected(contenders[0]));
      for (std::size_t i = 1; i < contenders.size(); ++i) {
        run_case(contenders[i], kind, c, trial, seed, injected(contenders[i]));
        differing.push_back(differing_values(reference.data(), trial.data(), ids.size() * kind.k, size_of(c.domain)));
        what.push_back(contenders[i].name + " vs " + contenders[0].name + ": " + kind.label() + ", " + c.label());
      }
    }
  MPI_Allreduce(MPI_IN_PLACE, differing.data(), static_cast<int>(differing.size()), MPI_LONG_LONG, MPI_SUM, comm);

  CheckResult result;
  result.comparisons = differing.size();
  for (const Contender& c : contenders) result.contenders.push_back(c.label());
  for (std::size_t i = 0; i < differing.size(); ++i)
    if (differing[i] != 0)
      result.differences.push_back(what[i] + ": " + std::to_string(differing[i]) + " values differ");
  return result;
}

}  // namespace gsr::tools::bench
