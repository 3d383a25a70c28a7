// exchange/in_order.hpp — the shared base of methods whose messages (or collectives) go on
// after start returns: the crystal router's later stages, the allreduce's collective.
//
// If two ranks completed two requests of one handle in different orders, their messages
// would pair up across requests. So such a method completes its requests in start order on
// every rank, whatever order the caller waits in: waiting for a later request first
// completes the earlier ones, which keep their results (and errors) until they are waited
// for themselves.
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

class InOrderExchange : public Exchange {
public:
  void finish(Workspace& ws) final {
    complete_through(ws);
    auto* scratch = dynamic_cast<InOrderScratch*>(ws.scratch.get());
    if (scratch && scratch->error) {
      std::exception_ptr error = scratch->error;
      scratch->error = nullptr;
      std::rethrow_exception(error);
    }
  }

protected:
  /// Derived start() calls this last, once the request's first messages are out.
  void enqueue(Workspace& ws) { queue_.push_back(&ws); }

  /// Completes one request: every message, then ws.results. Records any error in the
  /// request's InOrderScratch instead of throwing.
  virtual void complete(Workspace& ws) noexcept = 0;

private:
  /// Completes every request up to and including `ws` (if still queued), in start order.
  void complete_through(Workspace& ws) {
    if (std::find(queue_.begin(), queue_.end(), &ws) == queue_.end()) return;
    for (;;) {
      Workspace* front = queue_.front();
      queue_.pop_front();
      complete(*front);
      if (front == &ws) return;
    }
  }

  std::deque<Workspace*> queue_;
};

}  // namespace gsr::detail
