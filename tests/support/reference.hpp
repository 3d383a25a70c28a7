// reference.hpp — a serial, obviously-correct model of gsr's semantics (docs/concepts.md),
// for tests only. It works on the whole problem at once (every rank's ids and values), so a
// test can either build the global problem identically on every rank (no communication) or
// gather it with the MPI helpers at the bottom of this file.
//
// The model follows the canonical combination order gsr guarantees, so floating results can
// be compared bit for bit:
//   * a group is every entry, on every rank, with the same |id| (id != 0);
//   * contributing entries: transpose = 0 the unflagged ones, transpose = 1 all of them;
//     receiving entries:    transpose = 0 all of them,      transpose = 1 the unflagged ones;
//   * a rank's partial is the fold of its contributing entries in local index order, starting
//     from the first one; a rank that holds the id but contributes nothing offers the identity;
//   * the group's result is the fold of the partials of its holders in ascending rank order,
//     starting from the first holder's partial;
//   * receiving entries get the result, the others keep their input, id 0 is never touched;
//   * a group of exactly one entry that both contributes and receives is left untouched;
//   * floating add and mul pass on a NaN operand, quieted, the left one of two (nan_first).
#pragma once

#include <gsr/types.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace gsr_test {

template <class T>
using PerRank = std::vector<std::vector<T>>;

inline std::uint64_t magnitude(std::int64_t id) {
  return id < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(id) : static_cast<std::uint64_t>(id);
}

// ---- ops ----------------------------------------------------------------------------------

template <class T>
T identity(gsr::Op op) {
  switch (op) {
    case gsr::Op::add:
      return T(0);
    case gsr::Op::mul:
      return T(1);
    case gsr::Op::min:
      return std::numeric_limits<T>::max();
    case gsr::Op::max:
      return std::numeric_limits<T>::lowest();
    case gsr::Op::bpr:
      return T(0);
  }
  throw std::logic_error("reference: unknown op");
}

/// Longest common binary prefix of two unsigned values: shift the larger right until equal.
template <class U>
U common_prefix(U a, U b) {
  while (a != b) {
    if (a > b)
      a >>= 1;
    else
      b >>= 1;
  }
  return a;
}

/// x with its quiet bit set (x a NaN): what IEEE arithmetic makes of a signaling NaN operand.
template <class T>
T quieted(T x) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  U bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits |= U(1) << (std::numeric_limits<T>::digits - 2);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

/// Floating add or mul with its NaN fixed (docs/methods.md, the canonical order): a NaN
/// operand passes on, sign and payload, quieted; the left one if both are NaN. IEEE 754 lets
/// either pass and compilers swap the operands of a + b, so only this rule is reproducible.
/// Without a NaN operand, the hardware's result (inf - inf and 0 * inf: its default NaN).
template <class T, class F>
T nan_first(T a, T b, F arithmetic) {
  if (a != a) return quieted(a);
  if (b != b) return quieted(b);
  return arithmetic(a, b);
}

template <class T>
T combine(gsr::Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Integers wrap modulo 2^bits: compute in the unsigned type of the same width.
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case gsr::Op::add:
        return static_cast<T>(static_cast<U>(ua + ub));
      case gsr::Op::mul:
        return static_cast<T>(static_cast<U>(ua * ub));
      case gsr::Op::min:
        return b < a ? b : a;
      case gsr::Op::max:
        return a < b ? b : a;
      case gsr::Op::bpr:
        return static_cast<T>(common_prefix<U>(ua, ub));
    }
  } else {
    switch (op) {
      case gsr::Op::add:
        return nan_first(a, b, [](T x, T y) { return x + y; });
      case gsr::Op::mul:
        return nan_first(a, b, [](T x, T y) { return x * y; });
      case gsr::Op::min:
        return b < a ? b : a;
      case gsr::Op::max:
        return a < b ? b : a;
      case gsr::Op::bpr:
        throw std::logic_error("reference: bpr on floating data");
    }
  }
  throw std::logic_error("reference: unknown op");
}

// ---- unique -------------------------------------------------------------------------------

