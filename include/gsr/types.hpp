// gsr/types.hpp — the vocabulary shared by every gsr interface: value domains,
// reduction ops, the transpose mode and the exchange methods, with their names.
#pragma once

#include <gsr/domains.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace gsr {

/// Value types a gather-scatter can reduce (gsr/domains.h lists them): float64 = 0 (double),
/// float32 = 1, int32 = 2, int64 = 3.
enum class Domain : int {
#define GSR_DOMAIN_ENUMERATOR(type, domain, name, gs_code, fortran_code) domain,
  GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_ENUMERATOR)
#undef GSR_DOMAIN_ENUMERATOR
};
static_assert(static_cast<int>(Domain::float64) == 0 && static_cast<int>(Domain::int64) == 3,
              "gsr::Domain's values are ABI: new value types go at the end of GSR_FOR_EACH_DOMAIN");

/// Reductions. Identities: add 0, mul 1, min the largest finite value, max the lowest
/// finite value, bpr 0. bpr (longest common binary prefix) is defined for integers only.
enum class Op : int { add = 0, mul = 1, min = 2, max = 3, bpr = 4 };

/// Which entries of a group with flagged (negative-id) members contribute and receive.
///   no  (Q,   transpose = 0): unflagged entries contribute, every entry receives.
///   yes (Q^T, transpose = 1): every entry contributes, unflagged entries receive.
/// A group without flagged entries behaves the same either way (QQ^T).
enum class Transpose : int { no = 0, yes = 1 };

/// How values cross rank boundaries. `automatic` measures the others and keeps the fastest.
enum class Method : int { automatic = 0, pairwise = 1, crystal_router = 2, allreduce = 3, neighbor = 4 };

std::string_view to_string(Domain d) noexcept;
std::string_view to_string(Op op) noexcept;
std::string_view to_string(Method m) noexcept;

/// Parses "pairwise", "crystal_router", "allreduce", "neighbor" or "auto"; nullopt for anything else.
std::optional<Method> method_from_string(std::string_view name) noexcept;

/// Every concrete method the library's registry knows, in its order (what `automatic`
/// chooses among): the four above, and any a test build adds (docs/architecture.md).
std::span<const Method> registered_methods() noexcept;

/// Maps a C++ value type to its Domain; unsupported types fail to compile.
template <class T>
constexpr Domain domain_of() {
  using U = std::remove_cv_t<T>;
#define GSR_DOMAIN_OF(type, domain, name, gs_code, fortran_code) \
  if constexpr (std::is_same_v<U, type>)                         \
    return Domain::domain;                                       \
  else
  GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_OF)
#undef GSR_DOMAIN_OF
  static_assert(sizeof(U) == 0, "gsr: value type must be one of gsr/domains.h (double, float, int32_t, int64_t)");
}

/// How many value types there are: Domain's values are 0 .. domain_count - 1.
inline constexpr int domain_count = 0
#define GSR_DOMAIN_COUNT(type, domain, name, gs_code, fortran_code) +1
    GSR_FOR_EACH_DOMAIN(GSR_DOMAIN_COUNT)
#undef GSR_DOMAIN_COUNT
    ;

std::size_t size_of(Domain d) noexcept;

}  // namespace gsr
