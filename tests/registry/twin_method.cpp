// twin_method.cpp — see twin_method.hpp. Registered before main, as a test build or an
// experiment adds a method (docs/architecture.md, "A new exchange method").
#include "twin_method.hpp"

#include "exchange/pairwise.hpp"

#include <memory>

namespace {

using gsr::detail::BuiltExchange;
using gsr::detail::ExchangeInputs;
using gsr::detail::ExchangeLimits;

class TwinExchange final : public gsr::detail::PairwiseExchange {
public:
  using PairwiseExchange::PairwiseExchange;
  gsr::Method method() const noexcept override { return twin::method; }
};

BuiltExchange build(const ExchangeInputs& inputs, const ExchangeLimits&) {
  return {std::make_unique<TwinExchange>(inputs), {}};
}

[[maybe_unused]] const bool registered = [] {
  gsr::detail::register_method({twin::method, twin::name, &build, twin::terms});
  return true;
}();

}  // namespace
