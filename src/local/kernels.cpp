// local/kernels.cpp — see kernels.hpp. The reductions are defined here once; every method
// and every layout goes through these functors, which is what makes results agree bitwise.
#include "local/kernels.hpp"

#include <gsr/error.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace gsr::detail {

namespace {

template <class T>
using Wide = std::make_unsigned_t<T>;  // integer add/mul wrap modulo 2^bits, never UB

template <class T>
struct Add {
  static constexpr T identity() { return T(0); }
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    else
      return a + b;
  }
};
template <class T>
struct Mul {
  static constexpr T identity() { return T(1); }
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    else
      return a * b;
  }
};
template <class T>
struct Min {
  static constexpr T identity() { return std::numeric_limits<T>::max(); }
  static T apply(T a, T b) { return b < a ? b : a; }
};
template <class T>
struct Max {
  static constexpr T identity() { return std::numeric_limits<T>::lowest(); }
  static T apply(T a, T b) { return a < b ? b : a; }
};
// Longest common binary prefix (Nek5000's gs_bpr): shift the larger right until equal.
template <class T>
struct Bpr {
  static constexpr T identity() { return T(0); }
  static T apply(T a, T b) {
    Wide<T> x = static_cast<Wide<T>>(a), y = static_cast<Wide<T>>(b);
    while (x != y) {
      if (x < y)
        y >>= 1;
      else
        x >>= 1;
    }
    return static_cast<T>(x);
  }
};

// Layouts: how entry i, component c of the user's data is addressed.
template <class T>
struct One {
  T* u;
  static constexpr std::size_t k = 1;
  T& at(index_t i, std::size_t) const { return u[i]; }
};
template <class T>
struct Interleaved {
  T* u;
  std::size_t k;
  T& at(index_t i, std::size_t c) const { return u[static_cast<std::size_t>(i) * k + c]; }
};
template <class T>
struct Separate {
  T* const* arrays;
  std::size_t k;
  T& at(index_t i, std::size_t c) const { return arrays[c][i]; }
};

template <class T, class OpT, class L>
void gather_impl(const L& u, const EntryMap& contrib, std::size_t g0, std::size_t g1, T* rows) {
  const std::size_t k = u.k;
  for (std::size_t g = g0; g < g1; ++g, rows += k) {
    const auto entries = contrib.row(g);
    if (entries.empty()) {
      for (std::size_t c = 0; c < k; ++c) rows[c] = OpT::identity();
      continue;
    }
    for (std::size_t c = 0; c < k; ++c) {
      T acc = u.at(entries[0], c);
      for (std::size_t j = 1; j < entries.size(); ++j) acc = OpT::apply(acc, u.at(entries[j], c));
      rows[c] = acc;
    }
  }
}

template <class T, class OpT, class L>
void reduce_local_impl(const L& u, const EntryMap& contrib, const EntryMap& receive, std::size_t g0, std::size_t g1) {
  for (std::size_t g = g0; g < g1; ++g) {
    const auto from = contrib.row(g);
    const auto to = receive.row(g);
    for (std::size_t c = 0; c < u.k; ++c) {
      T acc = OpT::identity();
      if (!from.empty()) {
        acc = u.at(from[0], c);
        for (std::size_t j = 1; j < from.size(); ++j) acc = OpT::apply(acc, u.at(from[j], c));
      }
      for (index_t e : to) u.at(e, c) = acc;
    }
  }
}

// Floating add and mul whose NaN is fixed: a NaN operand passes on, quieted, the left one if
// both are NaN (a + a is a, quieted: the same NaN on either side). IEEE 754 lets a + b pass
// on either NaN, and the compiler swaps the operands of a commutative operation at will: it
// did in the paired fold below, so that pairwise, the crystal router and neighbor gave -NaN
// at P = 2 where allreduce, folding the same partials through the general loop, gave +NaN.
template <class T, class OpT>
constexpr bool fixes_nan = std::is_floating_point_v<T> && (std::is_same_v<OpT, Add<T>> || std::is_same_v<OpT, Mul<T>>);

template <class T, class OpT>
T apply_fixed_nan(T a, T b) {
  if (a != a) return a + a;
  if (b != b) return b + b;
  return OpT::apply(a, b);  // no NaN operand: the hardware's result (its default NaN for inf - inf)
}

