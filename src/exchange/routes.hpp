// exchange/routes.hpp — the routes shared by the methods that send one message to and from
// each neighbouring rank (pairwise by point-to-point messages, neighbor by a neighbourhood
// collective): who the neighbours are, which shared groups each message carries, and how
// the blocks that arrive fold into each group's value. The methods differ only in how the
// messages travel.
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
  /// What one call reads of the routes (Exchange::call_bytes): the neighbours and their
  /// rows' offsets, the groups of every message when `packed` (pack), and the fold map.
  std::size_t call_bytes(bool packed) const noexcept;

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

}  // namespace gsr::detail
