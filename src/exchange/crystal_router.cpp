// exchange/crystal_router.cpp — see crystal_router.hpp. Message of a stage: a MessageHeader,
// then the rows the setup routing assigned to that stage, in setup order; no ids travel per
// call. A rank whose call went wrong (bad arguments here, or a bad header received) still
// sends one message per stage — a header alone, saying so — so nobody waits forever and the
// problem follows the routes to every rank whose values it would have reached.
#include "exchange/crystal_router.hpp"

#include "mpi/checked.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

namespace gsr::detail {

namespace {

constexpr int setup_tag = 8;
// Each call gets its own tag so that requests in flight together never match each other's
// messages: base + (call number mod span). MPI guarantees tags up to 32767.
constexpr int call_tag_base = 64;
constexpr std::uint64_t call_tag_span = 16384;
// MessageHeader::failed values: 1 the sender's own arguments were bad (HeaderCheck's
// meaning), upstream_problem the sender received a bad or failed message earlier this call.
constexpr std::uint64_t own_failure = 1;
constexpr std::uint64_t upstream_problem = 2;

constexpr std::size_t header_bytes = sizeof(MessageHeader);

/// A row being routed at setup: the partial of one shared group from rank `source`, still
/// owed to `dests`, found per call at (segment, row). Ids do not travel: a destination is
/// paired with the group's position among the groups it shares with the source (ascending
/// id on both sides, the order pairwise uses too), which the destination maps back.
struct RoutedRow {
  int source = 0;
  std::vector<std::pair<int, index_t>> dests;  // (rank, position in its list with source)
  std::uint32_t segment = 0;
  index_t row = 0;
};

}  // namespace

std::vector<RouterStageShape> router_stage_shapes(int rank, int ranks) {
  std::vector<RouterStageShape> shapes;
  int lo = 0, hi = ranks;
  while (hi - lo > 1) {
    const int n = hi - lo, lower = (n + 1) / 2, upper = n - lower, mid = lo + lower;
    RouterStageShape s;
    s.mid = mid;
    if (rank < mid) {
      const int i = rank - lo;
      if (i < upper) {
        s.send_to = mid + i;
        s.sources.push_back(mid + i);
      } else {
        s.send_to = hi - 1;  // the odd one out: its rows go to the last upper rank
      }
      hi = mid;
    } else {
      const int j = rank - mid;
      s.send_to = lo + j;
      s.sources.push_back(lo + j);
      if (lower > upper && rank == hi - 1) s.sources.push_back(mid - 1);
      lo = mid;
    }
    shapes.push_back(std::move(s));
  }
  return shapes;
}

struct CrystalRouterExchange::Scratch final : InOrderScratch {
  int tag = 0;
  std::size_t row_bytes = 0;
  std::size_t next_stage = 0;   // first stage not yet completed
  bool posted = false;          // next_stage's message has been sent
  std::uint64_t problem = 0;    // nonzero once this call went wrong here: what headers say
  HeaderCheck check;
  std::vector<std::size_t> segment_offset;  // byte offset of segment m's header in ws.recv (m >= 1)
  std::vector<std::size_t> send_offset;     // byte offset of stage d's message in ws.send
  std::vector<std::byte> discard;           // failed calls: where unwanted messages land
};

CrystalRouterExchange::CrystalRouterExchange(const Plan& plan, MPI_Comm comm)
    : comm_(comm), shared_groups_(plan.shared_groups) {
  const int me = plan.rank;
  const std::vector<RouterStageShape> shapes = router_stage_shapes(me, plan.ranks);

  // shared_with[r]: the shared groups this rank holds with rank r, ascending (= ascending id).
  std::map<int, std::vector<index_t>> shared_with;
  // Every row starts as this rank's partial, owed to the group's other holders.
  std::vector<RoutedRow> held;
  held.reserve(shared_groups_);
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    RoutedRow r{me, {}, 0, static_cast<index_t>(s)};
    for (int h : plan.holders.row(s)) {
      if (h == me) continue;
      std::vector<index_t>& list = shared_with[h];
      r.dests.emplace_back(h, static_cast<index_t>(list.size()));
      list.push_back(static_cast<index_t>(s));
    }
    if (!r.dests.empty()) held.push_back(std::move(r));
  }

  // (source, shared group here) -> where that source's partial arrives on this rank.
  std::map<std::pair<int, index_t>, std::pair<std::uint32_t, index_t>> arrived;
  std::vector<int> partners;

