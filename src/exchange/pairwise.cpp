// exchange/pairwise.cpp — see pairwise.hpp. Message to / from neighbour j: a MessageHeader,
// then the rows (k values each) of the groups shared with j, in ascending id order on both
// sides, so no ids travel per call.
#include "exchange/pairwise.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"

#include <algorithm>
#include <cstring>

namespace gsr::detail {

PairwiseExchange::PairwiseExchange(const ExchangeInputs& in) : comm_(in.comm), shared_groups_(in.plan.shared_groups) {
  const int me = in.plan.rank;
  for (int r : in.holders.items)
    if (r != me) neighbor_ranks_.push_back(r);
  std::sort(neighbor_ranks_.begin(), neighbor_ranks_.end());
  neighbor_ranks_.erase(std::unique(neighbor_ranks_.begin(), neighbor_ranks_.end()), neighbor_ranks_.end());

  // Count, then fill, the groups per neighbour (ascending group index = ascending id).
  const std::size_t nn = neighbor_ranks_.size();
  std::vector<std::size_t> count(nn, 0);
  for (std::size_t s = 0; s < shared_groups_; ++s)
    for (int r : in.holders.row(s))
      if (r != me) ++count[neighbor_index(r)];
  neighbor_groups_.offsets.assign(nn + 1, 0);
  for (std::size_t j = 0; j < nn; ++j) neighbor_groups_.offsets[j + 1] = neighbor_groups_.offsets[j] + count[j];
  neighbor_groups_.items.resize(neighbor_groups_.offsets[nn]);

  std::vector<std::size_t> cursor(neighbor_groups_.offsets.begin(), neighbor_groups_.offsets.end() - 1);
  combine_.offsets.reserve(shared_groups_ + 1);
  combine_.slot.reserve(in.holders.items.size());
  combine_.index.reserve(in.holders.items.size());
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    for (int r : in.holders.row(s)) {  // ascending rank: the canonical order
      if (r == me) {
        combine_.slot.push_back(0);
        combine_.index.push_back(static_cast<index_t>(s));
      } else {
        const std::size_t j = neighbor_index(r);
        combine_.slot.push_back(static_cast<std::uint32_t>(1 + j));
        combine_.index.push_back(static_cast<index_t>(cursor[j] - neighbor_groups_.offsets[j]));
        neighbor_groups_.items[cursor[j]++] = static_cast<index_t>(s);
      }
    }
    combine_.offsets.push_back(combine_.slot.size());
  }
}

std::size_t PairwiseExchange::neighbor_index(int rank) const {
  return static_cast<std::size_t>(std::lower_bound(neighbor_ranks_.begin(), neighbor_ranks_.end(), rank) -
                                  neighbor_ranks_.begin());
}

std::size_t PairwiseExchange::message_bytes(std::size_t j, std::size_t row_bytes) const {
  return sizeof(MessageHeader) + neighbor_groups_.row(j).size() * row_bytes;
}

std::size_t PairwiseExchange::bytes() const noexcept {
  return neighbor_ranks_.capacity() * sizeof(int) + neighbor_groups_.bytes() + combine_.bytes();
}

std::vector<MessageStats> PairwiseExchange::messages() const {
  std::vector<MessageStats> out;
  for (std::size_t j = 0; j < neighbor_ranks_.size(); ++j) {
    const std::size_t values = neighbor_groups_.row(j).size();  // the same both ways
    out.push_back(MessageStats{0, neighbor_ranks_[j], true, values});
    out.push_back(MessageStats{0, neighbor_ranks_[j], false, values});
  }
  return out;
}

std::vector<int> PairwiseExchange::awaited(const Workspace& ws) const {
  std::vector<int> ranks;
  for (std::size_t j = 0; j < neighbor_ranks_.size(); ++j)
    if (ws.blocks.size() > 1 + j && !ws.blocks[1 + j]) ranks.push_back(neighbor_ranks_[j]);
  return ranks;
}

std::vector<StageStats> PairwiseExchange::stages() const {
  return {StageStats{neighbor_ranks_.size(), neighbor_groups_.items.size()}};
}

void PairwiseExchange::begin(Workspace& ws) {
  // A rank whose arguments were bad sends every neighbour a header saying so.
  const std::size_t nn = neighbor_ranks_.size();
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  const MessageHeader header = MessageHeader::of(ws.info, ws.kernels ? HeaderStatus::ok : HeaderStatus::own_failure);
  std::size_t total = 0;
  for (std::size_t j = 0; j < nn; ++j) total += message_bytes(j, row);
  ws.tag = tags_.next();
  ws.check = HeaderCheck{};
  ws.send.resize(total);
  ws.recv.resize(total);
  ws.blocks.assign(nn + 1, nullptr);  // nullptr: neighbour j's message not yet received
  ws.blocks[0] = ws.partials.data();
  ws.requests.clear();

  std::byte* out = ws.send.data();
  for (std::size_t j = 0; j < nn; ++j) {
    std::memcpy(out, &header, sizeof header);
    std::byte* values = out + sizeof header;
    if (ws.kernels)
      for (index_t s : neighbor_groups_.row(j)) {
        std::memcpy(values, ws.partials.data() + s * row, row);
        values += row;
      }
    const std::size_t length = static_cast<std::size_t>(values - out);
    post_send(out, length, neighbor_ranks_[j], ws.tag, comm_, ws.requests);
    out = values;
  }
}

bool PairwiseExchange::advance(Workspace& ws) {
  // Each neighbour's message is probed before it is received (exchange/protocol.hpp): a
  // neighbour that disagrees about the call may send more than this rank expects.
  const std::size_t nn = neighbor_ranks_.size();
  const std::size_t row = ws.kernels ? ws.info.k * ws.kernels->value_size : 0;
  bool all_received = true;
  std::byte* in = ws.recv.data();
  for (std::size_t j = 0; j < nn; ++j) {
    const std::size_t length = message_bytes(j, row);
    if (!ws.blocks[1 + j]) {
      const std::byte* got =
          try_receive_checked(comm_, neighbor_ranks_[j], ws.tag, in, length, ws.overflow, ws.info, ws.check);
      if (got) ws.blocks[1 + j] = got + sizeof(MessageHeader);
      else all_received = false;
    }
    in += length;
  }
  if (!all_received || !test_all(ws.requests, "gs message send")) return false;
  if (!ws.kernels) return true;  // this rank's own arguments were bad; the handle says so
  ws.check.throw_if_failed();
  ws.results.resize(shared_groups_ * row);
  ws.kernels->combine(ws.results.data(), ws.info.k, ws.blocks.data(), combine_);
  return true;
}

}  // namespace gsr::detail
