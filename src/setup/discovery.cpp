// setup/discovery.cpp — see discovery.hpp. Two rounds of sparse personalized exchange:
// holders -> homes (one int64 per distinct id, its sign carrying "held unflagged"), then
// homes -> holders (for each shared id: id, holder count, holders encoded 2*rank+unflagged).
#include "setup/discovery.hpp"

#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "transfer/sparse_exchange.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace gsr::detail {

namespace {
constexpr int tag_to_home = 101;
constexpr int tag_to_holders = 102;

// splitmix64's finaliser: structured ids (element-by-element numbering) spread evenly.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

int home_rank(std::int64_t abs_id, int ranks) noexcept {
  return static_cast<int>(mix(static_cast<std::uint64_t>(abs_id)) % static_cast<std::uint64_t>(ranks));
}

namespace {

using Messages = std::map<int, std::vector<std::int64_t>>;  // rank -> words

// Round 1, at each holder: one word per distinct |id| held here, to the id's home:
// +|id| if some entry holds it unflagged, else -|id|.
Messages holders_to_homes(std::span<const std::int64_t> ids, std::span<const index_t> order, int ranks) {
  Messages to_home;
  for_each_id_run(ids, order, [&](const IdRun& run) {
    to_home[home_rank(run.id, ranks)].push_back(run.any_unflagged ? run.id : -run.id);
  });
  return to_home;
}

// Round 2, at each home: for every id held by two or more ranks, each holder gets
// (id, holder count, then 2 * rank + unflagged per holder, ascending rank).
Messages homes_to_holders(const Messages& at_home, std::int64_t& homed_shared) {
  struct Record {
    std::int64_t id;
    int rank;
    bool unflagged;
  };
  // Each holder lists its ids ascending (holders_to_homes walks them in order) and the map
  // yields the holders by ascending rank, so merging the holders' runs orders the records
  // by (id, rank): log2(holders) linear passes instead of a sort (at P = 2 the sort took a
  // quarter of setup).
  std::size_t total = 0;
  for (const auto& [source, list] : at_home) total += list.size();
  std::vector<Record> records;
  records.reserve(total);
  std::vector<std::size_t> runs{0};  // where each holder's records begin, and the end
  bool ascending = true;
  for (const auto& [source, words] : at_home) {
    for (std::int64_t word : words) {
      const Record record{abs_id(word), source, word > 0};
      if (records.size() > runs.back() && records.back().id >= record.id) ascending = false;
      records.push_back(record);
    }
    runs.push_back(records.size());
  }
  if (ascending) {
    const auto by_id = [](const Record& a, const Record& b) { return a.id < b.id; };
    while (runs.size() > 2) {  // merge neighbouring runs; std::inplace_merge keeps ties in rank order
      std::vector<std::size_t> merged{0};
      for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
        if (i + 2 < runs.size()) {
          std::inplace_merge(records.begin() + static_cast<std::ptrdiff_t>(runs[i]),
                             records.begin() + static_cast<std::ptrdiff_t>(runs[i + 1]),
                             records.begin() + static_cast<std::ptrdiff_t>(runs[i + 2]), by_id);
          merged.push_back(runs[i + 2]);
        } else {
          merged.push_back(runs[i + 1]);
        }
      }
      runs.swap(merged);
    }
  } else {  // not as sent by holders_to_homes; sorted all the same
    std::sort(records.begin(), records.end(),
              [](const Record& a, const Record& b) { return a.id != b.id ? a.id < b.id : a.rank < b.rank; });
  }

  homed_shared = 0;
  Messages to_holders;
  for (std::size_t begin = 0; begin < records.size();) {
    std::size_t end = begin + 1;
    while (end < records.size() && records[end].id == records[begin].id) ++end;
    if (end - begin > 1) {
      ++homed_shared;
      for (std::size_t h = begin; h < end; ++h) {
        auto& message = to_holders[records[h].rank];
        message.push_back(records[begin].id);
        message.push_back(static_cast<std::int64_t>(end - begin));
        for (std::size_t j = begin; j < end; ++j)
          message.push_back(2 * static_cast<std::int64_t>(records[j].rank) + (records[j].unflagged ? 1 : 0));
      }
    }
    begin = end;
  }
  return to_holders;
}

// Back at each holder: the answers arrive per home; merge them into one list by id.
void read_answers(const Messages& answers, Topology& topo) {
  std::vector<std::pair<std::int64_t, const std::int64_t*>> entries;
  for (const auto& [home, words] : answers) {
    for (std::size_t i = 0; i < words.size();) {
      entries.emplace_back(words[i], &words[i]);
      i += 2 + static_cast<std::size_t>(words[i + 1]);
    }
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  topo.shared_ids.reserve(entries.size());
  for (const auto& [id, record] : entries) {
    topo.shared_ids.push_back(id);
    const auto count = static_cast<std::size_t>(record[1]);
    for (std::size_t j = 0; j < count; ++j) {
      topo.holders.items.push_back(static_cast<int>(record[2 + j] / 2));
      topo.holder_unflagged.push_back(static_cast<unsigned char>(record[2 + j] % 2));
    }
    topo.holders.offsets.push_back(topo.holders.items.size());
  }
}

}  // namespace

Topology discover(std::span<const std::int64_t> ids, std::span<const index_t> order, MPI_Comm comm,
                  std::size_t chunk_bytes, double timeout) {
  const int ranks = comm_size(comm);
  Topology topo;
  if (ranks == 1) return topo;
  // Each round's messages are dropped as soon as the next step has read them: setup's peak
  // memory is one round's worth, not all of them.
  std::int64_t homed_shared = 0;
  Messages to_holders;
  {
    const Messages at_home =
        sparse_exchange(comm, tag_to_home, holders_to_homes(ids, order, ranks), chunk_bytes, timeout);
    to_holders = homes_to_holders(at_home, homed_shared);
  }
  const Messages answers = sparse_exchange(comm, tag_to_holders, std::move(to_holders), chunk_bytes, timeout);
  read_answers(answers, topo);
  topo.global_shared_ids = homed_shared;
  allreduce_polled(&topo.global_shared_ids, 1, MPI_INT64_T, MPI_SUM, comm, timeout);
  return topo;
}

}  // namespace gsr::detail