// Component c of the fold of combine-map row r with apply_fixed_nan throughout: the slow path
// of fold_row, taken when the fold is NaN. Add and mul keep a NaN once they meet one, so a
// fold that is not NaN met none and needs no second pass.
template <class T, class OpT, bool Paired>
[[gnu::noinline, gnu::cold]] T fold_row_nan(const std::byte* const* blocks, const CombineMap& map, std::size_t r,
                                            std::size_t k, std::size_t c) {
  if constexpr (Paired)
    return apply_fixed_nan<T, OpT>(reinterpret_cast<const T*>(blocks[map.pair[0]])[r * k + c],
                                   reinterpret_cast<const T*>(blocks[map.pair[1]])[r * k + c]);
  const std::size_t b = map.offsets[r], e = map.offsets[r + 1];
  T acc = reinterpret_cast<const T*>(blocks[map.slot[b]])[static_cast<std::size_t>(map.index[b]) * k + c];
  for (std::size_t j = b + 1; j < e; ++j)
    acc = apply_fixed_nan<T, OpT>(
        acc, reinterpret_cast<const T*>(blocks[map.slot[j]])[static_cast<std::size_t>(map.index[j]) * k + c]);
  return acc;
}

// Component c of the fold of combine-map row r, in the map's (canonical) order; with
// Paired (CombineMap::paired) without reading the map's rows. Every fold of the received
// blocks goes through here, so every method and kernel folds alike; callers pick Paired
// once per call with by_pairing, outside their loops. The methods differ in how they fold
// the partials (paired or not) but not in the local folds before (the same kernels for
// every method), so NaNs are fixed here, once per group rather than per value: the local
// pass ran 14 % slower with a check per value (gs, k = 1, P = 1, 8^3 box).
template <class T, class OpT, bool Paired>
[[gnu::always_inline]] inline T fold_row(const std::byte* const* blocks, const CombineMap& map, std::size_t r,
                                         std::size_t k, std::size_t c) {
  T acc;
  if constexpr (Paired) {
    acc = OpT::apply(reinterpret_cast<const T*>(blocks[map.pair[0]])[r * k + c],
                     reinterpret_cast<const T*>(blocks[map.pair[1]])[r * k + c]);
  } else {
    const std::size_t b = map.offsets[r], e = map.offsets[r + 1];
    acc = reinterpret_cast<const T*>(blocks[map.slot[b]])[static_cast<std::size_t>(map.index[b]) * k + c];
    for (std::size_t j = b + 1; j < e; ++j)
      acc = OpT::apply(acc,
                       reinterpret_cast<const T*>(blocks[map.slot[j]])[static_cast<std::size_t>(map.index[j]) * k + c]);
  }
  if constexpr (fixes_nan<T, OpT>)
    if (acc != acc) [[unlikely]]
      return fold_row_nan<T, OpT, Paired>(blocks, map, r, k, c);
  return acc;
}

// Each group's fold (fold_row) written straight to the entries that receive the group.
template <class T, class OpT, bool Paired, class L>
void combine_scatter_impl(const L& u, const EntryMap& receive, std::size_t g0, std::size_t g1,
                          const std::byte* const* blocks, const CombineMap& map) {
  for (std::size_t r = g0; r < g1; ++r)
    for (std::size_t c = 0; c < u.k; ++c) {
      const T acc = fold_row<T, OpT, Paired>(blocks, map, r, u.k, c);
      for (index_t i : receive.row(r)) u.at(i, c) = acc;
    }
}

// The loops over a group's S entries are unrolled whole (at -O2 GCC keeps loops of 3 to 8
// with a counter; unrolled, the 2^3 box's call at P = 2 ran 2-3 % faster).
#define GSR_UNROLL_GROUP _Pragma("GCC unroll 8")

// The same two for groups of S entries each (Plan::shared_runs): no branch on the size.
template <class T, class OpT, std::size_t S, class L>
void gather_sized_impl(const L& u, const index_t* entries, const index_t* rows, std::size_t groups, T* partials) {
  for (std::size_t g = 0; g < groups; ++g, entries += S)
    for (std::size_t c = 0; c < u.k; ++c) {
      T acc = u.at(entries[0], c);
      GSR_UNROLL_GROUP
      for (std::size_t j = 1; j < S; ++j) acc = OpT::apply(acc, u.at(entries[j], c));
      partials[static_cast<std::size_t>(rows[g]) * u.k + c] = acc;
    }
}

