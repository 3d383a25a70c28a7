// tools/bench/primitives.cpp — see primitives.hpp.
#include "tools/bench/primitives.hpp"

#include <gsr/error.hpp>
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.hpp>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gsr::tools::bench {
namespace {

using nlohmann::ordered_json;

/// ceil(log2 p): the rounds of a binomial tree over p ranks (the formula the records quote).
int ceil_log2(int p) {
  int d = 0;
  for (long long reach = 1; reach < p; reach *= 2) ++d;
  return d;
}

/// MPI_Scatterv's int counts and displacements of blocks laid out back to back.
struct Layout {
  std::vector<std::int64_t> counts;  // for gsr
  std::vector<int> mpi_counts, displacements;
  std::size_t total = 0;
};

Layout layout_of(const std::vector<std::size_t>& sizes) {
  Layout l;
  for (std::size_t s : sizes) {
    if (s > static_cast<std::size_t>(INT_MAX) - l.total)  // never wraps: total <= INT_MAX
      throw Error(ErrorCode::invalid_argument,
                  "gsr-bench --primitives: the blocks add up to more than MPI_Scatterv's int displacements can "
                  "address; choose smaller --block-bytes");
    l.counts.push_back(static_cast<std::int64_t>(s));
    l.mpi_counts.push_back(static_cast<int>(s));
    l.displacements.push_back(static_cast<int>(l.total));
    l.total += s;
  }
  return l;
}

void* into(std::vector<unsigned char>& buffer, std::size_t n) {
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

/// Scatter and gather at every root on unequal blocks around `block` bytes (every third
/// rank's empty), compared byte for byte with MPI_Scatterv and MPI_Gatherv. Local verdict.
bool same_as_mpi(std::size_t block, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<std::size_t> sizes;
  for (int r = 0; r < ranks; ++r) sizes.push_back(r % 3 == 2 ? 0 : block + static_cast<std::size_t>(r));
  const Layout l = layout_of(sizes);
  const std::size_t mine_bytes = sizes[static_cast<std::size_t>(rank)];
  bool same = true;
  for (int root = 0; root < ranks; ++root) {
    std::vector<unsigned char> all(rank == root ? l.total : 0);
    for (std::size_t i = 0; i < all.size(); ++i)
      all[i] = static_cast<unsigned char>(i * 7 + static_cast<std::size_t>(root));
    std::vector<unsigned char> mine, by_mpi(mine_bytes), back, back_by_mpi(rank == root ? l.total : 0);
    const ScatterResult s =
        scatter_bytes(all.data(), all.size(), l.counts, 1, root, comm, [&](std::size_t n) { return into(mine, n); });
    MPI_Scatterv(all.data(), l.mpi_counts.data(), l.displacements.data(), MPI_BYTE, by_mpi.data(),
                 static_cast<int>(mine_bytes), MPI_BYTE, root, comm);
    same =
        same && s.count == mine_bytes && (mine_bytes == 0 || std::memcmp(mine.data(), by_mpi.data(), mine_bytes) == 0);
    const GatherResult g = gather_bytes(by_mpi.data(), static_cast<std::int64_t>(mine_bytes), 1, root, comm,
                                        [&](std::size_t n) { return into(back, n); });
    MPI_Gatherv(by_mpi.data(), static_cast<int>(mine_bytes), MPI_BYTE, back_by_mpi.data(), l.mpi_counts.data(),
                l.displacements.data(), MPI_BYTE, root, comm);
    if (rank == root)
      same = same && g.counts == sizes && (l.total == 0 || std::memcmp(back.data(), back_by_mpi.data(), l.total) == 0);
  }
  return same;
}

/// One block size's buffers and calls, root 0, every rank's block `block` bytes.
struct Calls {
  Calls(std::size_t block, int ranks, int rank, MPI_Comm c)
      : comm(c), layout(layout_of(std::vector<std::size_t>(static_cast<std::size_t>(ranks), block))),
        all(rank == 0 ? layout.total : 0, 1), mine(block, 2), back(rank == 0 ? layout.total : 0) {}

  TreeStats tree_scatter() {
    return scatter_bytes(all.data(), all.size(), layout.counts, 1, 0, comm,
                         [this](std::size_t) { return static_cast<void*>(mine.data()); })
        .stats;
  }
  TreeStats tree_gather() {
    return gather_bytes(mine.data(), static_cast<std::int64_t>(mine.size()), 1, 0, comm,
                        [this](std::size_t) { return static_cast<void*>(back.data()); })
        .stats;
  }
  void mpi_scatter() {
    MPI_Scatterv(all.data(), layout.mpi_counts.data(), layout.displacements.data(), MPI_BYTE, mine.data(),
                 static_cast<int>(mine.size()), MPI_BYTE, 0, comm);
  }
  void mpi_gather() {
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, back.data(), layout.mpi_counts.data(),
                layout.displacements.data(), MPI_BYTE, 0, comm);
  }

  MPI_Comm comm;
  Layout layout;
  std::vector<unsigned char> all, mine, back;
};

/// One block size's all-to-all record transfer: every rank sends block / 8 records of 8
/// bytes to every rank (itself included), each naming its source, destination and index;
/// the gsr methods against MPI_Alltoallv of the same bytes.
struct Exchange {
  static constexpr std::size_t record_bytes = sizeof(std::uint64_t);

  Exchange(std::size_t block, int ranks, int rank, MPI_Comm c) : comm(c), per_peer(block / record_bytes) {
    const auto p = static_cast<std::size_t>(ranks);
    // Checked before anything is allocated, and without a product that could wrap.
    if (per_peer > static_cast<std::size_t>(INT_MAX) / record_bytes / p)
      throw Error(ErrorCode::invalid_argument,
                  "gsr-bench --primitives: the all-to-all transfer is more than MPI_Alltoallv's int displacements "
                  "can address; choose smaller --block-bytes");
    for (std::size_t to = 0; to < p; ++to)
      for (std::size_t i = 0; i < per_peer; ++i) {
        records.push_back((static_cast<std::uint64_t>(rank) << 48) | (static_cast<std::uint64_t>(to) << 32) | i);
        destinations.push_back(static_cast<int>(to));
      }
    const int count = static_cast<int>(per_peer * record_bytes);
    for (std::size_t r = 0; r < p; ++r) {
      counts.push_back(count);
      displacements.push_back(static_cast<int>(r) * count);
    }
    // One spare element each, so that no buffer is NULL when there are no records (MPI
    // takes two NULL buffers for aliased ones).
    records.reserve(records.size() + 1);
    got.resize(records.size() + 1);
    by_mpi.resize(records.size() + 1);
  }

  TransferResult gsr(TransferMethod method) {
    return transfer_bytes(
        records.data(), records.size(), record_bytes, destinations, comm,
        [this](std::size_t n) -> void* {
          if (got.size() < n) got.resize(n);
          return got.data();
        },
        method);
  }
  void mpi() {
    MPI_Alltoallv(records.data(), counts.data(), displacements.data(), MPI_BYTE, by_mpi.data(), counts.data(),
                  displacements.data(), MPI_BYTE, comm);
  }

  /// Each method delivers what MPI_Alltoallv does, in the same order (by source, then as
  /// sent), with the right sources. Local verdict.
  bool same_as_mpi() {
    mpi();
    bool same = true;
    for (const TransferMethod method : concrete_transfer_methods) {
      std::fill(got.begin(), got.end(), 0);
      const TransferResult r = gsr(method);
      same = same && r.count == records.size() &&
             std::equal(by_mpi.begin(), by_mpi.begin() + static_cast<std::ptrdiff_t>(records.size()), got.begin());
      for (std::size_t i = 0; same && i < r.sources.size(); ++i)
        same = static_cast<std::size_t>(r.sources[i]) == i / per_peer;
    }
    return same;
  }

  MPI_Comm comm;
  std::size_t per_peer;
  std::vector<std::uint64_t> records, got, by_mpi;
  std::vector<int> destinations, counts, displacements;
};

/// The stages every rank of a transfer method goes through, as docs/transfer.md gives them.
int stages_formula(TransferMethod method, int ranks) {
  switch (method) {
    case TransferMethod::crystal_router:
      return ceil_log2(ranks);
    case TransferMethod::two_round:
      return 2;
    default:
      return 1;
  }
}

Record primitive_record(const char* call, const char* method, int ranks, std::size_t block, const Rounds& rounds,
                        double seconds) {
  Record r;
  r["kind"] = "primitive";
  r["method"] = method;
  r["call"] = call;
  r["ranks"] = ranks;
  r["input"] = "primitives";
  r["root"] = 0;
  r["block_bytes"] = block;
  r["repeats"] = rounds.repeats;
  r["calls"] = rounds.calls;
  r["median_seconds"] = seconds;
  return r;
}

/// The tree's counts over the ranks: the busiest rank's rounds, every message, the root's
/// payload and header bytes; with the formulas for blocks of m bytes next to them.
void add_tree_counts(Record& r, const TreeStats& stats, bool scatter, int rank, int ranks, std::size_t block,
                     MPI_Comm comm) {
  const std::size_t root_bytes = rank == 0 ? (scatter ? stats.bytes_sent : stats.bytes_received) : 0;
  const std::size_t root_header = rank == 0 ? (scatter ? stats.header_bytes_sent : stats.header_bytes_received) : 0;
  unsigned long long messages = stats.messages_sent, all_messages = 0;
  MPI_Allreduce(&messages, &all_messages, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  r["rounds"] = max_over_ranks(static_cast<std::size_t>(stats.rounds), comm);
  r["rounds_formula"] = ceil_log2(ranks);
  r["messages"] = all_messages;
  r["messages_formula"] = ranks - 1;
  r["bytes"] = max_over_ranks(root_bytes, comm);
  r["bytes_formula"] = block * static_cast<std::size_t>(ranks - 1);
  r["header_bytes"] = max_over_ranks(root_header, comm);
}

template <class... Args>
std::string cell(const char* pattern, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

}  // namespace

PrimitivesResult measure_primitives(const std::vector<std::size_t>& block_bytes, const Rounds& rounds, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  PrimitivesResult result;

  int same = 1;
  for (std::size_t block : block_bytes) same = same && same_as_mpi(block, comm);
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm);
  result.equal_to_mpi = same != 0;

  // One group per call and block size, its two contenders interleaved by time_rounds.
  std::vector<std::unique_ptr<Calls>> calls;
  std::vector<std::vector<Probe>> groups;
  for (std::size_t block : block_bytes) {
    Calls* c = calls.emplace_back(std::make_unique<Calls>(block, ranks, rank, comm)).get();
    groups.push_back({[c] { c->tree_scatter(); }, [c] { c->mpi_scatter(); }});
    groups.push_back({[c] { c->tree_gather(); }, [c] { c->mpi_gather(); }});
  }
  // The record transfer: its three methods and MPI_Alltoallv, one group per block size.
  std::vector<std::unique_ptr<Exchange>> exchanges;
  int transfers_same = 1;
  for (std::size_t block : block_bytes) {
    Exchange* x = exchanges.emplace_back(std::make_unique<Exchange>(block, ranks, rank, comm)).get();
    transfers_same = transfers_same && x->same_as_mpi();
    std::vector<Probe> group;
    for (const TransferMethod method : concrete_transfer_methods) group.push_back([x, method] { x->gsr(method); });
    group.push_back([x] { x->mpi(); });
    groups.push_back(std::move(group));
  }
  MPI_Allreduce(MPI_IN_PLACE, &transfers_same, 1, MPI_INT, MPI_MIN, comm);
  result.transfers_equal_to_mpi = transfers_same != 0;
  const std::vector<double> medians = time_rounds(groups, rounds, comm);

  for (std::size_t b = 0; b < block_bytes.size(); ++b) {
    for (const bool scatter : {true, false}) {
      const std::size_t at = 4 * b + (scatter ? 0 : 2);
      const char* call = scatter ? "scatter" : "gather";
      Record tree = primitive_record(call, "binomial_tree", ranks, block_bytes[b], rounds, medians[at]);
      Record mpi = primitive_record(call, "mpi", ranks, block_bytes[b], rounds, medians[at + 1]);
      tree["ratio"] = medians[at + 1] > 0 ? medians[at] / medians[at + 1] : 0.0;
      const TreeStats stats = scatter ? calls[b]->tree_scatter() : calls[b]->tree_gather();
      add_tree_counts(tree, stats, scatter, rank, ranks, block_bytes[b], comm);
      tree["equal_to_mpi"] = result.equal_to_mpi;
      result.records.push_back(std::move(tree));
      result.records.push_back(std::move(mpi));
    }
  }
  constexpr std::size_t methods = std::size(concrete_transfer_methods);
  for (std::size_t b = 0; b < block_bytes.size(); ++b) {
    const std::size_t at = 4 * block_bytes.size() + (methods + 1) * b;
    const double mpi_seconds = medians[at + methods];
    for (std::size_t m = 0; m < methods; ++m) {
      const TransferMethod method = concrete_transfer_methods[m];
      Record r = primitive_record("transfer", std::string(to_string(method)).c_str(), ranks, block_bytes[b], rounds,
                                  medians[at + m]);
      r["ratio"] = mpi_seconds > 0 ? medians[at + m] / mpi_seconds : 0.0;
      const TransferResult done = exchanges[b]->gsr(method);
      const TransferRoundStats total = done.stats.total();
      unsigned long long messages = total.messages_sent, all_messages = 0;
      MPI_Allreduce(&messages, &all_messages, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
      r["stages"] = max_over_ranks(done.stats.stages(), comm);
      r["stages_formula"] = ranks == 1 && method == TransferMethod::crystal_router ? 0 : stages_formula(method, ranks);
      r["messages"] = all_messages;
      r["bytes"] = max_over_ranks(total.bytes_sent, comm);
      r["largest_message_bytes"] = max_over_ranks(total.largest_message_bytes, comm);
      r["equal_to_mpi"] = result.transfers_equal_to_mpi;
      result.records.push_back(std::move(r));
    }
    result.records.push_back(primitive_record("transfer", "mpi", ranks, block_bytes[b], rounds, mpi_seconds));
  }
  return result;
}

std::string primitives_problem(const std::vector<std::size_t>& block_bytes) {
  std::string sizes;
  for (std::size_t b : block_bytes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
  return "scatter/gather from root 0 and all-to-all transfer of blocks of " + sizes + " bytes per rank";
}

std::string primitives_table(const ordered_json& metadata, const std::vector<Record>& records) {
  const int ranks = metadata.at("ranks").get<int>();
  std::string text = cell("gsr-bench --primitives: %d rank%s, %s\n", ranks, ranks == 1 ? "" : "s",
                          metadata.at("problem").get<std::string>().c_str());
  if (!records.empty())
    text += cell("  %d rounds x %d calls; the slowest rank's median time per call\n",
                 records.front().at("repeats").get<int>(), records.front().at("calls").get<int>());
  text += cell("  %s (%u CPUs), %s, gsr %s, %s\n\n", metadata.at("cpu_model").get<std::string>().c_str(),
               metadata.at("cpus").get<unsigned>(), metadata.at("mpi_library").get<std::string>().c_str(),
               metadata.at("gsr_version").get<std::string>().c_str(), metadata.at("date").get<std::string>().c_str());
  text += "binomial tree (gsr) vs MPI_Scatterv / MPI_Gatherv, us per call; measured (formula)\n";
  text += cell("  %-8s %12s %10s %10s %7s %12s %12s %26s %12s\n", "call", "block bytes", "tree", "MPI", "ratio",
               "rounds", "messages", "root bytes m(P-1)", "header bytes");
  std::vector<const Record*> transfers;
  for (std::size_t i = 0; i + 1 < records.size(); i += 2) {
    if (records[i].at("call") == "transfer") {
      for (; i < records.size(); ++i) transfers.push_back(&records[i]);
      break;
    }
    const Record& tree = records[i];
    const Record& mpi = records[i + 1];
    text += cell("  %-8s %12llu %10.2f %10.2f %6.2fx %7lld (%2d) %7llu (%2d) %14llu (%9llu) %12lld\n",
                 tree.at("call").get<std::string>().c_str(), tree.at("block_bytes").get<unsigned long long>(),
                 1e6 * tree.at("median_seconds").get<double>(), 1e6 * mpi.at("median_seconds").get<double>(),
                 tree.at("ratio").get<double>(), tree.at("rounds").get<long long>(),
                 tree.at("rounds_formula").get<int>(), tree.at("messages").get<unsigned long long>(),
                 tree.at("messages_formula").get<int>(), tree.at("bytes").get<unsigned long long>(),
                 tree.at("bytes_formula").get<unsigned long long>(), tree.at("header_bytes").get<long long>());
  }
  const bool equal = !records.empty() && records.front().at("equal_to_mpi").get<bool>();
  text += equal ? "results equal to MPI_Scatterv / MPI_Gatherv at every root: yes\n"
                : "results equal to MPI_Scatterv / MPI_Gatherv at every root: NO (check FAILED)\n";

  text +=
      "\nrecord transfer, all-to-all of block bytes to every rank (8-byte records) vs MPI_Alltoallv, us per "
      "call\n";
  text += cell("  %-15s %12s %10s %7s %14s %10s %14s %14s\n", "method", "block bytes", "time", "ratio",
               "stages (formula)", "messages", "bytes/rank", "largest msg");
  for (const Record* r : transfers) {
    const bool mpi = r->at("method") == "mpi";
    if (mpi) {
      text += cell("  %-15s %12llu %10.2f\n", "MPI_Alltoallv", r->at("block_bytes").get<unsigned long long>(),
                   1e6 * r->at("median_seconds").get<double>());
      continue;
    }
    text += cell("  %-15s %12llu %10.2f %6.2fx %9lld (%2d) %10llu %14lld %14lld\n",
                 r->at("method").get<std::string>().c_str(), r->at("block_bytes").get<unsigned long long>(),
                 1e6 * r->at("median_seconds").get<double>(), r->at("ratio").get<double>(),
                 r->at("stages").get<long long>(), r->at("stages_formula").get<int>(),
                 r->at("messages").get<unsigned long long>(), r->at("bytes").get<long long>(),
                 r->at("largest_message_bytes").get<long long>());
  }
  const bool transfers_equal = !transfers.empty() && transfers.front()->at("equal_to_mpi").get<bool>();
  text += transfers_equal ? "every transfer method's result equal to MPI_Alltoallv's: yes\n"
                          : "every transfer method's result equal to MPI_Alltoallv's: NO (check FAILED)\n";
  return text;
}

}  // namespace gsr::tools::bench
