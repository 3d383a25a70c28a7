// exchange/allreduce.cpp — see allreduce.hpp.
//
// Per call the dense buffer is [header: 4 words][slots]. The first collective always covers
// the header and 8 bytes per slot, a length every rank knows whatever its call, so ranks
// that disagree about the call (or whose arguments were bad) still make matching
// collectives. Its header says whether everyone agreed: OR of the signatures and OR of
// their complements share a bit exactly when two signatures differ (likewise the call
// numbers, in the two halves of one word); OR of the failed flags.
// Rows wider than 8 bytes (more than one double or two floats) take a second collective for
// the rest, made only when every rank agreed, so a plain k = 1 call costs one collective.
#include "exchange/allreduce.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/polled.hpp"
#include "transfer/sparse_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

namespace gsr::detail {

namespace {

constexpr int slot_tag = 9;              // setup: leaders send slot numbers to the other holders
constexpr std::size_t header_words = 4;  // signature, ~signature, failed, call number and its complement
constexpr std::size_t signature_word = 0, complement_word = 1, failed_word = 2, call_word = 3;
constexpr std::size_t header_bytes = header_words * sizeof(std::uint64_t);
constexpr std::size_t first_slot_bytes = 8;  // per slot in the first collective

int ceil_log2(int p) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  return rounds;
}

/// In-place bitwise-OR allreduce of `bytes` (a multiple of 4) at `data`, with the widest
/// unsigned type that divides it.
void or_allreduce(std::byte* data, std::size_t bytes, MPI_Comm comm, std::vector<MPI_Request>& requests,
                  std::size_t chunk_bytes) {
  const std::size_t width = bytes % 8 == 0 ? 8 : 4;
  post_allreduce_in_place(data, bytes / width, width == 8 ? MPI_UINT64_T : MPI_UINT32_T, width, MPI_BOR, comm, requests,
                          chunk_bytes);
}

// The lowest-rank holder of a group leads it: it numbers the group's slots.
bool leads(const ExchangeInputs& in, std::size_t s) { return in.holders.row(s)[0] == in.plan.rank; }

std::uint64_t header_word(const Workspace& ws, std::size_t word) {
  std::uint64_t value = 0;
  std::memcpy(&value, ws.recv.data() + word * sizeof value, sizeof value);
  return value;
}

}  // namespace

enum class AllreduceExchange::Phase {
  first,     // the first collective (header and 8 bytes per slot) is in flight
  second,    // rows wider than 8 bytes: the rest of them is in flight
  blame,     // some rank's arguments were bad: the lowest such rank is being found
  disagree,  // the ranks' calls differ: every rank's call is being gathered, to name one
  settled,   // nothing in flight
};

struct AllreduceExchange::Scratch final : MethodScratch {
  std::size_t row_bytes = 0;
  Phase phase = Phase::settled;
  int failed_rank = 0;               // blame: this rank if its arguments were bad, else INT_MAX; then the minimum
  std::uint64_t own_call[2] = {};    // disagree: this rank's signature and call number,
  std::vector<std::uint64_t> calls;  // and every rank's, gathered
};

std::unique_ptr<MethodScratch> AllreduceExchange::make_scratch() const { return std::make_unique<Scratch>(); }

AllreduceExchange::SlotCount AllreduceExchange::count_slots(const ExchangeInputs& in) {
  std::uint64_t led = 0;
  for (std::size_t s = 0; s < in.plan.shared_groups; ++s)
    if (leads(in, s)) led += in.holders.row(s).size();
  SlotCount count;
  exscan_polled(&led, &count.first_led, 1, MPI_UINT64_T, MPI_SUM, in.comm, in.messages.timeout);
  if (in.plan.rank == 0) count.first_led = 0;  // MPI_Exscan leaves rank 0's result undefined
  count.total = led;
  allreduce_polled(&count.total, 1, MPI_UINT64_T, MPI_SUM, in.comm, in.messages.timeout);
  return count;
}

