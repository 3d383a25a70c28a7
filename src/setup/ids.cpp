// setup/ids.cpp — see ids.hpp.
#include "setup/ids.hpp"

#include <gsr/error.hpp>

#include <algorithm>
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

std::vector<index_t> entries_by_id(std::span<const std::int64_t> ids) {
  // Sorting (|id|, index) pairs directly is several times faster than sorting indices
  // through the ids, and the index makes every key distinct, so the order is stable.
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
