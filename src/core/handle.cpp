// core/handle.cpp — the per-call path (validate, local gather -> exchange -> local
// scatter), the Handle's other members and Request. Setup is in core/setup.cpp.
#include "core/handle_state.hpp"
#include "exchange/registry.hpp"
#include "mpi/threads.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

namespace gsr {
namespace detail {

namespace {

// Entries whose values enter a group's reduction, and entries that receive it.
const EntryMap& contributing(const Plan& plan, Transpose t) noexcept {
  return t == Transpose::yes || !plan.any_flagged ? plan.all_entries : plan.unflagged_entries;
}
const EntryMap& receiving(const Plan& plan, Transpose t) noexcept {
  return t == Transpose::no || !plan.any_flagged ? plan.all_entries : plan.unflagged_entries;
}

// The call's value work (handle_state.hpp), inlined into HandleState::start and finish:
// as functions of their own they cost 85 instructions more per call than inlined code
// (which costs 23 more than the code before them; callgrind, docs/performance.md). Auto's timed calls reach the same
// code through the exported functions below.
[[gnu::always_inline]] inline void gather_and_start_here(const Plan& plan, Exchange& exchange, Workspace& ws,
                                                         const DataRef& data) {
  const Kernels& kernels = *ws.kernels;
  const EntryMap& contrib = contributing(plan, ws.info.transpose);
  const std::size_t row_bytes = ws.info.k * kernels.value_size;
  std::byte* const partials = exchange.prepare(ws, plan.shared_groups * row_bytes);
  ws.own = partials;
  if (!plan.any_flagged) {
    for (const Plan::SharedRun& run : plan.shared_runs)
      kernels.gather_sized(data, run.size, plan.shared_fixed_entries.data() + run.first,
                           plan.shared_fixed_rows.data() + run.first_row, run.groups, partials);
    for (const index_t r : plan.shared_other_rows) kernels.gather(data, contrib, r, r + 1, partials + r * row_bytes);
  } else {
    kernels.gather(data, contrib, 0, plan.shared_groups, partials);
  }
  exchange.start(ws);
}

// MPI moves a message only while the ranks are inside MPI: MPICH copies a message into the
// receiver, and answers a large one's handshake, in its progress engine. So the messages a
// call has started travel during its local pass only if the pass stops now and then to make
// progress, every progress_stride_bytes of the values it touches (4 times for gs on a rank's
// 8^3 elements of order 7 at P = 2; docs/performance.md, "Progress stops in the local
// pass"). With no call in flight a stop tests an empty list.
inline constexpr std::size_t progress_stride_bytes = 256 * 1024;

[[gnu::always_inline]] inline void reduce_alone_here(const Plan& plan, const Workspace& ws, const DataRef& data,
                                                     std::size_t prefetch_from_bytes) {
  const Kernels& kernels = *ws.kernels;
  const std::size_t entry_bytes = ws.info.k * kernels.value_size;
  const std::size_t shared = plan.shared_groups, rows = plan.all_entries.rows();
  if (rows > shared) {
    const EntryMap& contrib = contributing(plan, ws.info.transpose);
    const EntryMap& receive = receiving(plan, ws.info.transpose);
    const auto& offsets = plan.all_entries.offsets;
    const std::size_t stride = std::max<std::size_t>(1, progress_stride_bytes / entry_bytes);  // entries
    for (std::size_t g = shared; g < rows;) {
      // Up to the first row that begins a stride of entries past row g, at least one row.
      const auto next =
          std::lower_bound(offsets.begin() + static_cast<std::ptrdiff_t>(g) + 1, offsets.end(), offsets[g] + stride);
      const std::size_t end = std::min(static_cast<std::size_t>(next - offsets.begin()), rows);
      kernels.reduce_local(data, contrib, receive, g, end);
      g = end;
      if (g < rows) Exchange::progress_all();
    }
  }
  const index_t* const prefetch_end =
      plan.n * entry_bytes >= prefetch_from_bytes ? plan.fixed_entries.data() + plan.fixed_entries.size() : nullptr;
  std::size_t since_progress = 0;  // bytes
  for (const Plan::FixedRun& run : plan.fixed_runs) {
    // Runs are a tile's groups of one size, but one size may fill many tiles (a mesh with
    // only one size of group): a run longer than a stride is cut.
    const std::size_t group_bytes = run.size * entry_bytes;
    for (std::size_t done = 0; done < run.groups;) {
      std::size_t take = run.groups - done;
      if (take * group_bytes > progress_stride_bytes - since_progress)
        take = std::max<std::size_t>(1, (progress_stride_bytes - since_progress) / group_bytes);
      kernels.reduce_fixed(data, run.size, plan.fixed_entries.data() + run.first + done * run.size, take, prefetch_end);
      done += take;
      since_progress += take * group_bytes;
      if (since_progress >= progress_stride_bytes) {
        Exchange::progress_all();
        since_progress = 0;
      }
    }
  }
}

[[gnu::always_inline]] inline void fold_and_scatter_here(const Plan& plan, const Workspace& ws, const DataRef& data) {
  const Kernels& kernels = *ws.kernels;
  const std::byte* const* blocks = ws.blocks.data();
  const CombineMap& map = *ws.combine;
  const EntryMap& receive = receiving(plan, ws.info.transpose);
  if (!plan.any_flagged) {
    for (const Plan::SharedRun& run : plan.shared_runs)
      kernels.combine_scatter_sized(data, run.size, plan.shared_fixed_entries.data() + run.first,
                                    plan.shared_fixed_rows.data() + run.first_row, run.groups, blocks, map);
    for (const index_t r : plan.shared_other_rows) kernels.combine_scatter(data, receive, r, r + 1, blocks, map);
  } else {
    kernels.combine_scatter(data, receive, 0, plan.shared_groups, blocks, map);
  }
}

}  // namespace

void gather_and_start(const Plan& plan, Exchange& exchange, Workspace& ws, const DataRef& data) {
  gather_and_start_here(plan, exchange, ws, data);
}
void reduce_alone(const Plan& plan, const Workspace& ws, const DataRef& data, std::size_t prefetch_from_bytes) {
  reduce_alone_here(plan, ws, data, prefetch_from_bytes);
}
void fold_and_scatter(const Plan& plan, const Workspace& ws, const DataRef& data) {
  fold_and_scatter_here(plan, ws, data);
}

std::string HandleState::validate(const DataRef& data, std::size_t length, const CallInfo& info,
                                  const Kernels*& kernels) const {
  kernels = nullptr;
  if (!valid_domain(static_cast<int>(info.dom)))
    return "gsr: unknown domain code " + std::to_string(static_cast<int>(info.dom)) +
           " (expected double, float, int or long)";
  if (!valid_op(static_cast<int>(info.op)))
    return "gsr: unknown op code " + std::to_string(static_cast<int>(info.op)) +
           " (expected add, mul, min, max or bpr)";
  const Kernels* found = find_kernels(info.dom, info.op);
  if (!found) return "gsr: op bpr is defined for integer domains only, not " + std::string(to_string(info.dom));
  if (info.transpose != Transpose::no && info.transpose != Transpose::yes)
    return "gsr: transpose must be 0 or 1, not " + std::to_string(static_cast<int>(info.transpose));
  if (info.k == 0) return "gsr: k must be at least 1";
  if (info.k > std::numeric_limits<std::uint32_t>::max()) return "gsr: k = " + std::to_string(info.k) + " is too large";
  const std::size_t n = plan.n;
  // The call's arrays and buffers hold up to max(n, the largest message) rows of k values;
  // their sizes in bytes must be representable (messages themselves may exceed 2 GiB).
  const std::size_t rows = std::max<std::size_t>({n, max_message_values, 1});
  std::size_t largest_bytes = 0;  // a multiplication, not a division: this runs on every call
  if (__builtin_mul_overflow(info.k, rows * size_of(info.dom), &largest_bytes) ||
      largest_bytes > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()))
    return "gsr: k = " + std::to_string(info.k) + " with " + std::to_string(rows) +
           " rows would need arrays of more than 2^63 bytes";
  if (info.many) {
    if (n > 0 && !data.arrays) return "gsr: the array of " + std::to_string(info.k) + " data pointers is NULL";
    if (n > 0)
      for (std::size_t c = 0; c < info.k; ++c)
        if (!data.arrays[c])
          return "gsr: data array " + std::to_string(c) + " of " + std::to_string(info.k) +
                 " is NULL with n = " + std::to_string(n) + " entries";
  } else {
    if (!data.base && n > 0) return "gsr: data is NULL with n = " + std::to_string(n) + " entries";
    if (length != n * info.k)
      return "gsr: data has " + std::to_string(length) + " values, expected n * k = " + std::to_string(n) + " * " +
             std::to_string(info.k) + " = " + std::to_string(n * info.k);
  }
  kernels = found;
  return {};
}

Exchange& HandleState::exchange_for(std::size_t entry_bytes) const {
  std::uint8_t serving = 0;  // ranges are few (one per method), so a scan beats a search
  for (const MethodRange& range : ranges)
    if (range.entry_bytes <= entry_bytes) serving = range.exchange;
  return *exchanges[serving];
}

HandleState::Slot& HandleState::idle_slot(const Kernels* kernels, std::size_t k, const Exchange& exchange,
                                          std::size_t& index) {
  // Reuse an idle slot of this method (a workspace serves the one method whose prepare
  // bound it, and holds that method's scratch; a fresh slot is bound by this call's),
  // preferably one whose buffers already fit this (type, k).
  index = slots.size();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Workspace& ws = slots[i]->ws;
    if (slots[i]->busy || (ws.exchange && ws.exchange != &exchange)) continue;
    const bool fits = kernels && ws.kernels && ws.kernels->value_size == kernels->value_size && ws.info.k == k;
    if (index == slots.size() || fits) index = i;
    if (fits) break;
  }
  if (index == slots.size()) slots.push_back(std::make_unique<Slot>());
  return *slots[index];
}

