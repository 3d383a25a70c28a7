// exchange/registry.hpp — the methods by enum and by name, and the one place that builds
// them. Automatic selection, the handle and the tests all go through build_exchange.
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

struct MethodEntry {
  Method method;
  std::string_view name;
  BuiltExchange (*build)(const ExchangeInputs& inputs, const ExchangeLimits& limits);
};

/// Every concrete method, in registry order (the order auto breaks ties in).
std::span<const MethodEntry> method_registry() noexcept;
const MethodEntry* find_method(Method m) noexcept;

/// Collective over inputs.comm. Throws Error(invalid_argument) for Method::automatic or a
/// code the registry does not know.
BuiltExchange build_exchange(Method m, const ExchangeInputs& inputs, const ExchangeLimits& limits = {});

}  // namespace gsr::detail