  for (const RouterStageShape& shape : shapes) {
    const bool lower = me < shape.mid;
    auto across = [&](const std::pair<int, index_t>& dest) { return (dest.first < shape.mid) != lower; };

    Stage stage;
    stage.send_to = shape.send_to;
    stage.sources = shape.sources;
    stage.first_segment = segments_;
    std::vector<std::int64_t> message;  // per row: source, count, then (rank, position) per dest
    std::vector<RoutedRow> kept;
    for (RoutedRow& r : held) {
      std::vector<std::pair<int, index_t>> stay, go;
      for (const auto& d : r.dests) (across(d) ? go : stay).push_back(d);
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
    held = std::move(kept);

    MPI_Request send = MPI_REQUEST_NULL;
    GSR_MPI_CHECK(MPI_Isend(message.data(), mpi_count(message.size(), "crystal router setup"), MPI_INT64_T,
                            stage.send_to, setup_tag, comm_, &send));
    for (int source : stage.sources) {
      MPI_Message handle;
      MPI_Status status;
      GSR_MPI_CHECK(MPI_Mprobe(source, setup_tag, comm_, &handle, &status));
      int count = 0;
      GSR_MPI_CHECK(MPI_Get_count(&status, MPI_INT64_T, &count));
      std::vector<std::int64_t> in(static_cast<std::size_t>(count));
      GSR_MPI_CHECK(MPI_Mrecv(in.data(), count, MPI_INT64_T, &handle, MPI_STATUS_IGNORE));

      const std::uint32_t segment = segments_++;
      index_t row = 0;
      for (std::size_t at = 0; at < in.size(); ++row) {
        RoutedRow r{static_cast<int>(in[at]), {}, segment, row};
        const auto count_dests = static_cast<std::size_t>(in[at + 1]);
        for (std::size_t j = 0; j < count_dests; ++j) {
          const int rank = static_cast<int>(in[at + 2 + 2 * j]);
          const auto position = static_cast<index_t>(in[at + 3 + 2 * j]);
          if (rank != me) {
            r.dests.emplace_back(rank, position);
            continue;
          }
          const std::vector<index_t>& list = shared_with[r.source];
          if (position >= list.size())
            throw Error(ErrorCode::internal, "gsr: crystal router: rank " + std::to_string(r.source) +
                                                 " routed a group this rank does not share with it");
          arrived[{r.source, list[position]}] = {segment, row};
        }
        at += 2 + 2 * count_dests;
        if (!r.dests.empty()) held.push_back(std::move(r));
      }
      stage.source_rows.push_back(row);
    }
    GSR_MPI_CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE));

    partners.push_back(stage.send_to);
    partners.insert(partners.end(), stage.sources.begin(), stage.sources.end());
    stages_.push_back(std::move(stage));
  }
  if (!held.empty())
    throw Error(ErrorCode::internal, "gsr: crystal router: " + std::to_string(held.size()) +
                                         " rows still travelling after the last stage");

  std::sort(partners.begin(), partners.end());
  neighbors_ = static_cast<int>(std::unique(partners.begin(), partners.end()) - partners.begin());

  // Fold per group in ascending holder rank: the canonical order of exchange.hpp.
  combine_.offsets.reserve(shared_groups_ + 1);
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    for (int h : plan.holders.row(s)) {
      if (h == me) {
        combine_.slot.push_back(0);
        combine_.index.push_back(static_cast<index_t>(s));
        continue;
      }
      const auto it = arrived.find({h, static_cast<index_t>(s)});
      if (it == arrived.end())
        throw Error(ErrorCode::internal, "gsr: crystal router: the partial of shared group " +
                                             std::to_string(s) + " from rank " + std::to_string(h) +
                                             " was not routed here");
      combine_.slot.push_back(it->second.first);
      combine_.index.push_back(it->second.second);
    }
    combine_.offsets.push_back(combine_.slot.size());
  }
}

std::size_t CrystalRouterExchange::bytes() const noexcept {
  std::size_t total = combine_.bytes() + stages_.capacity() * sizeof(Stage);
  for (const Stage& s : stages_)
    total += s.sources.capacity() * sizeof(int) + s.source_rows.capacity() * sizeof(std::size_t) +
             s.send_segment.capacity() * sizeof(std::uint32_t) + s.send_row.capacity() * sizeof(index_t);
  return total;
}

std::vector<StageStats> CrystalRouterExchange::stages() const {
  std::vector<StageStats> out;
  for (const Stage& s : stages_) out.push_back(StageStats{1, s.send_row.size()});
  return out;
}

CrystalRouterExchange::Scratch& CrystalRouterExchange::scratch_of(Workspace& ws) {
  auto* sc = dynamic_cast<Scratch*>(ws.scratch.get());
  if (!sc) {
    ws.scratch = std::make_unique<Scratch>();
    sc = static_cast<Scratch*>(ws.scratch.get());
  }
  return *sc;
}

void CrystalRouterExchange::start(Workspace& ws) {
  Scratch& sc = scratch_of(ws);
  sc.tag = call_tag_base + static_cast<int>(calls_started_++ % call_tag_span);
  sc.next_stage = 0;
  sc.posted = false;
  sc.problem = 0;
  sc.check = HeaderCheck{};
  sc.error = nullptr;

  if (ws.kernels) {
    // Lay out every stage's messages once per call; the rows of segment m stay where they
    // land, so later stages and the final fold read them in place.
    const std::size_t row = ws.info.k * ws.kernels->value_size;
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
      send_total += header_bytes + st.send_row.size() * row;
    }
    ws.recv.resize(recv_total);
    ws.send.resize(send_total);
    ws.blocks.resize(segments_);
    ws.blocks[0] = ws.partials.data();
    for (std::uint32_t m = 1; m < segments_; ++m) ws.blocks[m] = ws.recv.data() + sc.segment_offset[m] + header_bytes;
    if (!stages_.empty()) {
      post_stage(ws, sc, 0);
      sc.posted = true;
    }
  }
  in_flight_.push(ws);
}