CallInfo HandleState::numbered(const CallInfo& info) noexcept {
  CallInfo call = info;
  call.call = ++ledger.calls;
  call.handle = ledger.serial;
  return call;
}

void HandleState::waiting(const Workspace& ws, double seconds) {
  auto call = [&] {
    return "gsr: handle #" + std::to_string(ledger.serial) + ", call #" + std::to_string(ws.info.call);
  };
  if (const std::optional<FreeNotice> gone = ledger.listen(ws.info.call))
    throw Error(ErrorCode::mismatch, call() + ": rank " + std::to_string(gone->rank) +
                                         " freed this handle (or reached MPI_Finalize) after " +
                                         std::to_string(gone->calls) +
                                         " calls, so it will never join this call; "
                                         "a rank skipped or added a call");
  if (ledger.timeout <= 0 || seconds <= ledger.timeout) return;
  std::string ranks;
  for (int r : ws.exchange->awaited(ws)) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  char waited[64];
  std::snprintf(waited, sizeof waited, "%.1f s (GSR_TIMEOUT = %g s)", seconds, ledger.timeout);
  throw Error(ErrorCode::timeout, call() + " (" + ws.info.describe() + ", method " +
                                      std::string(to_string(ws.exchange->method())) + ") waited " + waited + " for " +
                                      (ranks.empty() ? "all ranks (a collective)" : "rank(s) " + ranks) +
                                      "; did a rank skip this call, or stop?");
}

