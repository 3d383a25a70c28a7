// setup/discovery.cpp — see discovery.hpp. Two rounds of sparse personalized exchange:
// holders -> homes (one int64 per distinct id, its sign carrying "held unflagged"), then
// homes -> holders (for each shared id: id, holder count, holders encoded 2*rank+unflagged).
#include "setup/discovery.hpp"

#include "mpi/checked.hpp"
#include "mpi/sparse_exchange.hpp"

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

Topology discover(std::span<const std::int64_t> ids, std::span<const index_t> order, MPI_Comm comm) {
  const int size = comm_size(comm);

  // Distinct |id| held here, encoded +|id| if some entry holds it unflagged, else -|id|.
  std::vector<std::int64_t> distinct;
  for_each_id_run(ids, order, [&](const IdRun& run) { distinct.push_back(run.any_unflagged ? run.id : -run.id); });

  Topology topo;
  if (size == 1) return topo;

  std::map<int, std::vector<std::int64_t>> to_home;
  for (std::int64_t enc : distinct) to_home[home_rank(abs_id(enc), size)].push_back(enc);
  const auto at_home = sparse_exchange(comm, tag_to_home, to_home);
  to_home.clear();

  // At the home: (|id|, holder, unflagged), sorted by id then holder rank.
  struct Record {
    std::int64_t id;
    int rank;
    bool unflagged;
  };
  std::vector<Record> records;
  for (const auto& [source, encs] : at_home)
    for (std::int64_t enc : encs) records.push_back({abs_id(enc), source, enc > 0});
  std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return a.id != b.id ? a.id < b.id : a.rank < b.rank;
  });

  std::int64_t homed_shared = 0;
  std::map<int, std::vector<std::int64_t>> to_holders;
  for (std::size_t begin = 0; begin < records.size();) {
    std::size_t end = begin + 1;
    while (end < records.size() && records[end].id == records[begin].id) ++end;
    if (end - begin > 1) {
      ++homed_shared;
      for (std::size_t h = begin; h < end; ++h) {
        auto& msg = to_holders[records[h].rank];
        msg.push_back(records[begin].id);
        msg.push_back(static_cast<std::int64_t>(end - begin));
        for (std::size_t j = begin; j < end; ++j)
          msg.push_back(2 * static_cast<std::int64_t>(records[j].rank) + (records[j].unflagged ? 1 : 0));
      }
    }
    begin = end;
  }
  std::vector<Record>().swap(records);
  const auto answers = sparse_exchange(comm, tag_to_holders, to_holders);
  to_holders.clear();

  // Answers arrive per home; merge them into one list sorted by id.
  std::vector<std::pair<std::int64_t, const std::int64_t*>> entries;
  for (const auto& [home, words] : answers) {
    for (std::size_t i = 0; i < words.size();) {
      entries.emplace_back(words[i], &words[i]);
      i += 2 + static_cast<std::size_t>(words[i + 1]);
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
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

  GSR_MPI_CHECK(MPI_Allreduce(&homed_shared, &topo.global_shared_ids, 1, MPI_INT64_T, MPI_SUM, comm));
  return topo;
}

}  // namespace gsr::detail