AllreduceExchange::AllreduceExchange(const ExchangeInputs& in, SlotCount slots)
    : comm_(in.comm), chunk_bytes_(in.messages.chunk_bytes), rounds_(ceil_log2(in.plan.ranks)),
      shared_groups_(in.plan.shared_groups), total_slots_(slots.total) {
  const int me = in.plan.rank;
  std::uint64_t first = slots.first_led;
  // Leaders number their groups' slots (ascending id) and tell each other holder the first
  // slot of every group they lead and share with it, in ascending id order: both sides list
  // those groups in the same order, so no ids travel.
  std::vector<std::uint64_t> base(shared_groups_, 0);
  std::map<int, std::vector<std::uint64_t>> outgoing;  // holder -> first slots
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    if (!leads(in, s)) continue;
    base[s] = first;
    first += in.holders.row(s).size();
    for (int h : in.holders.row(s))
      if (h != me) outgoing[h].push_back(base[s]);
  }
  auto incoming = sparse_exchange(comm_, slot_tag, std::move(outgoing), chunk_bytes_, in.messages.timeout);
  std::map<int, std::size_t> taken;  // leader -> first slots used so far
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    if (leads(in, s)) continue;
    const int leader = in.holders.row(s)[0];
    const std::vector<std::uint64_t>& from = incoming[leader];
    std::size_t& next = taken[leader];
    if (next >= from.size())
      throw Error(ErrorCode::internal, "gsr: allreduce: rank " + std::to_string(leader) +
                                           " numbered fewer shared groups than this rank shares with it");
    base[s] = from[next++];
  }

  my_slot_.resize(shared_groups_);
  combine_.offsets.reserve(shared_groups_ + 1);
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    const auto holders = in.holders.row(s);
    for (std::size_t j = 0; j < holders.size(); ++j) {
      if (holders[j] == me) my_slot_[s] = base[s] + j;
      combine_.slot.push_back(0);
      combine_.index.push_back(static_cast<index_t>(base[s] + j));
    }
    combine_.offsets.push_back(combine_.slot.size());
  }
}

std::size_t AllreduceExchange::bytes() const noexcept {
  return my_slot_.capacity() * sizeof(std::uint64_t) + combine_.bytes();
}

std::size_t AllreduceExchange::call_bytes() const noexcept {
  return total_slots_ == 0 ? 0 : my_slot_.size() * sizeof(std::uint64_t) + combine_.call_bytes();
}

std::vector<MessageStats> AllreduceExchange::messages() const { return {}; }

std::vector<int> AllreduceExchange::awaited(const Workspace&) const { return {}; }

std::vector<StageStats> AllreduceExchange::stages() const {
  if (total_slots_ == 0) return {};
  // Modelled on recursive doubling: every round sends the whole buffer (k = 1 of double).
  const std::size_t values = static_cast<std::size_t>(total_slots_) + header_words;
  return {StageStats{static_cast<std::size_t>(rounds_), static_cast<std::size_t>(rounds_) * values}};
}

void AllreduceExchange::do_start(Workspace& ws) {
  // The collectives of a communicator must be issued in the same order on every rank, and
  // when an earlier call's first collective completes differs between ranks. So every
  // earlier call that may still owe its second collective issues it now, before this
  // call's first.
  for (Workspace* earlier = first_in_flight(); earlier; earlier = earlier->next_in_flight) {
    const Scratch& before = earlier->scratch_as<Scratch>();
    while (before.phase == Phase::first && !step(*earlier)) progress_all();
  }

  Scratch& sc = ws.scratch_as<Scratch>();
  ws.requests.clear();
  sc.phase = Phase::settled;
  sc.row_bytes = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  if (total_slots_ == 0) return;
  const std::size_t slots = static_cast<std::size_t>(total_slots_);
  const std::size_t length = header_bytes + slots * std::max(first_slot_bytes, sc.row_bytes);
  ws.recv.assign(length, std::byte{0});
  const std::uint64_t signature = ws.info.signature();
  const std::uint64_t call = ws.info.call_tag();
  const std::uint64_t header[header_words] = {signature, ~signature, ws.kernels ? 0u : 1u, call | (~call << 32)};
  std::memcpy(ws.recv.data(), header, header_bytes);
  if (ws.kernels) {
    std::byte* slot_data = ws.recv.data() + header_bytes;
    for (std::size_t s = 0; s < shared_groups_; ++s)
      std::memcpy(slot_data + my_slot_[s] * sc.row_bytes, ws.own + s * sc.row_bytes, sc.row_bytes);
  }
  or_allreduce(ws.recv.data(), header_bytes + slots * first_slot_bytes, comm_, ws.requests, chunk_bytes_);
  sc.phase = Phase::first;
}

