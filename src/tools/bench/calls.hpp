// tools/bench/calls.hpp — what gsr-bench calls: one handle per concrete method plus auto
// (the contenders), and the call kinds gs (apply, k = 1), gs_vec (apply_vec) and gs_many
// (apply_many), each blocking or started and waited for at once.
#pragma once

#include <gsr/handle.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::tools::bench {

/// One handle under test: "pairwise", "crystal_router", "allreduce" or "auto".
struct Contender {
  std::string name;
  Handle handle;
  std::string chosen() const { return std::string(to_string(handle.stats().method)); }
  /// The name, and for auto what it chose: "auto -> pairwise".
  std::string label() const { return name == "auto" ? name + " -> " + chosen() : name; }
};

/// Collective: a handle per method of gsr::registered_methods(), in registry order, then auto
/// (GSR_METHOD in the environment replaces auto's choice, as for any handle).
std::vector<Contender> build_contenders(std::span<const std::int64_t> ids, MPI_Comm comm);

enum class Mode { blocking, nonblocking };
std::string_view to_string(Mode mode) noexcept;

struct CallKind {
  std::string_view call;  // "gs", "gs_vec" or "gs_many"
  std::size_t k = 1;
  Mode mode = Mode::blocking;
  /// "gs_vec k=3 blocking"
  std::string label() const;
  /// gs_many's k separate arrays; else k values per entry, interleaved.
  bool separate() const noexcept { return call == "gs_many"; }
  std::string_view layout() const noexcept { return separate() ? "separate" : "interleaved"; }
};

/// gs k=1, gs_vec k=3, gs_many k=1 and 3, each blocking then nonblocking. (gs_vec with
/// k=1 is not a kind of its own: Handle::apply is apply_vec with k = 1.)
std::vector<CallKind> call_kinds();

/// The largest k of call_kinds(): arrays sized for it serve every kind.
inline constexpr std::size_t max_k = 3;

/// One call of `kind` on u, which holds n * k values of `domain`: interleaved (gs, gs_vec)
/// or as k consecutive arrays of n (gs_many). Nonblocking: start, then wait at once.
void run_call(Handle& handle, const CallKind& kind, void* u, Domain domain, Op op, Transpose t = Transpose::no);

}  // namespace gsr::tools::bench