template <class T, class OpT, std::size_t S, bool Paired, class L>
void combine_scatter_sized_impl(const L& u, const index_t* entries, const index_t* rows, std::size_t groups,
                                const std::byte* const* blocks, const CombineMap& map) {
  for (std::size_t g = 0; g < groups; ++g, entries += S)
    for (std::size_t c = 0; c < u.k; ++c) {
      const T acc = fold_row<T, OpT, Paired>(blocks, map, rows[g], u.k, c);
      GSR_UNROLL_GROUP
      for (std::size_t j = 0; j < S; ++j) u.at(entries[j], c) = acc;
    }
}

// Asks for the cache lines of entry i (every component) ahead of their use, for writing.
template <class T, class L>
void prefetch_entry(const L& u, index_t i) {
  if constexpr (std::is_same_v<L, Separate<T>>) {
    for (std::size_t c = 0; c < u.k; ++c) __builtin_prefetch(&u.at(i, c), 1);
  } else {
    __builtin_prefetch(&u.at(i, 0), 1);
  }
}

// Once the data outgrows the caches (prefetch_from_bytes), the fixed-size kernel asks for the
// line of the entry prefetch_entries further on: a group's other entries lie an element away,
// beyond the hardware's own prefetch. Measurements: docs/performance.md, "Why the code is so".
inline constexpr std::size_t prefetch_entries = 1024;

template <class T, class OpT, std::size_t S, bool Prefetch, class L>
void reduce_fixed_impl(const L& u, const index_t* entries, std::size_t groups, const index_t* entries_end) {
  // The groups whose entries prefetch_entries on still lie inside the array.
  std::size_t hinted = 0;
  if constexpr (Prefetch) {
    const auto left = static_cast<std::size_t>(entries_end - entries);
    hinted = left > prefetch_entries ? std::min(groups, (left - prefetch_entries) / S) : 0;
  }
  for (std::size_t g = 0; g < groups; ++g, entries += S) {
    if (Prefetch && g < hinted) {
      GSR_UNROLL_GROUP
      for (std::size_t j = 0; j < S; ++j) prefetch_entry<T>(u, entries[prefetch_entries + j]);
    }
    for (std::size_t c = 0; c < u.k; ++c) {
      T acc = u.at(entries[0], c);
      GSR_UNROLL_GROUP
      for (std::size_t j = 1; j < S; ++j) acc = OpT::apply(acc, u.at(entries[j], c));
      GSR_UNROLL_GROUP
      for (std::size_t j = 0; j < S; ++j) u.at(entries[j], c) = acc;
    }
  }
}

// Calls f.template operator()<S>() for S = size, one of 1..Plan::max_fixed_group.
template <class F, std::size_t... S>
void by_size_of(std::size_t size, F&& f, std::index_sequence<S...>) {
  ((size == S + 1 ? f.template operator()<S + 1>() : void()), ...);
}
template <class F>
void by_size(std::size_t size, F&& f) {
  by_size_of(size, f, std::make_index_sequence<Plan::max_fixed_group>{});
}

// Calls f.template operator()<P>() with P = map.paired, a compile-time choice for fold_row.
template <class F>
void by_pairing(const CombineMap& map, F&& f) {
  if (map.paired)
    f.template operator()<true>();
  else
    f.template operator()<false>();
}

// Calls `f` with the layout object matching `u` (one / interleaved / separate).
// gs_many with one array is gs on that array.
template <class T, class F>
void with_layout(const DataRef& u, F&& f) {
  if (u.many && u.k > 1)
    f(Separate<T>{reinterpret_cast<T* const*>(u.arrays), u.k});
  else if (u.many)
    f(One<T>{static_cast<T*>(u.arrays[0])});
  else if (u.k == 1)
    f(One<T>{static_cast<T*>(u.base)});
  else
    f(Interleaved<T>{static_cast<T*>(u.base), u.k});
}