bool AllreduceExchange::step(Workspace& ws) {
  Scratch& sc = ws.scratch_as<Scratch>();
  while (sc.phase != Phase::settled) {
    if (!test_all(ws.requests, "allreduce")) return false;
    ws.requests.clear();
    if (sc.phase == Phase::first && header_word(ws, failed_word) != 0) {
      // Every rank sees the failure, so every rank takes part in finding who failed.
      sc.failed_rank = ws.kernels ? std::numeric_limits<int>::max() : comm_rank(comm_);
      ws.requests.push_back(MPI_REQUEST_NULL);
      GSR_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &sc.failed_rank, 1, MPI_INT, MPI_MIN, comm_, &ws.requests.back()));
      sc.phase = Phase::blame;
      continue;
    }
    if (sc.phase == Phase::first && !agreed(ws)) {
      // Every rank sees the disagreement, so every rank gathers every rank's call, to name
      // one whose call differs from its own (as a method that hears from each rank can).
      sc.own_call[0] = ws.info.signature();
      sc.own_call[1] = ws.info.call_tag();
      sc.calls.assign(2 * static_cast<std::size_t>(comm_size(comm_)), 0);
      ws.requests.push_back(MPI_REQUEST_NULL);
      GSR_MPI_CHECK(
          MPI_Iallgather(sc.own_call, 2, MPI_UINT64_T, sc.calls.data(), 2, MPI_UINT64_T, comm_, &ws.requests.back()));
      sc.phase = Phase::disagree;
      continue;
    }
    const bool wide = ws.kernels && sc.row_bytes > first_slot_bytes;
    if (sc.phase == Phase::first && wide) {
      // Every rank agreed (else the branches above): only then is the second collective
      // the same on every rank.
      const std::size_t slots = static_cast<std::size_t>(total_slots_);
      const std::size_t first_part = header_bytes + slots * first_slot_bytes;
      or_allreduce(ws.recv.data() + first_part, slots * (sc.row_bytes - first_slot_bytes), comm_, ws.requests,
                   chunk_bytes_);
      sc.phase = Phase::second;
      continue;
    }
    sc.phase = Phase::settled;
  }
  return true;
}

bool AllreduceExchange::do_progress(Workspace& ws) {
  if (!step(ws)) return false;
  if (!ws.kernels) return true;  // this rank's own arguments were bad; the handle says so
  if (total_slots_ > 0) check_agreement(ws);
  ws.blocks.assign(1, total_slots_ > 0 ? ws.recv.data() + header_bytes : nullptr);
  ws.combine = &combine_;
  return true;
}

bool AllreduceExchange::agreed(const Workspace& ws) const {
  const std::uint64_t calls = header_word(ws, call_word);
  return header_word(ws, failed_word) == 0 &&
         (header_word(ws, signature_word) & header_word(ws, complement_word)) == 0 &&
         (calls & (calls >> 32) & 0xffffffffu) == 0;
}

void AllreduceExchange::check_agreement(Workspace& ws) const {
  const Scratch& sc = ws.scratch_as<Scratch>();
  HeaderCheck check;
  if (header_word(ws, failed_word) != 0) {
    check.rejected(sc.failed_rank, ws.info);
  } else if (!agreed(ws)) {
    for (std::size_t r = 0; 2 * r + 1 < sc.calls.size(); ++r)
      check.compare(static_cast<int>(r), sc.calls[2 * r], static_cast<std::uint32_t>(sc.calls[2 * r + 1]), ws.info);
  }
  check.throw_if_failed();
}

}  // namespace gsr::detail
