// transfer/methods.hpp — the record transfer's three methods behind one signature, and the
// envelope the routed methods put in front of each record. transfer.cpp checks the
// arguments, agrees on them and picks the method; a method only moves validated records.
#pragma once

#include <gsr/transfer.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace gsr::detail {

class Watch;

/// gsr::transfer_bytes, and with `layout` (not NULL) gsr::transfer_tuples.
TransferResult transfer_records(const void* records, std::size_t count, std::size_t record_bytes,
                                std::span<const int> destinations, MPI_Comm comm,
                                const std::function<void*(std::size_t)>& make_room, const TransferOptions& options,
                                const TupleLayout* layout);

/// This rank's records, already checked: every destination is a rank of comm.
struct Outbox {
  const std::byte* records = nullptr;
  std::size_t count = 0;
  std::size_t record_bytes = 0;
  const int* destinations = nullptr;
};

/// Where a method delivers: make_room(n) gives room for the n records received, written in
/// the documented order (source rank, then position on the source); sources gets one rank
/// per record.
struct Inbox {
  const std::function<void*(std::size_t)>& make_room;
  std::vector<int>& sources;

  /// Calls make_room once; throws invalid_argument when it gives no room for n > 0 records.
  std::byte* room(std::size_t n, std::size_t record_bytes) const;
};

/// Each returns its rounds' statistics on this rank. Collective over the watch's
/// communicator (the transfer's own: methods use fixed tags), whose waits they all go
/// through (mpi/watch.hpp).
std::vector<TransferRoundStats> transfer_direct(Watch& watch, const Outbox& out, const Inbox& in);
std::vector<TransferRoundStats> transfer_crystal_router(Watch& watch, const Outbox& out, const Inbox& in);
std::vector<TransferRoundStats> transfer_two_round(Watch& watch, const Outbox& out, const Inbox& in);

/// What travels in front of each record when records are forwarded by ranks other than
/// their source (crystal router, two-round): where it came from and where it goes.
struct Envelope {
  std::int32_t source = 0;
  std::int32_t destination = 0;
};
static_assert(sizeof(Envelope) == 8);

/// A buffer of enveloped records: [Envelope][record bytes], back to back.
class EnvelopedRecords {
public:
  explicit EnvelopedRecords(std::size_t record_bytes) : record_bytes_(record_bytes) {}

  std::size_t stride() const noexcept { return sizeof(Envelope) + record_bytes_; }
  std::size_t record_bytes() const noexcept { return record_bytes_; }
  std::size_t size() const noexcept { return bytes_.size() / stride(); }
  std::size_t byte_size() const noexcept { return bytes_.size(); }
  const std::byte* data() const noexcept { return bytes_.data(); }
  std::byte* data() noexcept { return bytes_.data(); }

  Envelope envelope(std::size_t i) const noexcept;
  const std::byte* record(std::size_t i) const noexcept { return bytes_.data() + i * stride() + sizeof(Envelope); }

  void reserve(std::size_t n) { bytes_.reserve(n * stride()); }
  void resize_bytes(std::size_t bytes) { bytes_.resize(bytes); }
  void clear() noexcept { bytes_.clear(); }
  void append(const std::byte* enveloped, std::size_t n);  // n records already enveloped

private:
  std::size_t record_bytes_;
  std::vector<std::byte> bytes_;
};

/// Adds one message of `records` records and `bytes` bytes to a round's sent/received counts.
void count_sent(TransferRoundStats& round, std::size_t records, std::size_t bytes) noexcept;
void count_received(TransferRoundStats& round, std::size_t records, std::size_t bytes) noexcept;

/// Throws Error(internal) when a received message of `bytes` bytes is not a whole number
/// of `stride`-byte units (`what` names the message).
std::size_t whole_units(std::size_t bytes, std::size_t stride, const char* what);

}  // namespace gsr::detail
