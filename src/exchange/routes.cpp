// exchange/routes.cpp — see routes.hpp. A message to or from neighbour j: a MessageHeader,
// then the rows (k values each) of the groups shared with j, in ascending id order on both
// sides, so no ids travel per call.
#include "exchange/routes.hpp"

#include <algorithm>
#include <cstring>

namespace gsr::detail {

NeighborRoutes::NeighborRoutes(const ExchangeInputs& in) : shared_groups(in.plan.shared_groups) {
  const int me = in.plan.rank;
  for (int r : in.holders.items)
    if (r != me) neighbor_ranks.push_back(r);
  std::sort(neighbor_ranks.begin(), neighbor_ranks.end());
  neighbor_ranks.erase(std::unique(neighbor_ranks.begin(), neighbor_ranks.end()), neighbor_ranks.end());

  // Count, then fill, the groups per neighbour (ascending group index = ascending id).
  const std::size_t nn = neighbor_ranks.size();
  std::vector<std::size_t> count(nn, 0);
  for (std::size_t s = 0; s < shared_groups; ++s)
    for (int r : in.holders.row(s))
      if (r != me) ++count[neighbor_index(r)];
  neighbor_groups.offsets.assign(nn + 1, 0);
  for (std::size_t j = 0; j < nn; ++j) neighbor_groups.offsets[j + 1] = neighbor_groups.offsets[j] + count[j];
  neighbor_groups.items.resize(neighbor_groups.offsets[nn]);

  std::vector<std::size_t> cursor(neighbor_groups.offsets.begin(), neighbor_groups.offsets.end() - 1);
  combine.offsets.reserve(shared_groups + 1);
  combine.slot.reserve(in.holders.items.size());
  combine.index.reserve(in.holders.items.size());
  for (std::size_t s = 0; s < shared_groups; ++s) {
    for (int r : in.holders.row(s)) {  // ascending rank: the canonical order
      if (r == me) {
        combine.slot.push_back(0);
        combine.index.push_back(static_cast<index_t>(s));
      } else {
        const std::size_t j = neighbor_index(r);
        combine.slot.push_back(static_cast<std::uint32_t>(1 + j));
        combine.index.push_back(static_cast<index_t>(cursor[j] - neighbor_groups.offsets[j]));
        neighbor_groups.items[cursor[j]++] = static_cast<index_t>(s);
      }
    }
    combine.offsets.push_back(combine.slot.size());
  }
  combine.find_pairs();
}

std::size_t NeighborRoutes::neighbor_index(int rank) const {
  return static_cast<std::size_t>(std::lower_bound(neighbor_ranks.begin(), neighbor_ranks.end(), rank) -
                                  neighbor_ranks.begin());
}

namespace {

// Rows of B bytes: a copy the compiler inlines, not a library call per row.
template <std::size_t B>
std::byte* copy_rows(std::span<const index_t> rows, const std::byte* partials, std::byte* out) {
  for (index_t s : rows) {
    std::memcpy(out, partials + static_cast<std::size_t>(s) * B, B);
    out += B;
  }
  return out;
}

}  // namespace

std::byte* NeighborRoutes::pack(std::size_t j, const MessageHeader& header, const std::byte* partials,
                                std::size_t row_bytes, std::byte* out) const {
  std::memcpy(out, &header, sizeof header);
  out += sizeof header;
  const auto rows = neighbor_groups.row(j);
  switch (row_bytes) {
    case 0:
      return out;
    case 4:
      return copy_rows<4>(rows, partials, out);
    case 8:
      return copy_rows<8>(rows, partials, out);
    case 16:
      return copy_rows<16>(rows, partials, out);
    case 24:
      return copy_rows<24>(rows, partials, out);
    case 32:
      return copy_rows<32>(rows, partials, out);
    default:
      for (index_t s : rows) {
        std::memcpy(out, partials + static_cast<std::size_t>(s) * row_bytes, row_bytes);
        out += row_bytes;
      }
      return out;
  }
}

std::size_t NeighborRoutes::bytes() const noexcept {
  return neighbor_ranks.capacity() * sizeof(int) + neighbor_groups.bytes() + combine.bytes();
}

std::size_t NeighborRoutes::call_bytes(bool packed) const noexcept {
  const std::size_t nn = neighbor_ranks.size();
  if (nn == 0) return 0;
  using Offset = decltype(neighbor_groups.offsets)::value_type;
  return nn * sizeof(int) + neighbor_groups.offsets.size() * sizeof(Offset) +
         (packed ? neighbor_groups.items.size() * sizeof(index_t) : 0) + combine.call_bytes();
}

std::vector<MessageStats> NeighborRoutes::messages() const {
  std::vector<MessageStats> out;
  for (std::size_t j = 0; j < neighbor_ranks.size(); ++j) {
    const std::size_t values = neighbor_groups.row(j).size();  // the same both ways
    out.push_back(MessageStats{0, neighbor_ranks[j], true, values});
    out.push_back(MessageStats{0, neighbor_ranks[j], false, values});
  }
  return out;
}

std::vector<StageStats> NeighborRoutes::stages() const {
  return {StageStats{neighbor_ranks.size(), neighbor_groups.items.size()}};
}

bool RoutedExchange::combine_blocks(Workspace& ws) const {
  if (!ws.kernels) return true;  // this rank's own arguments were bad; the handle says so
  ws.check.throw_if_failed();
  ws.combine = &routes_.combine;
  return true;
}

}  // namespace gsr::detail