void HandleState::check_thread(const CallInfo* waiting) const {
  if (pending == 0 || calls_owner == Exchange::progress_owner()) return;
  // Why the other thread's calls were given up on, if they were: its exit, say.
  std::string given_up;
  for (const auto& exchange : exchanges)
    if (!exchange->abandoned().empty()) {
      given_up = "; its calls were given up on: " + exchange->abandoned();
      break;
    }
  if (waiting)
    throw Error(ErrorCode::state, waiting->where() +
                                      "the request was started on another thread, and only that "
                                      "thread can wait for it (it stays in flight)" +
                                      given_up);
  throw Error(ErrorCode::state,
              "gsr: calls of this handle started on another thread are in flight; wait for them on "
              "that thread before calling from this one" +
                  given_up);
}

void HandleState::fail_call(const CallInfo& unnumbered, ErrorCode code, const std::string& message) {
  check_thread(nullptr);
  const CallInfo info = numbered(unnumbered);
  // The method the other ranks use for this call, if this rank's domain and k are valid.
  const bool sized =
      valid_domain(static_cast<int>(info.dom)) && info.k >= 1 && info.k <= std::numeric_limits<std::uint32_t>::max();
  Exchange& exchange = sized ? exchange_for(size_of(info.dom) * info.k) : *exchanges.front();
  std::size_t index = 0;
  Slot& slot = idle_slot(nullptr, info.k, exchange, index);
  slot.ws.info = info;
  slot.ws.kernels = nullptr;  // no data: the headers say own_failure
  exchange.prepare(slot.ws, 0);
  slot.ws.own = nullptr;
  exchange.start(slot.ws);
  finish_exchange(slot.ws);
  throw Error(code, message);
}

void HandleState::finish_exchange(Workspace& ws) {
  try {
    ws.exchange->finish(ws, this);
  } catch (...) {
    // A method that gave up takes the handle's other methods with it (exchange.hpp).
    const std::string& why = ws.exchange->abandoned();
    if (!why.empty())
      for (const auto& other : exchanges) other->give_up(why);
    throw;
  }
}

