// exchange/pairwise.cpp — see pairwise.hpp. Message to / from neighbour j: a MessageHeader,
// then the rows (k values each) of the groups shared with j, in ascending id order on both
// sides, so no ids travel per call.
#include "exchange/pairwise.hpp"

#include "mpi/checked.hpp"

#include <algorithm>
#include <cstring>

namespace gsr::detail {

PairwiseExchange::PairwiseExchange(const Plan& plan, MPI_Comm comm)
    : comm_(comm), shared_groups_(plan.shared_groups) {
  for (int r : plan.holders.items)
    if (r != plan.rank) neighbor_ranks_.push_back(r);
  std::sort(neighbor_ranks_.begin(), neighbor_ranks_.end());
  neighbor_ranks_.erase(std::unique(neighbor_ranks_.begin(), neighbor_ranks_.end()), neighbor_ranks_.end());
  auto neighbor_index = [&](int r) {
    return static_cast<std::size_t>(std::lower_bound(neighbor_ranks_.begin(), neighbor_ranks_.end(), r) -
                                    neighbor_ranks_.begin());
  };

  // Count, then fill, the groups per neighbour (ascending group index = ascending id).
  const std::size_t nn = neighbor_ranks_.size();
  std::vector<std::size_t> count(nn, 0);
  for (std::size_t s = 0; s < shared_groups_; ++s)
    for (int r : plan.holders.row(s))
      if (r != plan.rank) ++count[neighbor_index(r)];
  neighbor_groups_.offsets.assign(nn + 1, 0);
  for (std::size_t j = 0; j < nn; ++j) neighbor_groups_.offsets[j + 1] = neighbor_groups_.offsets[j] + count[j];
  neighbor_groups_.items.resize(neighbor_groups_.offsets[nn]);

  std::vector<std::size_t> cursor(neighbor_groups_.offsets.begin(), neighbor_groups_.offsets.end() - 1);
  combine_.offsets.reserve(shared_groups_ + 1);
  combine_.slot.reserve(plan.holders.items.size());
  combine_.index.reserve(plan.holders.items.size());
  for (std::size_t s = 0; s < shared_groups_; ++s) {
    for (int r : plan.holders.row(s)) {  // ascending rank: the canonical order
      if (r == plan.rank) {
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

std::size_t PairwiseExchange::bytes() const noexcept {
  return neighbor_ranks_.capacity() * sizeof(int) + neighbor_groups_.bytes() + combine_.bytes();
}

std::vector<StageStats> PairwiseExchange::stages() const {
  return {StageStats{neighbor_ranks_.size(), neighbor_groups_.items.size()}};
}

void PairwiseExchange::start(Workspace& ws) {
  const std::size_t nn = neighbor_ranks_.size();
  ws.requests.assign(2 * nn, MPI_REQUEST_NULL);
  ws.statuses.resize(2 * nn);
  const int tag = exchange_tag;
  const MessageHeader header{ws.info.signature(), ws.kernels ? 0u : 1u};

  if (!ws.kernels) {  // bad arguments here: tell every neighbour, receive in finish_failed
    ws.send.resize(nn * sizeof(MessageHeader));
    for (std::size_t j = 0; j < nn; ++j) {
      std::memcpy(ws.send.data() + j * sizeof header, &header, sizeof header);
      GSR_MPI_CHECK(MPI_Isend(ws.send.data() + j * sizeof header, sizeof header, MPI_BYTE,
                              neighbor_ranks_[j], tag, comm_, &ws.requests[nn + j]));
    }
    return;
  }

  const std::size_t row = ws.info.k * ws.kernels->value_size;
  const std::size_t total = nn * sizeof(MessageHeader) + neighbor_groups_.items.size() * row;
  ws.send.resize(total);
  ws.recv.resize(total);

  // Receives first, so a neighbour's message lands in place.
  std::size_t offset = 0;
  for (std::size_t j = 0; j < nn; ++j) {
    const std::size_t length = sizeof(MessageHeader) + neighbor_groups_.row(j).size() * row;
    GSR_MPI_CHECK(MPI_Irecv(ws.recv.data() + offset, mpi_count(length, "gs message"), MPI_BYTE,
                            neighbor_ranks_[j], tag, comm_, &ws.requests[j]));
    offset += length;
  }
  offset = 0;
  for (std::size_t j = 0; j < nn; ++j) {
    std::byte* out = ws.send.data() + offset;
    std::memcpy(out, &header, sizeof header);
    std::byte* values = out + sizeof header;
    for (index_t s : neighbor_groups_.row(j)) {
      std::memcpy(values, ws.partials.data() + s * row, row);
      values += row;
    }
    const std::size_t length = static_cast<std::size_t>(values - out);
    GSR_MPI_CHECK(MPI_Isend(out, mpi_count(length, "gs message"), MPI_BYTE, neighbor_ranks_[j], tag,
                            comm_, &ws.requests[nn + j]));
    offset += length;
  }
}

void PairwiseExchange::finish(Workspace& ws) {
  if (!ws.kernels) return finish_failed(ws);
  const std::size_t nn = neighbor_ranks_.size();
  const std::size_t row = ws.info.k * ws.kernels->value_size;

  const int rc = wait_all(ws.requests, ws.statuses);
  HeaderCheck check;
  ws.blocks.resize(nn + 1);
  ws.blocks[0] = ws.partials.data();
  std::size_t offset = 0;
  for (std::size_t j = 0; j < nn; ++j) {
    const std::size_t length = sizeof(MessageHeader) + neighbor_groups_.row(j).size() * row;
    if (rc != MPI_SUCCESS) check.check_status(ws.statuses[j].MPI_ERROR, ws.info, neighbor_ranks_[j]);
    int got = 0;
    MPI_Get_count(&ws.statuses[j], MPI_BYTE, &got);
    MessageHeader header;
    std::memcpy(&header, ws.recv.data() + offset, sizeof header);
    check.check(header, ws.info, neighbor_ranks_[j]);
    check.check_size(static_cast<std::size_t>(got), length, ws.info, neighbor_ranks_[j]);
    ws.blocks[1 + j] = ws.recv.data() + offset + sizeof(MessageHeader);
    offset += length;
  }
  if (rc != MPI_SUCCESS)
    for (std::size_t j = 0; j < nn; ++j) check.check_status(ws.statuses[nn + j].MPI_ERROR, ws.info, neighbor_ranks_[j]);
  check.throw_if_failed();

  ws.results.resize(shared_groups_ * row);
  ws.kernels->combine(ws.results.data(), ws.info.k, ws.blocks.data(), combine_);
}

void PairwiseExchange::finish_failed(Workspace& ws) {
  // Whatever size each neighbour sends, take it, so its send completes.
  const std::size_t nn = neighbor_ranks_.size();
  for (std::size_t j = 0; j < nn; ++j) {
    MPI_Message message;
    MPI_Status status;
    GSR_MPI_CHECK(MPI_Mprobe(neighbor_ranks_[j], exchange_tag, comm_, &message, &status));
    int count = 0;
    GSR_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count));
    ws.recv.resize(static_cast<std::size_t>(count));
    GSR_MPI_CHECK(MPI_Mrecv(ws.recv.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE));
  }
  GSR_MPI_CHECK(MPI_Waitall(static_cast<int>(ws.requests.size()), ws.requests.data(), MPI_STATUSES_IGNORE));
}

}  // namespace gsr::detail
