// gsr/types.hpp — the vocabulary shared by every gsr interface: value domains,
// reduction ops, the transpose mode and the exchange methods, with their names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace gsr {

/// Value types a gather-scatter can reduce.
enum class Domain : int { float64 = 0, float32 = 1, int32 = 2, int64 = 3 };

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

/// Every concrete method, in registry order (what `automatic` chooses among).
inline constexpr Method concrete_methods[] = {Method::pairwise, Method::crystal_router,
                                              Method::allreduce, Method::neighbor};

/// Maps a C++ value type to its Domain; unsupported types fail to compile.
template <class T>
constexpr Domain domain_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>) return Domain::float64;
  else if constexpr (std::is_same_v<U, float>) return Domain::float32;
  else if constexpr (std::is_same_v<U, std::int32_t>) return Domain::int32;
  else if constexpr (std::is_same_v<U, std::int64_t>) return Domain::int64;
  else static_assert(sizeof(U) == 0, "gsr: value type must be double, float, int32_t or int64_t");
}

std::size_t size_of(Domain d) noexcept;

}  // namespace gsr
