// exchange/pairwise.hpp — one message to and one from each neighbouring rank per call.
// Every holder of a shared group sends its partial to every other holder, and every holder
// combines all partials in ascending rank order: one round of latency, bitwise-equal copies.
#pragma once

#include "exchange/routes.hpp"

namespace gsr::detail {

class PairwiseExchange : public RoutedExchange {
public:
  explicit PairwiseExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::pairwise; }
  std::vector<int> awaited(const Workspace& ws) const override;
  /// The routes', without the message's groups when the partials are gathered in place.
  std::size_t call_bytes() const noexcept override;

private:
  struct Scratch;
  /// Posts the receives of the neighbours' heads. With one neighbour that shares every
  /// shared group (P = 2, or a slab's end), the message body is the partials in order: they
  /// are gathered straight into the send buffer, after room for the header.
  std::byte* do_prepare(Workspace& ws, std::size_t bytes) override;
  void do_start(Workspace& ws) override;
  bool do_progress(Workspace& ws) override;
  std::unique_ptr<MethodScratch> make_scratch() const override;
  /// Cancels the head receives still posted, and frees the sends.
  void release_requests(Workspace& ws) noexcept override;
  /// Cancels the head receives still posted, for a call that stops with an error.
  void drain_receives(Workspace& ws) noexcept;
  /// A call's requests: a head receive per neighbour (posted by do_prepare), then the sends.
  std::span<MPI_Request> receives(Workspace& ws) const noexcept {
    return {ws.requests.data(), routes_.neighbor_ranks.size()};
  }
  std::span<MPI_Request> sends(Workspace& ws) const noexcept {
    return std::span(ws.requests).subspan(routes_.neighbor_ranks.size());
  }

  MPI_Comm comm_;
  std::size_t chunk_bytes_;  // mpi/messages.hpp
};

}  // namespace gsr::detail