void CrystalRouterExchange::post_stage(Workspace& ws, Scratch& sc, std::size_t d) {
  const Stage& st = stages_[d];
  const std::size_t row = sc.row_bytes;
  std::byte* out = ws.send.data() + sc.send_offset[d];
  const MessageHeader header{ws.info.signature(), sc.problem};
  std::memcpy(out, &header, header_bytes);
  std::size_t length = header_bytes;
  if (sc.problem == 0) {
    for (std::size_t j = 0; j < st.send_row.size(); ++j, length += row)
      std::memcpy(out + length, ws.blocks[st.send_segment[j]] + static_cast<std::size_t>(st.send_row[j]) * row, row);
  }
  ws.requests.assign(1, MPI_REQUEST_NULL);
  GSR_MPI_CHECK(MPI_Isend(out, mpi_count(length, "crystal router message"), MPI_BYTE, st.send_to, sc.tag, comm_,
                          &ws.requests[0]));
}

void CrystalRouterExchange::wait_stage(Workspace& ws, Scratch& sc, std::size_t d) {
  // Receives are matched by probe, at the size actually sent: a rank that disagrees about
  // the call may send more than expected, and a truncated receive is fatal in MPICH
  // whatever the communicator's error handler says.
  const Stage& st = stages_[d];
  for (std::size_t i = 0; i < st.sources.size(); ++i) {
    const int peer = st.sources[i];
    MPI_Message message;
    MPI_Status status;
    GSR_MPI_CHECK(MPI_Mprobe(peer, sc.tag, comm_, &message, &status));
    int count = 0;
    GSR_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count));
    const auto got = static_cast<std::size_t>(count);
    const std::size_t expected = header_bytes + st.source_rows[i] * sc.row_bytes;
    std::byte* in = ws.recv.data() + sc.segment_offset[st.first_segment + i];
    if (got > expected) {
      sc.discard.resize(got);
      in = sc.discard.data();
    }
    GSR_MPI_CHECK(MPI_Mrecv(in, count, MPI_BYTE, &message, MPI_STATUS_IGNORE));
    if (got >= header_bytes) {
      MessageHeader header;
      std::memcpy(&header, in, header_bytes);
      sc.check.check(header, ws.info, peer);
    }
    sc.check.check_size(got, expected, ws.info, peer);
  }
  MPI_Status status;
  sc.check.check_status(MPI_Wait(&ws.requests[0], &status), ws.info, st.send_to);
  if (!sc.check.ok()) sc.problem = upstream_problem;
}

void CrystalRouterExchange::complete_failed(Workspace& ws, Scratch& sc) {
  // This rank's arguments were bad: one header per stage saying so, and whatever arrives
  // (a full message or a header) is taken and dropped.
  const MessageHeader header{ws.info.signature(), own_failure};
  for (const Stage& st : stages_) {
    MPI_Request send = MPI_REQUEST_NULL;
    GSR_MPI_CHECK(MPI_Isend(&header, header_bytes, MPI_BYTE, st.send_to, sc.tag, comm_, &send));
    for (int source : st.sources) {
      MPI_Message message;
      MPI_Status status;
      GSR_MPI_CHECK(MPI_Mprobe(source, sc.tag, comm_, &message, &status));
      int count = 0;
      GSR_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count));
      sc.discard.resize(static_cast<std::size_t>(count));
      GSR_MPI_CHECK(MPI_Mrecv(sc.discard.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE));
    }
    GSR_MPI_CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE));
  }
}

void CrystalRouterExchange::complete(Workspace& ws) noexcept {
  Scratch& sc = *static_cast<Scratch*>(ws.scratch.get());
  try {
    if (!ws.kernels) return complete_failed(ws, sc);
    for (; sc.next_stage < stages_.size(); ++sc.next_stage) {
      if (!sc.posted) post_stage(ws, sc, sc.next_stage);
      sc.posted = false;
      wait_stage(ws, sc, sc.next_stage);
    }
    sc.check.throw_if_failed();
    ws.results.resize(shared_groups_ * sc.row_bytes);
    ws.kernels->combine(ws.results.data(), ws.info.k, ws.blocks.data(), combine_);
  } catch (...) {
    sc.error = std::current_exception();
  }
}

void CrystalRouterExchange::finish(Workspace& ws) {
  in_flight_.complete_through(ws, [this](Workspace& w) { complete(w); });
  rethrow_recorded(scratch_of(ws));
}

}  // namespace gsr::detail