/// gs_unique on the whole problem: in each group, the owner is the (|id| mod count)-th of
/// the ranks that hold the id unflagged (all holders if none does), sorted by rank; on the
/// owner the kept entry is the first unflagged one (the first one if all are flagged). The
/// kept entry becomes +|id|, every other entry of the group -|id|; zeros stay zero.
inline PerRank<std::int64_t> unique_ids(const PerRank<std::int64_t>& ids) {
  struct Holders {
    std::vector<int> unflagged, any;  // ascending ranks (each rank appears once)
  };
  std::map<std::uint64_t, Holders> groups;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    for (std::int64_t id : ids[r]) {
      if (id == 0) continue;
      Holders& h = groups[magnitude(id)];
      if (h.any.empty() || h.any.back() != int(r)) h.any.push_back(int(r));
      if (id > 0 && (h.unflagged.empty() || h.unflagged.back() != int(r))) h.unflagged.push_back(int(r));
    }
  }
  PerRank<std::int64_t> out(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) {
    out[r].resize(ids[r].size());
    std::map<std::uint64_t, bool> kept_here;  // group -> kept entry already chosen on r
    for (std::size_t i = 0; i < ids[r].size(); ++i) {
      const std::int64_t id = ids[r][i];
      if (id == 0) {
        out[r][i] = 0;
        continue;
      }
      const std::uint64_t g = magnitude(id);
      const Holders& h = groups.at(g);
      const std::vector<int>& candidates = h.unflagged.empty() ? h.any : h.unflagged;
      const int owner = candidates[g % candidates.size()];
      const bool eligible = h.unflagged.empty() || id > 0;
      bool keep = false;
      if (int(r) == owner && eligible && !kept_here[g]) {
        keep = true;
        kept_here[g] = true;
      }
      out[r][i] = keep ? static_cast<std::int64_t>(g) : -static_cast<std::int64_t>(g);
    }
  }
  return out;
}

// ---- the gather-scatter -------------------------------------------------------------------

/// Applies the operation in place to every rank's values. values[r] has ids[r].size() * k
/// entries in vec layout (u[i*k + c]); components are independent.
template <class T>
void apply(const PerRank<std::int64_t>& ids, PerRank<T>& values, std::size_t k, gsr::Op op, gsr::Transpose transpose) {
  const bool trans = transpose == gsr::Transpose::yes;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    if (values[r].size() != ids[r].size() * k)
      throw std::logic_error("reference: values size does not match ids size * k");
  }
  // Entries of each group, in (rank, index) order.
  struct Entry {
    std::size_t rank, index;
    bool flagged;
  };
  std::map<std::uint64_t, std::vector<Entry>> groups;
  for (std::size_t r = 0; r < ids.size(); ++r)
    for (std::size_t i = 0; i < ids[r].size(); ++i)
      if (ids[r][i] != 0) groups[magnitude(ids[r][i])].push_back({r, i, ids[r][i] < 0});

  const PerRank<T> input = values;
  for (const auto& [g, entries] : groups) {
    const auto contributes = [&](const Entry& e) { return trans || !e.flagged; };
    const auto receives = [&](const Entry& e) { return !trans || !e.flagged; };
    if (entries.size() == 1 && contributes(entries[0]) && receives(entries[0])) continue;
    for (std::size_t c = 0; c < k; ++c) {
      bool have_result = false;
      T result = identity<T>(op);
      std::size_t at = 0;
      while (at < entries.size()) {
        const std::size_t rank = entries[at].rank;
        bool have_partial = false;
        T partial = identity<T>(op);
        for (; at < entries.size() && entries[at].rank == rank; ++at) {
          const Entry& e = entries[at];
          if (!contributes(e)) continue;
          const T v = input[e.rank][e.index * k + c];
          partial = have_partial ? combine(op, partial, v) : v;
          have_partial = true;
        }
        result = have_result ? combine(op, result, partial) : partial;
        have_result = true;
      }
      for (const Entry& e : entries)
        if (receives(e)) values[e.rank][e.index * k + c] = result;
    }
  }
}

// ---- MPI helpers: gather the global problem -----------------------------------------------

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return MPI_INT64_T;
  else
    static_assert(sizeof(T) == 0, "unsupported type");
}

/// Every rank's array, on every rank (MPI_Allgatherv).
template <class T>
PerRank<T> allgather(std::span<const T> mine, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<T> all(static_cast<std::size_t>(offsets[size - 1] + counts[size - 1]));
  MPI_Allgatherv(mine.data(), count, mpi_type<T>(), all.data(), counts.data(), offsets.data(), mpi_type<T>(), comm);
  PerRank<T> out(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
  return out;
}

/// The expected result of the operation for this rank's entries (vec layout, k components).
template <class T>
std::vector<T> expected(std::span<const std::int64_t> ids, std::span<const T> values, std::size_t k, gsr::Op op,
                        gsr::Transpose transpose, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const PerRank<std::int64_t> all_ids = allgather(ids, comm);
  PerRank<T> all_values = allgather(values, comm);
  apply(all_ids, all_values, k, op, transpose);
  return all_values[static_cast<std::size_t>(rank)];
}

/// The ids gs_unique should produce for this rank.
inline std::vector<std::int64_t> expected_unique(std::span<const std::int64_t> ids, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return unique_ids(allgather(ids, comm))[static_cast<std::size_t>(rank)];
}

/// Bitwise equality (so NaN == NaN and -0 != +0, which is what copy consistency means).
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace gsr_test