std::size_t HandleState::start(const DataRef& data, std::size_t length, const CallInfo& unnumbered) {
  check_thread(nullptr);
  const Kernels* kernels = nullptr;
  const std::string problem = validate(data, length, unnumbered, kernels);
  if (!problem.empty()) fail_call(unnumbered, ErrorCode::invalid_argument, problem);
  if (pending + 1 >= CallTags::span)
    fail_call(unnumbered, ErrorCode::state,
              "gsr: " + std::to_string(pending) +
                  " requests of this handle are in flight; wait for some before starting more");
  const CallInfo info = numbered(unnumbered);

  Exchange& exchange = exchange_for(kernels->value_size * info.k);
  std::size_t index = 0;
  Slot& slot = idle_slot(kernels, info.k, exchange, index);
  slot.ws.info = info;
  slot.ws.kernels = kernels;
  slot.busy = true;
  slot.data = data;
  if (data.many && data.arrays) {
    slot.arrays.assign(data.arrays, data.arrays + info.k);
    slot.data.arrays = slot.arrays.data();
  }
  if (pending++ == 0) calls_owner = Exchange::progress_owner();  // check_thread kept later calls to this owner
  try {
    gather_and_start_here(plan, exchange, slot.ws, data);
  } catch (...) {
    slot.busy = false;
    --pending;
    throw;
  }
  reduce_alone_here(plan, slot.ws, data, prefetch_from_bytes);
  return index;
}

void HandleState::finish(std::size_t index) {
  Slot& slot = *slots.at(index);
  if (!slot.busy) throw Error(ErrorCode::state, "gsr: request already completed");
  struct Release {
    HandleState& state;
    Slot& slot;
    ~Release() {
      slot.busy = false;
      --state.pending;
    }
  } release{*this, slot};
  finish_exchange(slot.ws);
  fold_and_scatter_here(plan, slot.ws, slot.data);
}

}  // namespace detail

// ---- Handle ------------------------------------------------------------------------

Handle::~Handle() = default;
Handle::Handle(Handle&&) noexcept = default;
Handle& Handle::operator=(Handle&&) noexcept = default;

namespace {
detail::HandleState& live(const std::shared_ptr<detail::HandleState>& state) {
  if (!state) throw Error(ErrorCode::state, "gsr: the handle was moved from");
  return *state;
}
}  // namespace

// A blocking call is a start and a finish on the handle's state, without the Request's
// share of it (two atomic reference-count updates per call).
void Handle::apply_vec(void* u, std::size_t length, std::size_t k, Domain dom, Op op, Transpose t) {
  auto& s = live(state_);
  const detail::ThreadEntry entry(&s.in_use);
  s.finish(s.start(detail::DataRef{u, nullptr, k, false}, length, detail::CallInfo{dom, op, t, k, false}));
}

void Handle::apply_many(void* const* arrays, std::size_t k, Domain dom, Op op, Transpose t) {
  auto& s = live(state_);
  const detail::ThreadEntry entry(&s.in_use);
  s.finish(s.start(detail::DataRef{nullptr, arrays, k, true}, 0, detail::CallInfo{dom, op, t, k, true}));
}

Request Handle::start_vec(void* u, std::size_t length, std::size_t k, Domain dom, Op op, Transpose t) {
  auto& s = live(state_);
  const detail::ThreadEntry entry(&s.in_use);
  detail::DataRef data{u, nullptr, k, false};
  const std::size_t slot = s.start(data, length, detail::CallInfo{dom, op, t, k, false});
  return Request(state_, slot);
}

Request Handle::start_many(void* const* arrays, std::size_t k, Domain dom, Op op, Transpose t) {
  auto& s = live(state_);
  const detail::ThreadEntry entry(&s.in_use);
  detail::DataRef data{nullptr, arrays, k, true};
  const std::size_t slot = s.start(data, 0, detail::CallInfo{dom, op, t, k, true});
  return Request(state_, slot);
}

bool progress() {
  const detail::ThreadEntry entry(nullptr);
  detail::Exchange::progress_all();
  return !detail::Exchange::any_in_flight();
}

std::size_t Handle::size() const noexcept { return state_ ? state_->plan.n : 0; }
MPI_Comm Handle::comm() const noexcept { return state_ ? state_->comm.get() : MPI_COMM_NULL; }

