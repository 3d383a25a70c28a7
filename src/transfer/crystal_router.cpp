// transfer/crystal_router.cpp — the crystal router: the recursive halving of schedule.hpp.
// At each stage a rank sends one message (empty or not) to its partner in the other half,
// bundling every record it holds whose destination lies there, and keeps the rest; after at
// most ceil(log2 P) stages it holds exactly the records addressed to it. Records carry an
// Envelope (source, destination). Records from one source to one destination always sit
// on the same rank and every step keeps their order, so a stable sort by source at the end
// gives the documented order.
#include "transfer/methods.hpp"
#include "transfer/schedule.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/watch.hpp"

#include <cstring>
#include <memory>
#include <string>

namespace gsr::detail {

namespace {
constexpr int first_stage_tag = 64;  // stage d uses first_stage_tag + d
}

std::vector<TransferRoundStats> transfer_crystal_router(Watch& watch, const Outbox& out, const Inbox& in) {
  const MPI_Comm comm = watch.comm();
  const int me = comm_rank(comm), ranks = comm_size(comm);
  const std::size_t w = out.record_bytes;

  // Every record with its envelope, written in place (no per-record growth).
  EnvelopedRecords held(w);
  const std::size_t stride = held.stride();
  held.resize_bytes(out.count * stride);
  for (std::size_t i = 0; i < out.count; ++i) {
    std::byte* at = held.data() + i * stride;
    const Envelope e{me, out.destinations[i]};
    std::memcpy(at, &e, sizeof e);
    if (w > 0) std::memcpy(at + sizeof e, out.records + i * w, w);
  }

  std::vector<TransferRoundStats> rounds;
  const std::vector<RouterStageShape> shapes = router_stage_shapes(me, ranks);
  for (std::size_t d = 0; d < shapes.size(); ++d) {
    const RouterStageShape& shape = shapes[d];
    const int tag = first_stage_tag + static_cast<int>(d);
    const bool lower = me < shape.mid;
    // Split in two passes: count, then copy each record once into buffers of final size.
    const std::size_t n = held.size();
    std::size_t leaving = 0;
    for (std::size_t i = 0; i < n; ++i) leaving += (held.envelope(i).destination < shape.mid) != lower;
    const auto leaving_records = std::make_shared<EnvelopedRecords>(w);  // held by the sends
    EnvelopedRecords& going = *leaving_records;
    EnvelopedRecords staying(w);
    going.resize_bytes(leaving * stride);
    staying.resize_bytes((n - leaving) * stride);
    std::byte* to_go = going.data();
    std::byte* to_stay = staying.data();
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* record = held.data() + i * stride;
      std::byte*& into = (held.envelope(i).destination < shape.mid) != lower ? to_go : to_stay;
      std::memcpy(into, record, stride);
      into += stride;
    }
    TransferRoundStats round;
    PendingSends send;
    send.hold(leaving_records);
    post_send(going.data(), going.byte_size(), shape.send_to, tag, comm, send.requests, watch.chunk_bytes());
    count_sent(round, going.size(), going.byte_size());
    held = std::move(staying);
    for (int source : shape.sources) {
      ProbedMessage message = watch.probe(source, tag);
      const std::size_t n = whole_units(message.bytes, held.stride(), "a crystal router message");
      const std::size_t at = held.byte_size();
      held.resize_bytes(at + message.bytes);
      receive(message, held.data() + at);
      count_received(round, n, message.bytes);
    }
    watch.complete(send, "crystal router send");
    rounds.push_back(round);
  }

  // Stable counting sort by source.
  std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1, 0);
  for (std::size_t i = 0; i < held.size(); ++i) {
    const Envelope e = held.envelope(i);
    if (e.destination != me || e.source < 0 || e.source >= ranks)
      throw Error(ErrorCode::internal, "gsr: transfer: crystal router delivered a record from rank " +
                                           std::to_string(e.source) + " for rank " + std::to_string(e.destination) +
                                           " to rank " + std::to_string(me));
    ++first[static_cast<std::size_t>(e.source) + 1];
  }
  for (int s = 0; s < ranks; ++s) first[s + 1] += first[s];
  std::byte* room = in.room(held.size(), w);
  in.sources.assign(held.size(), 0);
  for (std::size_t i = 0; i < held.size(); ++i) {
    const int source = held.envelope(i).source;
    const std::size_t at = first[source]++;
    if (w > 0) std::memcpy(room + at * w, held.record(i), w);
    in.sources[at] = source;
  }
  return rounds;
}

}  // namespace gsr::detail
