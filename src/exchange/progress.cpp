// exchange/progress.cpp — the progress engine of exchange.hpp: each method keeps its calls
// in flight in start order (an intrusive list through Workspace), and the process keeps the
// methods that have any (an intrusive list through Exchange). Nothing here allocates.
// Calls are made from one thread at a time, as with the rest of a handle.
#include "exchange/exchange.hpp"

#include "mpi/checked.hpp"

namespace gsr::detail {

namespace {
Exchange* busy_methods = nullptr;  // head of the list of methods with calls in flight
}  // namespace

Exchange::~Exchange() { unlink_busy(); }

void Exchange::unlink_busy() noexcept {
  if (prev_busy_) prev_busy_->next_busy_ = next_busy_;
  else if (busy_methods == this) busy_methods = next_busy_;
  if (next_busy_) next_busy_->prev_busy_ = prev_busy_;
  next_busy_ = prev_busy_ = nullptr;
}

void Exchange::start(Workspace& ws) {
  ws.done = false;
  ws.error = nullptr;
  ws.next_in_flight = nullptr;
  try {
    begin(ws);
  } catch (...) {
    ws.done = true;
    throw;
  }
  if (last_in_flight_) {
    last_in_flight_->next_in_flight = &ws;
  } else {
    first_in_flight_ = &ws;
    next_busy_ = busy_methods;
    prev_busy_ = nullptr;
    if (busy_methods) busy_methods->prev_busy_ = this;
    busy_methods = this;
  }
  last_in_flight_ = &ws;
  progress_all();
}

void Exchange::advance_calls() noexcept {
  while (Workspace* ws = first_in_flight_) {
    bool complete = true;
    try {
      complete = advance(*ws);
    } catch (...) {
      ws->error = std::current_exception();
    }
    if (!complete) return;
    ws->done = true;
    first_in_flight_ = ws->next_in_flight;
    ws->next_in_flight = nullptr;
    if (!first_in_flight_) {
      last_in_flight_ = nullptr;
      unlink_busy();
    }
  }
}

void Exchange::progress_all() noexcept {
  for (Exchange* method = busy_methods; method;) {
    Exchange* next = method->next_busy_;  // advance_calls may unlink `method`
    method->advance_calls();
    method = next;
  }
}

void Exchange::finish(Workspace& ws) {
  while (!ws.done) progress_all();
  if (ws.error) {
    std::exception_ptr error = ws.error;
    ws.error = nullptr;
    std::rethrow_exception(error);
  }
}

}  // namespace gsr::detail
