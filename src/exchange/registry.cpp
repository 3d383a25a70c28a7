// exchange/registry.cpp — see registry.hpp. One line per method in `registry` below.
#include "exchange/registry.hpp"

#include "exchange/allreduce.hpp"
#include "exchange/crystal_router.hpp"
#include "exchange/neighbor.hpp"
#include "exchange/pairwise.hpp"

#include <algorithm>
#include <iterator>

namespace gsr::detail {

namespace {

template <class Method>
BuiltExchange build_always(const ExchangeInputs& inputs, const ExchangeLimits&) {
  return {std::make_unique<Method>(inputs), {}};
}

BuiltExchange build_allreduce(const ExchangeInputs& inputs, const ExchangeLimits& limits) {
  const AllreduceExchange::SlotCount slots = AllreduceExchange::count_slots(inputs);
  const std::uint64_t limit = std::min(limits.allreduce_max_slots, ExchangeLimits{}.allreduce_max_slots);
  if (slots.total > limit)
    return {nullptr, "allreduce would need " + std::to_string(slots.total) + " dense slots (" +
                         std::to_string(slots.total * sizeof(double) >> 20) +
                         " MiB per rank for one double), above its limit of " + std::to_string(limit) + " slots"};
  return {std::make_unique<AllreduceExchange>(inputs, slots), {}};
}

constexpr MethodEntry registry[] = {
    {Method::pairwise, "pairwise", &build_always<PairwiseExchange>},
    {Method::crystal_router, "crystal_router", &build_always<CrystalRouterExchange>},
    {Method::allreduce, "allreduce", &build_allreduce},
    {Method::neighbor, "neighbor", &build_always<NeighborExchange>},
};

// The public list of concrete methods (gsr/types.hpp) and this registry name the same
// methods in the same order.
constexpr bool registry_matches_public_list() {
  if (std::size(registry) != std::size(concrete_methods)) return false;
  for (std::size_t i = 0; i < std::size(registry); ++i)
    if (registry[i].method != concrete_methods[i]) return false;
  return true;
}
static_assert(registry_matches_public_list(), "exchange/registry.cpp and gsr::concrete_methods disagree");

}  // namespace

std::span<const MethodEntry> method_registry() noexcept { return registry; }

const MethodEntry* find_method(Method m) noexcept {
  for (const MethodEntry& entry : registry)
    if (entry.method == m) return &entry;
  return nullptr;
}

BuiltExchange build_exchange(Method m, const ExchangeInputs& inputs, const ExchangeLimits& limits) {
  const MethodEntry* entry = find_method(m);
  if (!entry)
    throw Error(ErrorCode::invalid_argument,
                "gsr: method code " + std::to_string(static_cast<int>(m)) + " names no exchange method");
  return entry->build(inputs, limits);
}

}  // namespace gsr::detail
