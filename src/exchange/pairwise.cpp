// exchange/pairwise.cpp — see pairwise.hpp. The messages are NeighborRoutes' (routes.hpp),
// sent and received point to point.
#include "exchange/pairwise.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"

#include <algorithm>
#include <cstring>

namespace gsr::detail {

struct PairwiseExchange::Scratch final : MethodScratch {
  int tag = 0;                       // this call's message tag (CallTags)
  std::vector<MPI_Status> statuses;  // of the requests, when do_progress takes them all at once
  std::vector<std::byte> overflow;   // where a message longer than expected lands

  std::size_t bytes() const noexcept override { return overflow.capacity() + statuses.capacity() * sizeof(MPI_Status); }
};

PairwiseExchange::PairwiseExchange(const ExchangeInputs& in)
    : RoutedExchange(in), comm_(in.comm), chunk_bytes_(in.messages.chunk_bytes) {}

std::unique_ptr<MethodScratch> PairwiseExchange::make_scratch() const { return std::make_unique<Scratch>(); }

std::vector<int> PairwiseExchange::awaited(const Workspace& ws) const {
  // A neighbour whose head has arrived is not awaited, though the call has not taken it
  // yet (do_progress takes all heads at once when it can).
  std::vector<int> ranks;
  for (std::size_t j = 0; j < routes_.neighbor_ranks.size(); ++j) {
    if (ws.blocks.size() <= 1 + j || ws.blocks[1 + j]) continue;
    int arrived = 0;
    if (j < ws.requests.size() && ws.requests[j] != MPI_REQUEST_NULL)
      MPI_Request_get_status(ws.requests[j], &arrived, MPI_STATUS_IGNORE);
    if (!arrived) ranks.push_back(routes_.neighbor_ranks[j]);
  }
  return ranks;
}

namespace {
// One neighbour, sharing every shared group (in ascending group order, as always).
bool whole_route(const NeighborRoutes& routes) {
  return routes.neighbor_ranks.size() == 1 && routes.neighbor_groups.items.size() == routes.shared_groups;
}

// Messages up to this long have the partials gathered straight into them (below): those the
// MPI library copies out as it sends them, on one node. MPICH 4.0 over UCX copied the 7^3
// box's 20 KB message (a 12 KB tail after the 8 KB head, exchange/protocol.hpp), and let the
// peer read the 8^3 box's 26 KB (an 18 KB tail) where it lay (a single-copy rendezvous).
// Open MPI 4.1 copied the 5^3 box's 10 KB message, and the 6^3 box's 15 KB and 7^3's 20 KB
// showed the slow fold (by 1-2 and 4 us).
#ifdef OPEN_MPI
inline constexpr std::size_t in_place_message_bytes = 12 * 1024;
#else
inline constexpr std::size_t in_place_message_bytes = 20 * 1024;
#endif

// Whether the partials are gathered straight into the message, saving the copy into it:
// with a whole route, when the message is short enough that MPI copies it out as it sends.
// A peer that reads the message where it lies takes this rank's cached lines of the partials
// with it, and the fold after it, which reads them, ran 4 us (about 80 %) longer on the 8^3
// box at P = 2 (docs/performance.md, "Where the wait's time went"): more than the copy costs.
bool gathers_in_place(const NeighborRoutes& routes, std::size_t row_bytes) {
  return whole_route(routes) && routes.message_bytes(0, row_bytes) <= in_place_message_bytes;
}
}  // namespace

std::size_t PairwiseExchange::call_bytes() const noexcept {
  return routes_.call_bytes(!gathers_in_place(routes_, sizeof(double)));
}

namespace {
// Where neighbour j's message lands: room for the whole message this call expects, and at
// least for the longest head any peer may send (a receive for it is posted in advance).
std::size_t receive_room(std::size_t expected, std::size_t head) { return std::max(expected, head); }
}  // namespace

std::byte* PairwiseExchange::do_prepare(Workspace& ws, std::size_t bytes) {
  // The receives before the gather, so that the messages land in place as they arrive.
  Scratch& sc = ws.scratch_as<Scratch>();
  const std::size_t nn = routes_.neighbor_ranks.size();
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  const std::size_t head = message_head_bytes(chunk_bytes_);
  std::size_t room = 0;
  for (std::size_t j = 0; j < nn; ++j) room += receive_room(routes_.message_bytes(j, row), head);
  sc.tag = CallTags::of(ws.info.call);
  ws.recv.resize(room);
  // Room for one send per neighbour after the receives too, and for the statuses of all.
  ws.requests.assign(nn, MPI_REQUEST_NULL);
  ws.requests.reserve(2 * nn);
  sc.statuses.resize(2 * nn);
  try {
    std::byte* in = ws.recv.data();
    for (std::size_t j = 0; j < nn; ++j) {
      post_receive(in, head, routes_.neighbor_ranks[j], sc.tag, comm_, ws.requests[j]);
      in += receive_room(routes_.message_bytes(j, row), head);
    }
    if (bytes == 0 || !gathers_in_place(routes_, row)) return Exchange::do_prepare(ws, bytes);
    ws.send.resize(sizeof(MessageHeader) + bytes);
    return ws.send.data() + sizeof(MessageHeader);
  } catch (...) {
    drain_receives(ws);
    throw;
  }
}

void PairwiseExchange::do_start(Workspace& ws) {
  // A rank whose arguments were bad sends every neighbour a header saying so.
  const int tag = ws.scratch_as<Scratch>().tag;
  const std::size_t nn = routes_.neighbor_ranks.size();
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  const MessageHeader header = MessageHeader::of(ws.info, ws.kernels ? HeaderStatus::ok : HeaderStatus::own_failure);
  std::size_t total = 0;
  for (std::size_t j = 0; j < nn; ++j) total += routes_.message_bytes(j, row);
  ws.check = HeaderCheck{};
  ws.blocks.assign(nn + 1, nullptr);  // nullptr: neighbour j's message not yet received
  ws.blocks[0] = ws.own;
  try {
    ws.send.resize(total);  // the same size if the partials were gathered into it (do_prepare)
    std::byte* out = ws.send.data();
    if (row > 0 && whole_route(routes_) && ws.own == out + sizeof(MessageHeader)) {
      // The partials were gathered in place (do_prepare): only the header is missing.
      std::memcpy(out, &header, sizeof header);
      post_call_message(out, total, routes_.neighbor_ranks[0], tag, comm_, ws.requests, chunk_bytes_);
      return;
    }
    for (std::size_t j = 0; j < nn; ++j) {
      std::byte* end = routes_.pack(j, header, ws.own, row, out);
      post_call_message(out, static_cast<std::size_t>(end - out), routes_.neighbor_ranks[j], tag, comm_, ws.requests,
                        chunk_bytes_);
      out = end;
    }
  } catch (...) {
    drain_receives(ws);
    throw;
  }
}

bool PairwiseExchange::do_progress(Workspace& ws) {
  // Each neighbour's head lands where its receive was posted; a tail, if any, is probed
  // (exchange/protocol.hpp): a neighbour that disagrees about the call may send more than
  // this rank expects.
  Scratch& sc = ws.scratch_as<Scratch>();
  const std::size_t nn = routes_.neighbor_ranks.size();
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  const std::size_t head_limit = message_head_bytes(chunk_bytes_);
  // Whether this rank's messages all go as heads alone (one send each, no tail). Then the
  // heads are taken together, with the sends, in one MPI_Testall: one look for MPI rather
  // than one per request. Not with tails of its own: a tail's send may complete only once
  // its receiver has taken the head (a rendezvous), which that receiver does only once
  // this rank's heads have come.
  const bool heads_only = ws.requests.size() == 2 * nn;
  std::size_t taking = nn;  // the neighbour whose message is being taken
  try {
    if (heads_only && !test_all(ws.requests, "gs message exchange", sc.statuses.data())) return false;
    bool all_received = true;
    std::byte* in = ws.recv.data();
    for (std::size_t j = 0; j < nn; ++j) {
      const std::size_t length = routes_.message_bytes(j, row);
      const std::size_t room = receive_room(length, head_limit);
      if (!ws.blocks[1 + j]) {
        taking = j;
        std::optional<std::size_t> head;
        if (heads_only)
          head = bytes_of(sc.statuses[j]);
        else
          head = test_receive(ws.requests[j], "gs message receive");
        if (head) {
          const std::byte* got = complete_received_head(comm_, routes_.neighbor_ranks[j], sc.tag, in, *head, room,
                                                        length, sc.overflow, ws.info, ws.check, chunk_bytes_);
          ws.blocks[1 + j] = got + sizeof(MessageHeader);
        } else {
          all_received = false;
        }
      }
      in += room;
    }
    if (!all_received || (!heads_only && !test_all(sends(ws), "gs message send"))) return false;
  } catch (...) {
    // The call ends here (its error goes to the caller): the other receives must not stay
    // posted into buffers a later call reuses, nor the tails of heads taken by the
    // MPI_Testall but not yet completed wait for a later call of the same tag.
    drain_receives(ws);
    if (heads_only)
      for (std::size_t k = taking + 1; k < nn; ++k)
        if (!ws.blocks[1 + k])
          drop_tail(comm_, routes_.neighbor_ranks[k], sc.tag, sc.statuses[k], sc.overflow, chunk_bytes_);
    throw;
  }
  return combine_blocks(ws);
}

void PairwiseExchange::drain_receives(Workspace& ws) noexcept {
  Scratch& sc = ws.scratch_as<Scratch>();
  drain_head_receives(comm_, routes_.neighbor_ranks, sc.tag, receives(ws), sc.overflow, chunk_bytes_);
}

void PairwiseExchange::release_requests(Workspace& ws) noexcept {
  for (MPI_Request& request : receives(ws))
    if (request != MPI_REQUEST_NULL) {
      MPI_Cancel(&request);  // no message may come; the buffer is kept in case one does
      MPI_Request_free(&request);
    }
  for (MPI_Request& request : sends(ws))
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
}

}  // namespace gsr::detail
