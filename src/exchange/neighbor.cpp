// exchange/neighbor.cpp — see neighbor.hpp. The block to / from neighbour j is pairwise's
// message: a MessageHeader, then the rows of the groups shared with j in ascending id order.
#include "exchange/neighbor.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/neighborhood.hpp"

#include <cstring>

namespace gsr::detail {

namespace {

// Written where each block's header will land before the collective is posted: a block
// that MPI did not deliver (MPICH drops a block longer than expected, without an error)
// still says so afterwards.
constexpr auto not_delivered = static_cast<HeaderStatus>(0xFFFFFFFFu);

bool agrees(const MessageHeader& h, const CallInfo& mine) {
  return h.status == HeaderStatus::ok && h.signature == mine.signature() && h.call == mine.call_tag();
}

}  // namespace

struct NeighborExchange::Scratch final : MethodScratch {
  std::vector<std::size_t> send_bytes, recv_bytes;
  NeighborCounts counts;
  std::string refused;  // why this rank took part without values (messages too long for MPI)
  // After a collective with a problem: the neighbours whose block was missing or disagreed,
  // with whom headers are exchanged again, point to point.
  bool following_up = false;
  std::vector<std::size_t> follow_up;  // neighbour indices
  std::vector<bool> answered;
  MessageHeader own_header;
};

NeighborExchange::NeighborExchange(const ExchangeInputs& in)
    : comm_(in.comm), routes_(in), graph_(neighbor_graph(in.comm, routes_.neighbor_ranks)) {}

std::vector<int> NeighborExchange::awaited(const Workspace& ws) const {
  return ws.done ? std::vector<int>{} : routes_.neighbor_ranks;
}

void NeighborExchange::begin(Workspace& ws) {
  Scratch& sc = ws.scratch_as<Scratch>();
  const std::size_t nn = routes_.neighbor_ranks.size();
  std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  HeaderStatus status = ws.kernels ? HeaderStatus::ok : HeaderStatus::own_failure;
  sc.refused.clear();
  sc.following_up = false;
  auto lay_out = [&] {
    sc.send_bytes.resize(nn);
    for (std::size_t j = 0; j < nn; ++j) sc.send_bytes[j] = routes_.message_bytes(j, row);
    sc.recv_bytes = sc.send_bytes;  // each neighbour sends as many rows as it receives
    sc.counts.lay_out(sc.send_bytes, sc.recv_bytes);
  };
  try {
    lay_out();
  } catch (const Error& e) {
    // This rank cannot post its messages, but the others are in the collective: take part
    // with headers alone, as a rank with bad arguments does, and fail when it completes.
    sc.refused = e.what();
    row = 0;
    status = HeaderStatus::own_failure;
    lay_out();
  }
  std::size_t total = 0;
  for (std::size_t bytes : sc.send_bytes) total += bytes;
  ws.tag = tags_.next();  // for the follow-up only; every rank draws one per call
  ws.check = HeaderCheck{};
  ws.send.resize(total);
  ws.recv.resize(total);
  ws.requests.clear();
  sc.own_header = MessageHeader::of(ws.info, status);
  std::byte* out = ws.send.data();
  const MessageHeader poison{0, not_delivered, 0};
  for (std::size_t j = 0; j < nn; ++j) {
    out = routes_.pack(j, sc.own_header, ws.partials.data(), row, out);
    std::memcpy(ws.recv.data() + sc.counts.recv_at[j], &poison, sizeof poison);
  }
  post_neighbor_alltoall(ws.send.data(), ws.recv.data(), sc.counts, graph_.get(), ws.requests);
}

bool NeighborExchange::advance(Workspace& ws) {
  if (!test_all(ws.requests, "neighbor collective")) return false;
  Scratch& sc = ws.scratch_as<Scratch>();
  if (!sc.following_up && !look_at_blocks(ws, sc)) return false;
  if (sc.following_up && !hear_follow_up(ws, sc)) return false;
  if (!sc.refused.empty()) throw Error(ErrorCode::invalid_argument, sc.refused);
  if (!ws.kernels) return true;  // this rank's own arguments were bad; the handle says so
  ws.check.throw_if_failed();
  const std::size_t row = ws.info.k * ws.kernels->value_size;
  ws.results.resize(routes_.shared_groups * row);
  ws.kernels->combine(ws.results.data(), ws.info.k, ws.blocks.data(), routes_.combine);
  return true;
}

bool NeighborExchange::look_at_blocks(Workspace& ws, Scratch& sc) {
  // A neighbour whose call differs sent a block of another length: MPI delivered it cut
  // short, left part of it stale, or not at all. Either way one side holds the other's
  // header and sees the difference, and the other sees a missing or disagreeing header:
  // both exchange headers again, so that each names the other's call.
  const std::size_t nn = routes_.neighbor_ranks.size();
  ws.blocks.resize(nn + 1);
  ws.blocks[0] = ws.partials.data();
  sc.follow_up.clear();
  for (std::size_t j = 0; j < nn; ++j) {
    const std::byte* block = ws.recv.data() + sc.counts.recv_at[j];
    MessageHeader header;
    std::memcpy(&header, block, sizeof header);
    ws.blocks[1 + j] = block + sizeof header;
    if (!agrees(header, ws.info) || !agrees(sc.own_header, ws.info)) sc.follow_up.push_back(j);
  }
  if (sc.follow_up.empty()) return true;
  sc.following_up = true;
  sc.answered.assign(sc.follow_up.size(), false);
  ws.requests.clear();
  for (std::size_t j : sc.follow_up)
    post_send(&sc.own_header, sizeof sc.own_header, routes_.neighbor_ranks[j], ws.tag, comm_, ws.requests);
  return false;
}

bool NeighborExchange::hear_follow_up(Workspace& ws, Scratch& sc) {
  bool all = true;
  for (std::size_t i = 0; i < sc.follow_up.size(); ++i) {
    if (sc.answered[i]) continue;
    std::byte* into = ws.recv.data() + sc.counts.recv_at[sc.follow_up[i]];
    if (try_receive_checked(comm_, routes_.neighbor_ranks[sc.follow_up[i]], ws.tag, into, sizeof(MessageHeader),
                            ws.overflow, ws.info, ws.check))
      sc.answered[i] = true;
    else
      all = false;
  }
  return all && test_all(ws.requests, "neighbor follow-up");
}

void NeighborExchange::release_requests(Workspace& ws) noexcept {
  // The collective's request cannot be freed (MPI forbids it); the follow-up's sends can.
  const auto* sc = dynamic_cast<const Scratch*>(ws.scratch.get());
  if (sc && sc->following_up) Exchange::release_requests(ws);
}

}  // namespace gsr::detail
