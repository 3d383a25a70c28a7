// transfer_patterns.hpp — the record patterns the transfer tests send, and what each rank
// must receive. Every rank can build every rank's records from the pattern and the seed, so
// the expectation is computed here, independently of the library: walk the sources in rank
// order and keep, in their order, the records addressed to this rank.
#pragma once

#include "random.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gsr_test {

/// A record as tests send it: where it came from, its position there, and some payload.
struct Record {
  std::int32_t source = 0;
  std::int32_t index = 0;
  std::int64_t payload = 0;
  double value = 0;
  bool operator==(const Record&) const = default;
};

enum class Pattern {
  random,       // 0..40 records per rank, random destinations
  all_to_one,   // every rank sends 30 records, all to rank P-1
  permutation,  // rank i sends 25 records, all to rank perm(i), perm a seeded permutation
  empty_ranks,  // even ranks send nothing; odd ranks 0..60 records to random ranks
  zero,         // nobody sends anything
  staircase,    // every rank sends P-j records to each rank j >= 1
  self_only,    // every rank sends 10 records to itself
};

inline const char* name_of(Pattern p) {
  switch (p) {
    case Pattern::random:
      return "random";
    case Pattern::all_to_one:
      return "all_to_one";
    case Pattern::permutation:
      return "permutation";
    case Pattern::empty_ranks:
      return "empty_ranks";
    case Pattern::zero:
      return "zero";
    case Pattern::staircase:
      return "staircase";
    case Pattern::self_only:
      return "self_only";
  }
  return "?";
}

inline constexpr Pattern all_patterns[] = {Pattern::random,      Pattern::all_to_one, Pattern::permutation,
                                           Pattern::empty_ranks, Pattern::zero,       Pattern::staircase,
                                           Pattern::self_only};

struct Outgoing {
  std::vector<Record> records;
  std::vector<int> destinations;
};

/// A seeded permutation of 0..P-1 (Fisher-Yates on the suite's generator).
inline std::vector<int> permutation_of(int ranks, std::uint64_t seed) {
  std::vector<int> perm(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) perm[r] = r;
  Random rng(seed ^ 0x5eedULL);
  for (int r = ranks - 1; r > 0; --r) std::swap(perm[r], perm[rng.below(static_cast<std::uint64_t>(r) + 1)]);
  return perm;
}

/// What rank `rank` of `ranks` sends under `pattern` with `seed`.
inline Outgoing outgoing_of(Pattern pattern, int rank, int ranks, std::uint64_t seed) {
  Random rng(seed * 1000003ULL + static_cast<std::uint64_t>(rank) * 7919ULL + static_cast<std::uint64_t>(pattern));
  Outgoing out;
  auto add = [&](int dest) {
    Record r;
    r.source = rank;
    r.index = static_cast<std::int32_t>(out.records.size());
    r.payload = static_cast<std::int64_t>(rng.bits());
    r.value = rng.uniform(-1, 1);
    out.records.push_back(r);
    out.destinations.push_back(dest);
  };
  auto random_rank = [&] { return static_cast<int>(rng.below(static_cast<std::uint64_t>(ranks))); };
  switch (pattern) {
    case Pattern::random:
      for (auto n = rng.below(41); n > 0; --n) add(random_rank());
      break;
    case Pattern::all_to_one:
      for (int n = 0; n < 30; ++n) add(ranks - 1);
      break;
    case Pattern::permutation: {
      const int to = permutation_of(ranks, seed)[rank];
      for (int n = 0; n < 25; ++n) add(to);
      break;
    }
    case Pattern::empty_ranks:
      if (rank % 2 == 1)
        for (auto n = rng.below(61); n > 0; --n) add(random_rank());
      break;
    case Pattern::zero:
      break;
    case Pattern::staircase:
      // P - j records to every rank j >= 1 (none to rank 0), interleaved: the case where the
      // two-round first-round bound is reached exactly (docs/transfer.md), since each run of
      // extra records for j starts at bin (i + j) mod P and all of them cover bin i - 1.
      for (int round = 0; round < ranks; ++round)
        for (int j = 1; j < ranks; ++j)
          if (round < ranks - j) add(j);
      break;
    case Pattern::self_only:
      for (int n = 0; n < 10; ++n) add(rank);
      break;
  }
  return out;
}

struct Expected {
  std::vector<Record> records;
  std::vector<int> sources;
  std::size_t most_sent = 0;      // n: the most records any rank starts with
  std::size_t most_received = 0;  // h: the most records any rank receives
};

/// What rank `rank` must receive: sources in rank order, each source's records in order.
inline Expected expected_at(Pattern pattern, int rank, int ranks, std::uint64_t seed) {
  Expected e;
  std::vector<std::size_t> received(static_cast<std::size_t>(ranks), 0);
  for (int s = 0; s < ranks; ++s) {
    const Outgoing out = outgoing_of(pattern, s, ranks, seed);
    e.most_sent = std::max(e.most_sent, out.records.size());
    for (std::size_t i = 0; i < out.records.size(); ++i) {
      ++received[out.destinations[i]];
      if (out.destinations[i] != rank) continue;
      e.records.push_back(out.records[i]);
      e.sources.push_back(s);
    }
  }
  for (std::size_t r : received) e.most_received = std::max(e.most_received, r);
  return e;
}

/// The two-round bound of docs/transfer.md: a bin dealt from `records` records over `ranks`
/// bins, each destination's run starting at its own bin, holds at most
/// floor(records / P + (P - 1) / 2) = floor((2 records + P (P - 1)) / (2 P)) records.
inline std::size_t two_round_bound(std::size_t records, int ranks) {
  const std::size_t p = static_cast<std::size_t>(ranks);
  return (2 * records + p * (p - 1)) / (2 * p);
}

inline int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

}  // namespace gsr_test