template <class T, class OpT>
struct Table {
  static void gather(const DataRef& u, const EntryMap& contrib, std::size_t g0, std::size_t g1, void* rows) {
    with_layout<T>(u, [&](const auto& l) { gather_impl<T, OpT>(l, contrib, g0, g1, static_cast<T*>(rows)); });
  }
  static void reduce_local(const DataRef& u, const EntryMap& contrib, const EntryMap& receive, std::size_t g0,
                           std::size_t g1) {
    with_layout<T>(u, [&](const auto& l) { reduce_local_impl<T, OpT>(l, contrib, receive, g0, g1); });
  }
  static void reduce_fixed(const DataRef& u, std::size_t size, const index_t* entries, std::size_t groups,
                           const index_t* prefetch_end) {
    auto run = [&](const auto& l) {
      by_size(size, [&]<std::size_t S>() {
        if (prefetch_end)
          reduce_fixed_impl<T, OpT, S, true>(l, entries, groups, prefetch_end);
        else
          reduce_fixed_impl<T, OpT, S, false>(l, entries, groups, nullptr);
      });
    };
    if (u.many && u.k > 1) {
      // One array at a time: each pass walks one array's lines as gs does, where k arrays'
      // lines at once miss the cache far more (docs/performance.md, "Why the code is so").
      for (std::size_t c = 0; c < u.k; ++c) run(One<T>{static_cast<T*>(u.arrays[c])});
      return;
    }
    with_layout<T>(u, run);
  }
  static void combine_scatter(const DataRef& u, const EntryMap& receive, std::size_t g0, std::size_t g1,
                              const std::byte* const* blocks, const CombineMap& map) {
    with_layout<T>(u, [&](const auto& l) {
      by_pairing(map, [&]<bool P>() { combine_scatter_impl<T, OpT, P>(l, receive, g0, g1, blocks, map); });
    });
  }
  static void gather_sized(const DataRef& u, std::size_t size, const index_t* entries, const index_t* rows,
                           std::size_t groups, void* partials) {
    with_layout<T>(u, [&](const auto& l) {
      by_size(size, [&]<std::size_t S>() {
        gather_sized_impl<T, OpT, S>(l, entries, rows, groups, static_cast<T*>(partials));
      });
    });
  }
  static void combine_scatter_sized(const DataRef& u, std::size_t size, const index_t* entries, const index_t* rows,
                                    std::size_t groups, const std::byte* const* blocks, const CombineMap& map) {
    with_layout<T>(u, [&](const auto& l) {
      by_pairing(map, [&]<bool P>() {
        by_size(size, [&]<std::size_t S>() {
          combine_scatter_sized_impl<T, OpT, S, P>(l, entries, rows, groups, blocks, map);
        });
      });
    });
  }
  static constexpr Kernels make() {
    return Kernels{sizeof(T),        &gather,       &reduce_local,         &reduce_fixed,
                   &combine_scatter, &gather_sized, &combine_scatter_sized};
  }
};

// One kernel table per op, in Op order, for value type T.
template <class T, template <class> class... Ops>
constexpr std::array<Kernels, sizeof...(Ops)> tables_for() {
  return {Table<T, Ops<T>>::make()...};
}

// The kernels of `op` on T (Op order; bpr for integer types only); nullptr if none.
template <class T>
const Kernels* kernels_of(Op op) {
  static constexpr auto table = [] {
    if constexpr (std::is_integral_v<T>)
      return tables_for<T, Add, Mul, Min, Max, Bpr>();
    else
      return tables_for<T, Add, Mul, Min, Max>();
  }();
  const auto o = static_cast<std::size_t>(op);
  return o < table.size() ? &table[o] : nullptr;
}

const Kernels* lookup(Domain dom, Op op) {
  switch (dom) {
#define GSR_DOMAIN_KERNELS(type, domain, name, gs_code, fortran_code) \
  case Domain::domain:                                                \
    return kernels_of<type>(op);
    GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_KERNELS)
#undef GSR_DOMAIN_KERNELS
  }
  return nullptr;
}

}  // namespace

void CombineMap::find_pairs() noexcept {
  const std::size_t rows = offsets.size() - 1;
  paired = false;
  if (rows == 0 || slot.size() != 2 * rows) return;
  for (std::size_t r = 0; r < rows; ++r)
    if (offsets[r] != 2 * r || slot[2 * r] != slot[0] || slot[2 * r + 1] != slot[1] || index[2 * r] != r ||
        index[2 * r + 1] != r)
      return;
  pair[0] = slot[0];
  pair[1] = slot[1];
  paired = true;
}

const Kernels* find_kernels(Domain dom, Op op) noexcept {
  if (!valid_domain(static_cast<int>(dom)) || !valid_op(static_cast<int>(op))) return nullptr;
  return lookup(dom, op);
}

bool valid_domain(int code) noexcept { return code >= 0 && code < domain_count; }
bool valid_op(int code) noexcept { return code >= 0 && code <= 4; }

}  // namespace gsr::detail
