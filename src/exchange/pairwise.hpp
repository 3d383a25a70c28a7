// exchange/pairwise.hpp — one message to and one from each neighbouring rank per call.
// Every holder of a shared group sends its partial to every other holder, and every holder
// combines all partials in ascending rank order: one round of latency, bitwise-equal copies.
#pragma once

#include "exchange/exchange.hpp"

namespace gsr::detail {

class PairwiseExchange final : public Exchange {
public:
  explicit PairwiseExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::pairwise; }
  std::vector<StageStats> stages() const override;
  std::vector<MessageStats> messages() const override;
  int neighbors() const noexcept override { return static_cast<int>(neighbor_ranks_.size()); }
  std::size_t bytes() const noexcept override;
  std::vector<int> awaited(const Workspace& ws) const override;

private:
  void begin(Workspace& ws) override;
  bool advance(Workspace& ws) override;
  std::size_t neighbor_index(int rank) const;
  std::size_t message_bytes(std::size_t j, std::size_t row_bytes) const;

  MPI_Comm comm_;
  std::size_t shared_groups_ = 0;
  std::vector<int> neighbor_ranks_;     // ascending
  Csr<index_t> neighbor_groups_;        // row j: shared groups held with neighbour j, ascending
  CombineMap combine_;                  // slot 0: own partials, slot 1 + j: neighbour j's values
  CallTags tags_;
};

}  // namespace gsr::detail
