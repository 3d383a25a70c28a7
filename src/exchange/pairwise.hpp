// exchange/pairwise.hpp — one message to and one from each neighbouring rank per call.
// Every holder of a shared group sends its partial to every other holder, and every holder
// combines all partials in ascending rank order: one round of latency, bitwise-equal copies.
#pragma once

#include "exchange/exchange.hpp"

namespace gsr::detail {

/// Who this rank exchanges with and what: one message each way per neighbour, carrying the
/// rows of the groups they share. Also the plan of the neighbor method, which moves the
/// same messages in one neighbourhood collective.
struct NeighborRoutes {
  explicit NeighborRoutes(const ExchangeInputs& inputs);

  std::size_t shared_groups = 0;
  std::vector<int> neighbor_ranks;  // ascending
  Csr<index_t> neighbor_groups;     // row j: shared groups held with neighbour j, ascending
  CombineMap combine;               // slot 0: own partials, slot 1 + j: neighbour j's values

  /// A message to or from neighbour j: the header, then one row per group they share.
  std::size_t message_bytes(std::size_t j, std::size_t row_bytes) const {
    return sizeof(MessageHeader) + neighbor_groups.row(j).size() * row_bytes;
  }
  /// Writes the header and this rank's rows for neighbour j at `out`; returns the end.
  std::byte* pack(std::size_t j, const MessageHeader& header, const std::byte* partials, std::size_t row_bytes,
                  std::byte* out) const;
  std::vector<StageStats> stages() const;
  std::vector<MessageStats> messages() const;
  std::size_t bytes() const noexcept;

private:
  std::size_t neighbor_index(int rank) const;
};

/// A method that moves NeighborRoutes' messages (pairwise, neighbor): the statistics are the
/// routes'; how the messages travel is the subclass's.
class RoutedExchange : public Exchange {
public:
  explicit RoutedExchange(const ExchangeInputs& inputs) : routes_(inputs) {}

  std::vector<StageStats> stages() const override { return routes_.stages(); }
  std::vector<MessageStats> messages() const override { return routes_.messages(); }
  int neighbors() const noexcept override { return static_cast<int>(routes_.neighbor_ranks.size()); }
  std::size_t bytes() const noexcept override { return routes_.bytes(); }

protected:
  /// The end of a call once every block is in (ws.blocks): nothing more if this rank's own
  /// arguments were bad, else the headers' verdict, then the routes' combine map over the
  /// blocks for the handle to fold. Returns true (the call is complete).
  bool combine_blocks(Workspace& ws) const;

  NeighborRoutes routes_;
};

class PairwiseExchange final : public RoutedExchange {
public:
  explicit PairwiseExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::pairwise; }
  std::vector<int> awaited(const Workspace& ws) const override;

private:
  /// Posts the receives of the neighbours' heads. With one neighbour that shares every
  /// shared group (P = 2, or a slab's end), the message body is the partials in order: they
  /// are gathered straight into the send buffer, after room for the header.
  std::byte* open(Workspace& ws, std::size_t bytes) override;
  void begin(Workspace& ws) override;
  bool advance(Workspace& ws) override;
  /// Cancels the head receives still posted, for a call that stops with an error.
  void drain_receives(Workspace& ws) noexcept;

  MPI_Comm comm_;
};

}  // namespace gsr::detail
