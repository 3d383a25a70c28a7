// exchange/registry.hpp — the one place that knows the exchange methods: by code and by
// name, how each is built, and what the cost model and the plan simulation need to know of
// it (its MethodTerms). Automatic selection, the handle, the model, the tools and the tests
// all list and build methods through it; a test build may add a method of its own
// (register_method) and sees every one of them pick it up (tests/registry/twin_method.cpp).
#pragma once

#include "exchange/exchange.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace gsr::detail {

/// Size limits a caller may put on a method; a method above its limit is unavailable.
struct ExchangeLimits {
  /// allreduce: most dense slots (one per (shared id, holder) pair over all ranks). Its
  /// per-call fold addresses slots with an MPI int count, hence the default.
  std::uint64_t allreduce_max_slots = std::numeric_limits<int>::max();
};

/// A built method, or why the method cannot serve this plan (exactly one is set; the
/// verdict is the same on every rank).
struct BuiltExchange {
  std::unique_ptr<Exchange> exchange;
  std::string unavailable;
};

/// How a method routes a call's values: the plan model/simulate.cpp lays out for it.
enum class Routing : std::uint8_t {
  peers,   // one message to and one from each rank sharing an id with this one (exchange/routes.hpp)
  router,  // the crystal router's stages (transfer/schedule.hpp)
  dense,   // ceil(log2 P) rounds over a dense array of every (shared id, holder) slot
};

/// What the cost model (tune/cost_model.hpp) and the plan simulation (model/simulate.hpp)
/// need to know of a method beyond the stages its plan reports. The defaults describe a
/// method that sends its routed messages and nothing else.
struct MethodTerms {
  Routing routing = Routing::peers;
  /// Non-blocking collectives a call posts, one alpha each (none when no rank shares an id).
  int collectives = 0;
  /// Collectives more for rows wider than 8 bytes.
  int wide_row_collectives = 0;
  /// Bytes of the message a call sends each neighbour ahead of its values (0: none).
  std::uint64_t announcement_bytes = 0;
  /// Receives posted before the partials are known, each with room for the usual head
  /// (exchange/protocol.hpp): they count in the call's buffers.
  bool posts_receives_early = false;
  /// No stages at all when no rank shares an id (else one stage without messages).
  bool idle_without_sharing = false;
  /// The method's own cost per call (c_call) is paid even by calls that send no message.
  bool call_cost_without_messages = false;
};

struct MethodEntry {
  Method method;
  std::string_view name;  // must outlive the process's calls (a literal)
  BuiltExchange (*build)(const ExchangeInputs& inputs, const ExchangeLimits& limits);
  MethodTerms terms;
};

/// Every concrete method, in registry order (the order auto breaks ties in). The first call
/// closes the registry to register_method.
std::span<const MethodEntry> method_registry() noexcept;
const MethodEntry* find_method(Method m) noexcept;
/// The entry of a method the registry knows; throws Error(invalid_argument) for any other
/// code (Method::automatic included).
const MethodEntry& method_entry(Method m);

/// Adds a method after the built-in ones, for a test build or an experiment (the public
/// Method codes are fixed by the C and Fortran ABI; a method added here has a code of its
/// own, above theirs). Only on one thread before the registry is first read, e.g. at
/// static initialisation; the name must be a literal (the C API hands it out as a C
/// string). Throws Error(invalid_argument) for a code or name already taken,
/// Method::automatic, "auto", an empty name or no build function; Error(state) for a
/// method registered after the first read.
void register_method(const MethodEntry& entry);

/// Collective over inputs.comm. Throws Error(invalid_argument) for Method::automatic or a
/// code the registry does not know.
BuiltExchange build_exchange(Method m, const ExchangeInputs& inputs, const ExchangeLimits& limits = {});

}  // namespace gsr::detail
