// setup/ids.cpp — see ids.hpp.
#include "setup/ids.hpp"

#include <gsr/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <string>
#include <utility>

namespace gsr::detail {

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

namespace {

// Sorts `words` by their `key_bits` bits from bit `shift` up (none above), stably: a
// least-significant-digit radix sort by bytes, skipping the bytes in which every word
// agrees. The bits below `shift` keep the order they came in.
void radix_sort_from(std::vector<std::uint64_t>& words, unsigned shift, unsigned key_bits) {
  constexpr unsigned digits = 8;
  constexpr std::size_t buckets = std::size_t{1} << digits;
  const unsigned passes = (key_bits + digits - 1) / digits;
  std::vector<std::array<std::size_t, buckets>> counts(passes);
  for (const std::uint64_t w : words)
    for (unsigned p = 0; p < passes; ++p) ++counts[p][((w >> shift) >> (p * digits)) & (buckets - 1)];
  std::vector<std::uint64_t> scratch(words.size());
  for (unsigned p = 0; p < passes; ++p) {
    auto& count = counts[p];
    if (std::find(count.begin(), count.end(), words.size()) != count.end()) continue;  // one byte value for all
    std::size_t at = 0;
    for (std::size_t& c : count) at += std::exchange(c, at);  // counts become first positions
    const unsigned from = shift + p * digits;
    for (const std::uint64_t w : words) scratch[count[(w >> from) & (buckets - 1)]++] = w;
    words.swap(scratch);
  }
}

}  // namespace

std::vector<index_t> entries_by_id(std::span<const std::int64_t> ids) {
  // One word per entry, |id| above the index: a radix sort of the |id| bits, stable, keeps
  // index order within an |id|; about 5x faster than std::sort of pairs (docs/performance.md).
  const unsigned index_bits = static_cast<unsigned>(std::bit_width(ids.size()));
  std::uint64_t largest = 0;
  for (const std::int64_t id : ids) largest = std::max(largest, static_cast<std::uint64_t>(abs_id(id)));
  if (std::bit_width(largest) + index_bits <= 64) {
    std::vector<std::uint64_t> words;
    words.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != 0) words.push_back(static_cast<std::uint64_t>(abs_id(ids[i])) << index_bits | i);
    radix_sort_from(words, index_bits, static_cast<unsigned>(std::bit_width(largest)));
    std::vector<index_t> order(words.size());
    const std::uint64_t index_mask = (std::uint64_t{1} << index_bits) - 1;
    for (std::size_t j = 0; j < words.size(); ++j) order[j] = static_cast<index_t>(words[j] & index_mask);
    return order;
  }
  // Ids too large to share a word with the index: sorting (|id|, index) pairs directly is
  // several times faster than sorting indices through the ids, and the index makes every
  // key distinct, so the order is stable.
  std::vector<std::pair<std::uint64_t, index_t>> keyed;
  keyed.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0) keyed.emplace_back(static_cast<std::uint64_t>(abs_id(ids[i])), static_cast<index_t>(i));
  std::sort(keyed.begin(), keyed.end());
  std::vector<index_t> order(keyed.size());
  for (std::size_t j = 0; j < keyed.size(); ++j) order[j] = keyed[j].second;
  return order;
}

}  // namespace gsr::detail
