// setup/discovery.cpp — see discovery.hpp. Two rounds of sparse personalized exchange:
// holders -> homes (one int64 per distinct id, its sign carrying "held unflagged"), then
// homes -> holders (for each shared id: id, holder count, holders encoded 2*rank+unflagged).
#include "setup/discovery.hpp"

#include "mpi/checked.hpp"
#include "mpi/sparse_exchange.hpp"

#include <algorithm>
#include <limits>
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

void check_ids(std::span<const std::int64_t> ids) {
  if (ids.data() == nullptr && !ids.empty())
    throw Error(ErrorCode::invalid_argument, "gsr: ids are NULL with n = " + std::to_string(ids.size()) + " entries");
  if (ids.size() >= std::numeric_limits<index_t>::max())
    throw Error(ErrorCode::invalid_argument,
                "gsr: n = " + std::to_string(ids.size()) + " local ids exceed the limit of 2^32 - 1");
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == std::numeric_limits<std::int64_t>::min())
      throw Error(ErrorCode::invalid_argument,
                  "gsr: id[" + std::to_string(i) + "] = -2^63 has no positive counterpart");
}

std::vector<index_t> entries_by_id(std::span<const std::int64_t> ids) {
  // Sorting (|id|, index) pairs directly is several times faster than sorting indices
  // through the ids, and the index makes every key distinct, so the order is stable.
  std::vector<std::pair<std::uint64_t, index_t>> keyed;
  keyed.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0)
      keyed.emplace_back(static_cast<std::uint64_t>(ids[i] < 0 ? -ids[i] : ids[i]), static_cast<index_t>(i));
  std::sort(keyed.begin(), keyed.end());
  std::vector<index_t> order(keyed.size());
  for (std::size_t j = 0; j < keyed.size(); ++j) order[j] = keyed[j].second;
  return order;
}

Topology discover(std::span<const std::int64_t> ids, std::span<const index_t> order, MPI_Comm comm) {
  const int size = comm_size(comm);

  // Distinct |id| held here, encoded +|id| if some entry holds it unflagged, else -|id|.
  std::vector<std::int64_t> distinct;
  for (std::size_t begin = 0; begin < order.size();) {
    const std::int64_t id = ids[order[begin]] < 0 ? -ids[order[begin]] : ids[order[begin]];
    bool unflagged = false;
    std::size_t end = begin;
    for (; end < order.size() && (ids[order[end]] == id || ids[order[end]] == -id); ++end)
      unflagged = unflagged || ids[order[end]] > 0;
    distinct.push_back(unflagged ? id : -id);
    begin = end;
  }

  Topology topo;
  if (size == 1) return topo;

  std::map<int, std::vector<std::int64_t>> to_home;
  for (std::int64_t enc : distinct) to_home[home_rank(enc < 0 ? -enc : enc, size)].push_back(enc);
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
    for (std::int64_t enc : encs) records.push_back({enc < 0 ? -enc : enc, source, enc > 0});
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
      topo.holder_ranks.push_back(static_cast<int>(record[2 + j] / 2));
      topo.holder_unflagged.push_back(static_cast<unsigned char>(record[2 + j] % 2));
    }
    topo.holder_offsets.push_back(topo.holder_ranks.size());
  }

  GSR_MPI_CHECK(MPI_Allreduce(&homed_shared, &topo.global_shared_ids, 1, MPI_INT64_T, MPI_SUM, comm));
  return topo;
}

}  // namespace gsr::detail
