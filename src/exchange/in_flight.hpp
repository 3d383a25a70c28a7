// exchange/in_flight.hpp — the requests a multi-step method has started and not completed,
// in start order.
//
// The crystal router's later stages and the allreduce's second collective happen after
// start returns. If two ranks completed two requests of one handle in different orders,
// their messages (or collectives) would pair up across requests. So such a method completes
// requests in start order on every rank, whatever order the caller waits in: waiting for a
// later request first completes the earlier ones, which keep their results (and errors)
// until they are waited for themselves.
#pragma once

#include "exchange/exchange.hpp"

#include <algorithm>
#include <deque>
#include <exception>

namespace gsr::detail {

/// Per-request bookkeeping every in-order method keeps in its Workspace scratch.
struct InOrderScratch : MethodScratch {
  std::exception_ptr error;  // what completing the request threw, rethrown at its finish
};

class InFlight {
public:
  void push(Workspace& ws) { queue_.push_back(&ws); }

  /// Completes every request up to and including `ws` (if still queued), in start order.
  /// `complete(Workspace&)` must not throw; it records errors in the request's scratch.
  template <class Complete>
  void complete_through(Workspace& ws, Complete&& complete) {
    if (std::find(queue_.begin(), queue_.end(), &ws) == queue_.end()) return;
    for (;;) {
      Workspace* front = queue_.front();
      queue_.pop_front();
      complete(*front);
      if (front == &ws) return;
    }
  }

  std::size_t size() const noexcept { return queue_.size(); }

private:
  std::deque<Workspace*> queue_;
};

/// Rethrows (once) the error completing `scratch`'s request recorded.
inline void rethrow_recorded(InOrderScratch& scratch) {
  if (scratch.error) {
    std::exception_ptr error = scratch.error;
    scratch.error = nullptr;
    std::rethrow_exception(error);
  }
}

}  // namespace gsr::detail