void Handle::fail_call(ErrorCode code, const std::string& message, Domain dom, std::size_t k) {
  detail::CallInfo info;
  info.dom = dom;
  info.k = k;
  auto& s = live(state_);
  const detail::ThreadEntry entry(&s.in_use);
  s.fail_call(info, code, message);
}
std::size_t Handle::pending_requests() const noexcept { return state_ ? state_->pending : 0; }

const Stats& Handle::stats() const {
  auto& s = live(state_);
  std::size_t buffers = 0;
  for (const auto& slot : s.slots) buffers += slot->ws.bytes();
  s.stats.buffer_bytes = buffers;
  return s.stats;
}

std::string Handle::summary() const {
  const Stats& st = stats();
  std::ostringstream out;
  auto spread = [&](const char* what, const Spread& sp) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-24s min %-12.6g avg %-12.6g max %.6g\n", what, sp.min, sp.avg, sp.max);
    out << line;
  };
  out << "gsr: gather-scatter handle on " << st.ranks << " rank" << (st.ranks == 1 ? "" : "s") << "\n";
  out << "  shared ids (all ranks)   " << st.global_shared_ids << "\n";
  out << "  method                   " << to_string(st.method) << " (" << st.method_reason << ")\n";
  for (const auto& t : st.auto_timings) {
    out << "    candidate " << to_string(t.method) << ": ";
    if (t.seconds_per_call >= 0)
      out << t.seconds_per_call * 1e6 << " us/call";
    else
      out << "not measured";
    if (t.predicted_seconds > 0) out << " (alpha-beta model: " << t.predicted_seconds * 1e6 << " us)";
    if (!t.note.empty()) out << " [" << t.note << "]";
    out << "\n";
  }
  if (st.auto_seconds > 0) out << "    auto spent " << st.auto_seconds * 1e3 << " ms measuring\n";
  for (std::size_t i = 0; i < st.methods_by_size.size(); ++i) {
    const SizeMethod& range = st.methods_by_size[i];
    out << "    calls of " << range.entry_bytes;
    if (i + 1 < st.methods_by_size.size())
      out << "-" << st.methods_by_size[i + 1].entry_bytes - 1;
    else
      out << " and more";
    out << " bytes per entry (value size x k): " << to_string(range.method) << "\n";
  }
  out << "  per call (this rank)     " << st.messages_per_call << " messages, " << st.values_per_call
      << " values per component\n";
  if (detail::method_entry(st.method).terms.routing == detail::Routing::router)  // stages of their own
    for (std::size_t d = 0; d < st.stages.size(); ++d)
      out << "    stage " << d << ": " << st.stages[d].messages << " message" << (st.stages[d].messages == 1 ? "" : "s")
          << ", " << st.stages[d].values << " values\n";
  spread("neighbours per rank", st.neighbors_spread);
  spread("bytes per call (double)", st.bytes_spread);
  spread("handle memory (bytes)", st.memory_spread);
  return out.str();
}

std::string Handle::summary_line() const {
  const Stats& st = stats();
  std::ostringstream out;
  out << "gsr gs_setup: " << st.global_shared_ids << (st.global_shared_ids == 1 ? " id" : " ids") << " shared on "
      << st.ranks << " rank" << (st.ranks == 1 ? "" : "s") << ", method " << to_string(st.method) << " ("
      << st.method_reason << ")";
  for (const SizeMethod& range : st.methods_by_size)
    out << (range.entry_bytes == 0 ? "; by call size: " : ", ") << to_string(range.method) << " from "
        << range.entry_bytes << " B per entry";
  return out.str();
}

// ---- Request -----------------------------------------------------------------------

namespace {
// A pending request being destroyed or overwritten is waited for; an error then has
// nowhere to go but stderr, which beats losing it.
void wait_unowned(Request& request) noexcept {
  try {
    request.wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gsr: a pending request was destroyed and its wait failed: %s\n", e.what());
  }
}
}  // namespace

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    if (pending()) wait_unowned(*this);
    state_ = std::move(other.state_);
    slot_ = other.slot_;
  }
  return *this;
}

Request::~Request() {
  if (pending()) wait_unowned(*this);
}

void Request::wait() {
  if (!state_) throw Error(ErrorCode::state, "gsr: wait on a request that is not pending");
  // A copy, declared before `entry`: if this request is the state's last owner, the state
  // must outlive the entry, which releases the state's flag.
  const std::shared_ptr<detail::HandleState> state = state_;
  const detail::ThreadEntry entry(&state->in_use);
  state->check_thread(&state->slots.at(slot_)->ws.info);  // refused on another thread: still pending
  state_.reset();
  state->finish(slot_);
}

}  // namespace gsr
