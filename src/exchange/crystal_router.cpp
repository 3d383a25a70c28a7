// exchange/crystal_router.cpp — see crystal_router.hpp. Message of a stage: a MessageHeader,
// then the rows the setup routing assigned to that stage, in setup order; no ids travel per
// call. A rank whose call went wrong (bad arguments here, or a bad header received) still
// sends one message per stage — a header saying so and a ProblemRecord of what it knows
// (exchange/protocol.hpp) — so nobody waits forever and the problem follows the routes to
// every rank whose values it would have reached.
#include "exchange/crystal_router.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/watch.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

namespace gsr::detail {

namespace {

constexpr int setup_tag = 8;

constexpr std::size_t header_bytes = sizeof(MessageHeader);

/// A destination of a routed row: the rank, and the group's position in the list of
/// groups that rank shares with the row's source (ascending id on both sides).
using Destination = std::pair<int, index_t>;

/// A row being routed at setup: the partial of one shared group from rank `source`, still
/// owed to `dests`, found per call at (segment, row).
struct RoutedRow {
  int source = 0;
  std::vector<Destination> dests;
  std::uint32_t segment = 0;
  index_t row = 0;
};

/// Setup-time routing seen from one rank: the rows still travelling through it, and where
/// each row addressed to it arrived.
class RouteBuilder {
public:
  /// Every row starts as this rank's partial of a shared group, owed to its other holders.
  explicit RouteBuilder(const ExchangeInputs& in) : me_(in.plan.rank) {
    held_.reserve(in.plan.shared_groups);
    for (std::size_t s = 0; s < in.plan.shared_groups; ++s) {
      RoutedRow r{me_, {}, 0, static_cast<index_t>(s)};
      for (int h : in.holders.row(s)) {
        if (h == me_) continue;
        std::vector<index_t>& list = shared_with_[h];
        r.dests.emplace_back(h, static_cast<index_t>(list.size()));
        list.push_back(static_cast<index_t>(s));
      }
      if (!r.dests.empty()) held_.push_back(std::move(r));
    }
  }

  /// Rows with destinations across the stage's split leave (their descriptors are the
  /// returned message, their places are added to stage.send_*); the rest stay.
  std::vector<std::int64_t> split(const RouterStageShape& shape, CrystalRouterExchange::Stage& stage) {
    const bool lower = me_ < shape.mid;
    std::vector<std::int64_t> message;  // per row: source, count, then (rank, position) per dest
    std::vector<RoutedRow> kept;
    for (RoutedRow& r : held_) {
      std::vector<Destination> stay, go;
      for (const Destination& d : r.dests) ((d.first < shape.mid) != lower ? go : stay).push_back(d);
      if (!go.empty()) {
        stage.send_segment.push_back(r.segment);
        stage.send_row.push_back(r.row);
        message.push_back(r.source);
        message.push_back(static_cast<std::int64_t>(go.size()));
        for (const auto& [rank, position] : go) {
          message.push_back(rank);
          message.push_back(position);
        }
      }
      if (!stay.empty()) {
        r.dests = std::move(stay);
        kept.push_back(std::move(r));
      }
    }
    held_ = std::move(kept);
    return message;
  }

  /// Takes in one received descriptor message as segment `segment`; returns its row count.
  std::size_t absorb(const std::vector<std::int64_t>& message, std::uint32_t segment) {
    index_t row = 0;
    for (std::size_t at = 0; at < message.size(); ++row) {
      RoutedRow r{static_cast<int>(message[at]), {}, segment, row};
      const auto count = static_cast<std::size_t>(message[at + 1]);
      for (std::size_t j = 0; j < count; ++j) {
        const Destination d{static_cast<int>(message[at + 2 + 2 * j]), static_cast<index_t>(message[at + 3 + 2 * j])};
        if (d.first == me_)
          arrive(r.source, d.second, segment, row);
        else
          r.dests.push_back(d);
      }
      at += 2 + 2 * count;
      if (!r.dests.empty()) held_.push_back(std::move(r));
    }
    return row;
  }

