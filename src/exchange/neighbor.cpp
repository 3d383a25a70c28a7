// exchange/neighbor.cpp — see neighbor.hpp. A call is two neighbourhood collectives over the
// graph communicator: first every rank announces to each neighbour its MessageHeader and the
// length of the block it will send (a fixed 24 bytes per edge, so this one always matches),
// then the blocks themselves (pairwise's messages: the header again, then the rows of the
// groups shared with that neighbour in ascending id order), each received with the length
// its sender announced. Both collectives are matched whatever the ranks' calls are, so a
// neighbour that disagrees about the call, or failed, is told by its announcement and never
// makes a collective erroneous. A communicator must see its collectives in the same order
// on every rank, so the two kinds run on two communicators with the same graph: every call
// posts its announcement in start, and the blocks of the calls in flight are posted in start
// order, each once its announcements are in. (On one communicator a rank that hears the
// first call's announcements before starting the second would post "blocks 1" before
// "announcements 2", and one that starts both first the other way round.)
#include "exchange/neighbor.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/neighborhood.hpp"

#include <cstdint>
#include <cstring>

namespace gsr::detail {

namespace {

/// What a rank tells a neighbour before the blocks move.
struct Announcement {
  MessageHeader header;
  std::uint64_t bytes = 0;  // the block it will send that neighbour, header included
};
static_assert(sizeof(Announcement) == 24);

}  // namespace

struct NeighborExchange::Scratch final : MethodScratch {
  std::vector<Announcement> told, heard;  // per neighbour, graph order
  std::vector<std::size_t> send_bytes, recv_bytes;
  NeighborCounts counts;
  std::string refused;         // why this rank took part without values (messages too long for MPI)
  bool blocks_posted = false;  // the second collective is posted (ws.requests.back())
};

std::unique_ptr<MethodScratch> NeighborExchange::make_scratch() const { return std::make_unique<Scratch>(); }

NeighborExchange::NeighborExchange(const ExchangeInputs& in)
    : RoutedExchange(in), silent_(in.plan.global_shared_ids == 0),
      graph_(neighbor_graph(in.comm, routes_.neighbor_ranks, in.messages.timeout)),
      blocks_(graph_.get(), in.messages.timeout) {}

std::vector<int> NeighborExchange::awaited(const Workspace& ws) const {
  return ws.done ? std::vector<int>{} : routes_.neighbor_ranks;
}

void NeighborExchange::do_start(Workspace& ws) {
  Scratch& sc = ws.scratch_as<Scratch>();
  const std::size_t nn = routes_.neighbor_ranks.size();
  std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  HeaderStatus status = ws.kernels ? HeaderStatus::ok : HeaderStatus::own_failure;
  sc.refused.clear();
  sc.blocks_posted = false;
  auto measure = [&] {
    sc.send_bytes.resize(nn);
    for (std::size_t j = 0; j < nn; ++j) sc.send_bytes[j] = routes_.message_bytes(j, row);
  };
  measure();
  try {
    NeighborCounts::check_countable(sc.send_bytes);
  } catch (const Error& e) {
    // This rank cannot send its blocks, but the others are in the collectives: take part
    // with headers alone, as a rank with bad arguments does, and fail when the call ends.
    sc.refused = e.what();
    row = 0;
    status = HeaderStatus::own_failure;
    measure();
  }
  std::size_t total = 0;
  for (std::size_t bytes : sc.send_bytes) total += bytes;
  ws.check = HeaderCheck{};
  ws.send.resize(total);
  ws.requests.clear();
  const MessageHeader header = MessageHeader::of(ws.info, status);
  // Room for one more, so that with no neighbours the buffers are still valid, distinct
  // pointers (MPI refuses NULL ones even for nothing).
  sc.told.reserve(nn + 1);
  sc.heard.reserve(nn + 1);
  sc.told.resize(nn);
  sc.heard.assign(nn, Announcement{});
  std::byte* out = ws.send.data();
  for (std::size_t j = 0; j < nn; ++j) {
    out = routes_.pack(j, header, ws.own, row, out);
    sc.told[j] = Announcement{header, sc.send_bytes[j]};
  }
  if (silent_) {  // no neighbours on any rank: nothing to announce or move
    ws.recv.clear();
    sc.blocks_posted = true;
    return;
  }
  post_neighbor_alltoall_fixed(sc.told.data(), sc.heard.data(), sizeof(Announcement), graph_.get(), ws.requests);
}

void NeighborExchange::post_blocks(Workspace& ws, Scratch& sc) {
  const std::size_t nn = routes_.neighbor_ranks.size();
  sc.recv_bytes.resize(nn);
  std::size_t total = 0;
  for (std::size_t j = 0; j < nn; ++j) total += sc.recv_bytes[j] = sc.heard[j].bytes;
  // Lengths a neighbour announced fit this MPI's counts whenever the calls agree (they are
  // this rank's own lengths then, checked in do_start).
  sc.counts.lay_out(sc.send_bytes, sc.recv_bytes);
  ws.recv.resize(total);
  post_neighbor_alltoall(ws.send.data(), ws.recv.data(), sc.counts, blocks_.get(), ws.requests);
  sc.blocks_posted = true;
}

void NeighborExchange::post_blocks_in_order() {
  for (Workspace* w = first_in_flight(); w; w = w->next_in_flight) {
    Scratch& sc = w->scratch_as<Scratch>();
    if (sc.blocks_posted) continue;
    int heard = 0;
    GSR_MPI_CHECK(MPI_Test(&w->requests.front(), &heard, MPI_STATUS_IGNORE));
    if (!heard) return;  // later calls wait for this one: the collectives keep their order
    post_blocks(*w, sc);
  }
}

bool NeighborExchange::do_progress(Workspace& ws) {
  post_blocks_in_order();
  Scratch& sc = ws.scratch_as<Scratch>();
  if (!sc.blocks_posted || !test_all(ws.requests, "neighbor collective")) return false;

  const std::size_t nn = routes_.neighbor_ranks.size();
  const std::size_t row = ws.kernels && sc.refused.empty() ? ws.info.k * ws.kernels->value_size : 0;
  ws.blocks.resize(nn + 1);
  ws.blocks[0] = ws.own;
  for (std::size_t j = 0; j < nn; ++j) {
    const MessageHeader& header = sc.heard[j].header;
    const int peer = routes_.neighbor_ranks[j];
    ws.check.check(header, nullptr, ws.info, peer);
    if (header.status == HeaderStatus::ok && ws.kernels)
      ws.check.check_size(sc.recv_bytes[j], routes_.message_bytes(j, row), ws.info, peer);
    ws.blocks[1 + j] = ws.recv.data() + sc.counts.recv_at[j] + sizeof(MessageHeader);
  }
  if (!sc.refused.empty()) throw Error(ErrorCode::invalid_argument, sc.refused);
  return combine_blocks(ws);
}

}  // namespace gsr::detail
