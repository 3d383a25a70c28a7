// transfer/records.cpp — the pieces the three methods share (methods.hpp): enveloped
// record buffers, the delivery room, per-round counts.
#include "transfer/methods.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace gsr::detail {

std::byte* Inbox::room(std::size_t n, std::size_t record_bytes) const {
  void* at = make_room(n);
  if (at == nullptr && n > 0 && record_bytes > 0)
    throw Error(ErrorCode::invalid_argument, "gsr: transfer: make_room returned NULL for " + std::to_string(n) +
                                                 " received records of " + std::to_string(record_bytes) + " bytes");
  return static_cast<std::byte*>(at);
}

Envelope EnvelopedRecords::envelope(std::size_t i) const noexcept {
  Envelope e;
  std::memcpy(&e, bytes_.data() + i * stride(), sizeof e);
  return e;
}

void EnvelopedRecords::append(const std::byte* enveloped, std::size_t n) {
  if (n == 0) return;
  bytes_.insert(bytes_.end(), enveloped, enveloped + n * stride());
}

void count_sent(TransferRoundStats& round, std::size_t records, std::size_t bytes) noexcept {
  ++round.messages_sent;
  round.records_sent += records;
  round.bytes_sent += bytes;
  round.largest_message_records = std::max(round.largest_message_records, records);
  round.largest_message_bytes = std::max(round.largest_message_bytes, bytes);
}

void count_received(TransferRoundStats& round, std::size_t records, std::size_t bytes) noexcept {
  ++round.messages_received;
  round.records_received += records;
  round.bytes_received += bytes;
}

std::size_t whole_units(std::size_t bytes, std::size_t stride, const char* what) {
  if (stride == 0) {
    if (bytes == 0) return 0;
  } else if (bytes % stride == 0) {
    return bytes / stride;
  }
  throw Error(ErrorCode::internal, std::string("gsr: transfer: ") + what + " of " + std::to_string(bytes) +
                                       " bytes is not a whole number of " + std::to_string(stride) + "-byte records");
}

}  // namespace gsr::detail