  std::size_t travelling() const noexcept { return held_.size(); }

  /// Fold per group in ascending holder rank: the canonical order of exchange.hpp.
  CombineMap combine_map(const ExchangeInputs& in) const {
    CombineMap combine;
    combine.offsets.reserve(in.plan.shared_groups + 1);
    for (std::size_t s = 0; s < in.plan.shared_groups; ++s) {
      for (int h : in.holders.row(s)) {
        if (h == me_) {
          combine.slot.push_back(0);
          combine.index.push_back(static_cast<index_t>(s));
          continue;
        }
        const auto it = arrived_.find({h, static_cast<index_t>(s)});
        if (it == arrived_.end())
          throw Error(ErrorCode::internal, "gsr: crystal router: the partial of shared group " + std::to_string(s) +
                                               " from rank " + std::to_string(h) + " was not routed here");
        combine.slot.push_back(it->second.first);
        combine.index.push_back(it->second.second);
      }
      combine.offsets.push_back(combine.slot.size());
    }
    combine.find_pairs();
    return combine;
  }

private:
  void arrive(int source, index_t position, std::uint32_t segment, index_t row) {
    const std::vector<index_t>& list = shared_with_[source];
    if (position >= list.size())
      throw Error(ErrorCode::internal, "gsr: crystal router: rank " + std::to_string(source) +
                                           " routed a group this rank does not share with it");
    arrived_[{source, list[position]}] = {segment, row};
  }

  int me_;
  std::map<int, std::vector<index_t>> shared_with_;  // rank -> shared groups held with it, ascending
  std::vector<RoutedRow> held_;
  std::map<std::pair<int, index_t>, std::pair<std::uint32_t, index_t>> arrived_;  // (source, group) -> place
};

}  // namespace

struct CrystalRouterExchange::Scratch final : MethodScratch {
  int tag = 0;  // this call's message tag (CallTags)
  std::size_t row_bytes = 0;
  std::size_t next_stage = 0;               // first stage not yet completed
  bool posted = false;                      // next_stage's message has been sent
  unsigned received = 0;                    // bit i: next_stage's message from sources[i] has arrived
  HeaderStatus problem = HeaderStatus::ok;  // what this rank's headers say for the rest of the call
  std::vector<std::size_t> segment_offset;  // byte offset of segment m's header in ws.recv (m >= 1)
  std::vector<std::size_t> send_offset;     // byte offset of stage d's message in ws.send
  std::vector<std::byte> overflow;          // where a message longer than expected lands

  std::size_t bytes() const noexcept override { return overflow.capacity(); }
};

CrystalRouterExchange::CrystalRouterExchange(const ExchangeInputs& in)
    : comm_(in.comm), chunk_bytes_(in.messages.chunk_bytes), shared_groups_(in.plan.shared_groups) {
  RouteBuilder routes(in);
  Watch watch(comm_, in.messages);
  std::vector<int> partners;
  for (const RouterStageShape& shape : router_stage_shapes(in.plan.rank, in.plan.ranks)) {
    Stage stage;
    stage.send_to = shape.send_to;
    stage.sources = shape.sources;
    stage.first_segment = segments_;
    // The route messages are waited for as a transfer's are (mpi/watch.hpp), against
    // GSR_TIMEOUT: a rank that gave up on an earlier step of the setup never sends or
    // receives. Sends still pending when a wait gives up go to the keeper with their buffer.
    const auto descriptors = std::make_shared<const std::vector<std::int64_t>>(routes.split(shape, stage));
    PendingSends send;
    post_send(descriptors->data(), descriptors->size() * sizeof(std::int64_t), stage.send_to, setup_tag, comm_,
              send.requests, chunk_bytes_);
    send.hold(descriptors);
    try {
      for (int source : stage.sources) {
        ProbedMessage message = watch.probe(source, setup_tag);
        std::vector<std::int64_t> rows((message.bytes + sizeof(std::int64_t) - 1) / sizeof(std::int64_t));
        receive(message, rows.data());
        stage.source_rows.push_back(routes.absorb(rows, segments_++));
      }
      watch.complete(send, "crystal router setup send");
    } catch (const PeerFailed&) {  // no rank sends a notice on a handle's communicator in setup
      throw Error(ErrorCode::internal, "gsr: crystal router setup: a failure notice on the handle's communicator");
    }

    partners.push_back(stage.send_to);
    partners.insert(partners.end(), stage.sources.begin(), stage.sources.end());
    stages_.push_back(std::move(stage));
  }
  if (routes.travelling() > 0)
    throw Error(ErrorCode::internal, "gsr: crystal router: " + std::to_string(routes.travelling()) +
                                         " rows still travelling after the last stage");
  std::sort(partners.begin(), partners.end());
  neighbors_ = static_cast<int>(std::unique(partners.begin(), partners.end()) - partners.begin());
  combine_ = routes.combine_map(in);
}

std::size_t CrystalRouterExchange::bytes() const noexcept {
  std::size_t total = combine_.bytes() + stages_.capacity() * sizeof(Stage);
  for (const Stage& s : stages_)
    total += s.sources.capacity() * sizeof(int) + s.source_rows.capacity() * sizeof(std::size_t) +
             s.send_segment.capacity() * sizeof(std::uint32_t) + s.send_row.capacity() * sizeof(index_t);
  return total;
}

std::size_t CrystalRouterExchange::call_bytes() const noexcept {
  std::size_t total = combine_.call_bytes();
  for (const Stage& s : stages_)
    total += s.sources.size() * sizeof(int) + s.source_rows.size() * sizeof(std::size_t) +
             s.send_segment.size() * sizeof(std::uint32_t) + s.send_row.size() * sizeof(index_t);
  return total;
}

std::vector<MessageStats> CrystalRouterExchange::messages() const {
  std::vector<MessageStats> out;
  for (std::size_t d = 0; d < stages_.size(); ++d) {
    const Stage& st = stages_[d];
    out.push_back(MessageStats{static_cast<int>(d), st.send_to, true, st.send_row.size()});
    for (std::size_t i = 0; i < st.sources.size(); ++i)
      out.push_back(MessageStats{static_cast<int>(d), st.sources[i], false, st.source_rows[i]});
  }
  return out;
}

std::unique_ptr<MethodScratch> CrystalRouterExchange::make_scratch() const { return std::make_unique<Scratch>(); }

std::vector<int> CrystalRouterExchange::awaited(const Workspace& ws) const {
  std::vector<int> ranks;
  const Scratch& sc = ws.scratch_as<Scratch>();
  if (sc.next_stage >= stages_.size()) return ranks;
  const Stage& st = stages_[sc.next_stage];
  for (std::size_t i = 0; i < st.sources.size(); ++i)
    if (!(sc.received & (1u << i))) ranks.push_back(st.sources[i]);
  if (ranks.empty()) ranks.push_back(st.send_to);  // waiting for the send to be taken
  return ranks;
}

std::vector<StageStats> CrystalRouterExchange::stages() const {
  std::vector<StageStats> out;
  for (const Stage& s : stages_) out.push_back(StageStats{1, s.send_row.size()});
  return out;
}

void CrystalRouterExchange::do_start(Workspace& ws) {
  // A rank whose arguments were bad takes part with headers alone, saying so, and drops
  // whatever arrives.
  Scratch& sc = ws.scratch_as<Scratch>();
  sc.tag = CallTags::of(ws.info.call);
  ws.check = HeaderCheck{};
  sc.next_stage = 0;
  sc.posted = false;
  sc.received = 0;
  sc.problem = ws.kernels ? HeaderStatus::ok : HeaderStatus::own_failure;
  lay_out_call(ws, sc);
  if (!stages_.empty()) {
    post_stage(ws, sc, 0);
    sc.posted = true;
  }
}

void CrystalRouterExchange::lay_out_call(Workspace& ws, Scratch& sc) {
  // Every stage's messages are laid out once per call; the rows of segment m stay where
  // they land, so later stages and the final fold read them in place.
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  sc.row_bytes = row;
  sc.segment_offset.assign(segments_, 0);
  sc.send_offset.assign(stages_.size(), 0);
  std::size_t recv_total = 0, send_total = 0;
  for (std::size_t d = 0; d < stages_.size(); ++d) {
    const Stage& st = stages_[d];
    for (std::size_t i = 0; i < st.sources.size(); ++i) {
      sc.segment_offset[st.first_segment + i] = recv_total;
      recv_total += header_bytes + st.source_rows[i] * row;
    }
    sc.send_offset[d] = send_total;
    send_total += header_bytes + std::max(st.send_row.size() * row, sizeof(ProblemRecord));
  }
  ws.recv.resize(recv_total);
  ws.send.resize(send_total);
  ws.blocks.resize(segments_);
  ws.blocks[0] = ws.own;
  for (std::uint32_t m = 1; m < segments_; ++m) ws.blocks[m] = ws.recv.data() + sc.segment_offset[m] + header_bytes;
}

void CrystalRouterExchange::post_stage(Workspace& ws, Scratch& sc, std::size_t d) {
  const Stage& st = stages_[d];
  const std::size_t row = sc.row_bytes;
  std::byte* out = ws.send.data() + sc.send_offset[d];
  const MessageHeader header = MessageHeader::of(ws.info, sc.problem);
  std::memcpy(out, &header, header_bytes);
  std::size_t length = header_bytes;
  if (sc.problem == HeaderStatus::ok) {
    for (std::size_t j = 0; j < st.send_row.size(); ++j, length += row)
      std::memcpy(out + length, ws.blocks[st.send_segment[j]] + static_cast<std::size_t>(st.send_row[j]) * row, row);
  } else {
    // No values, but what this rank knows of the problem, so that ranks further on name
    // the same ranks as they would had they heard from them directly.
    const ProblemRecord record = ws.check.record();
    std::memcpy(out + length, &record, sizeof record);
    length += sizeof record;
  }
  ws.requests.clear();
  post_call_message(out, length, st.send_to, sc.tag, comm_, ws.requests, chunk_bytes_);
}

bool CrystalRouterExchange::receive_stage(Workspace& ws, Scratch& sc, std::size_t d) {
  const Stage& st = stages_[d];
  for (std::size_t i = 0; i < st.sources.size(); ++i) {
    if (sc.received & (1u << i)) continue;
    std::byte* in = ws.recv.data() + sc.segment_offset[st.first_segment + i];
    const std::size_t expected = header_bytes + st.source_rows[i] * sc.row_bytes;
    if (try_receive_checked(comm_, st.sources[i], sc.tag, in, expected, expected, sc.overflow, ws.info, ws.check,
                            chunk_bytes_))
      sc.received |= 1u << i;
  }
  return sc.received == (1u << st.sources.size()) - 1;
}

bool CrystalRouterExchange::do_progress(Workspace& ws) {
  Scratch& sc = ws.scratch_as<Scratch>();
  for (; sc.next_stage < stages_.size(); ++sc.next_stage) {
    if (!sc.posted) post_stage(ws, sc, sc.next_stage);
    sc.posted = true;
    if (!receive_stage(ws, sc, sc.next_stage) || !test_all(ws.requests, "crystal router send")) return false;
    // A bad or failed message stops the values here; later stages say so instead.
    if (!ws.check.ok() && sc.problem == HeaderStatus::ok) sc.problem = HeaderStatus::upstream_problem;
    sc.posted = false;
    sc.received = 0;
  }
  if (!ws.kernels) return true;  // this rank's own arguments were bad; the handle says so
  ws.check.throw_if_failed();
  ws.combine = &combine_;
  return true;
}

}  // namespace gsr::detail
