// capi/transfer.cpp — the C personalized communication of include/gsr/transfer.h: record
// transfer, scatter and gather. Each forwards to its byte-level C++ core (gsr::transfer_bytes,
// gsr::scatter_bytes, gsr::gather_bytes) and hands the results over in malloc'd memory. A
// NULL output pointer is reported through the core's own agreement (as an empty make_room),
// so it is an error on every rank like any other bad argument. Errors go through the C
// shim's guard.
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.h>
#include <gsr/transfer.hpp>

#include "capi/errors.hpp"
#include "capi/shim.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <span>

namespace {

/// malloc'd room for n values of `bytes` each, recorded in `room` (NULL when empty, so the
/// caller frees what it got either way).
void* allocate(void*& room, std::size_t n, std::size_t bytes) {
  if (n == 0 || bytes == 0) return nullptr;
  if (n > std::numeric_limits<std::size_t>::max() / bytes) throw std::bad_alloc();
  room = std::malloc(n * bytes);
  if (!room) throw std::bad_alloc();
  return room;
}

/// The destinations as a span; a NULL pointer gives an empty one (a span of NULL with a
/// length is not allowed), whose length the core then finds wrong (E-TRANSFER-NULL or
/// E-TRANSFER-LENGTHS) on every rank.
std::span<const int> destinations_of(const int* destinations, std::size_t count) {
  return destinations ? std::span<const int>(destinations, count) : std::span<const int>();
}

void copy_stats(const gsr::TreeStats& from, gsr_tree_stats* to) {
  if (!to) return;
  to->tree_rounds = from.tree_rounds;
  to->rounds = from.rounds;
  to->messages_sent = from.messages_sent;
  to->messages_received = from.messages_received;
  to->bytes_sent = from.bytes_sent;
  to->bytes_received = from.bytes_received;
  to->header_bytes_sent = from.header_bytes_sent;
  to->header_bytes_received = from.header_bytes_received;
}

int transfer_into(const void* records, size_t count, size_t record_bytes, const int* destinations,
                  size_t destination_count, MPI_Comm comm, int method, const gsr::TupleLayout* layout, void** received,
                  int** sources, size_t* received_count, gsr_transfer_stats* stats) {
  if (received) *received = nullptr;
  if (sources) *sources = nullptr;
  if (received_count) *received_count = 0;
  void* room = nullptr;
  void* from = nullptr;
  const bool ok = gsr::capi::guarded("gsr_transfer", comm, [&] {
    if (comm == MPI_COMM_NULL) throw gsr::Error(gsr::ErrorCode::invalid_argument, "comm is MPI_COMM_NULL");
    // Both outputs are allocated inside the transfer, so running out of memory for either
    // is a failure every rank learns of (E-TRANSFER-PEER-FAILED).
    std::function<void*(std::size_t)> make_room;
    if (received && sources && received_count)
      make_room = [&](std::size_t n) {
        allocate(from, n, sizeof(int));
        return allocate(room, n, record_bytes);
      };
    try {
      const std::span<const int> to = destinations_of(destinations, destination_count);
      const gsr::TransferResult result =
          layout ? gsr::transfer_tuples(records, count, record_bytes, to, comm, make_room, *layout)
                 : gsr::transfer_bytes(records, count, record_bytes, to, comm, make_room,
                                       static_cast<gsr::TransferMethod>(method));
      if (!result.sources.empty()) std::memcpy(from, result.sources.data(), result.sources.size() * sizeof(int));
      if (stats) {
        const gsr::TransferRoundStats total = result.stats.total();
        stats->method = static_cast<int>(result.stats.method);
        stats->stages = static_cast<int>(result.stats.stages());
        stats->messages_sent = total.messages_sent;
        stats->messages_received = total.messages_received;
        stats->records_sent = total.records_sent;
        stats->records_received = total.records_received;
        stats->bytes_sent = total.bytes_sent;
        stats->bytes_received = total.bytes_received;
        stats->largest_message_records = total.largest_message_records;
        stats->largest_message_bytes = total.largest_message_bytes;
      }
      *received = room;
      *sources = static_cast<int*>(from);
      *received_count = result.count;
    } catch (...) {
      std::free(room);
      std::free(from);
      throw;
    }
  });
  return ok ? GSR_SUCCESS : gsr_last_error();
}

}  // namespace

extern "C" {

int gsr_transfer(const void* records, size_t count, size_t record_bytes, const int* destinations, MPI_Comm comm,
                 int method, void** received, int** sources, size_t* received_count, gsr_transfer_stats* stats) {
  return gsr_shim_transfer(records, count, record_bytes, destinations, count, comm, method, received, sources,
                           received_count, stats);
}

int gsr_shim_transfer(const void* records, size_t count, size_t record_bytes, const int* destinations,
                      size_t destination_count, MPI_Comm comm, int method, void** received, int** sources,
                      size_t* received_count, gsr_transfer_stats* stats) {
  return transfer_into(records, count, record_bytes, destinations, destination_count, comm, method, nullptr, received,
                       sources, received_count, stats);
}

int gsr_shim_transfer_tuples(const void* records, size_t count, size_t record_bytes, const int* destinations,
                             MPI_Comm comm, const int64_t layout[3], void** received, int** sources,
                             size_t* received_count) {
  const gsr::TupleLayout parts{layout[0], layout[1], layout[2]};
  return transfer_into(records, count, record_bytes, destinations, count, comm, GSR_TRANSFER_AUTO, &parts, received,
                       sources, received_count, nullptr);
}

int gsr_scatter(const void* data, const std::int64_t* counts, size_t value_bytes, int root, MPI_Comm comm, void** block,
                size_t* count, gsr_tree_stats* stats) {
  // Only the root's counts are read, and only there can their number be known (one per
  // rank); elsewhere none are passed.
  int rank = 0, ranks = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
  }
  const std::size_t given = rank == root && counts != nullptr ? static_cast<std::size_t>(ranks) : 0;
  return gsr_shim_scatter(data, gsr::unknown_length, counts, given, value_bytes, root, comm, block, count, stats);
}

int gsr_shim_scatter(const void* data, size_t data_length, const std::int64_t* counts, size_t counts_count,
                     size_t value_bytes, int root, MPI_Comm comm, void** block, size_t* count, gsr_tree_stats* stats) {
  if (block) *block = nullptr;
  if (count) *count = 0;
  void* room = nullptr;
  const bool ok = gsr::capi::guarded("gsr_scatter", comm, [&] {
    std::function<void*(std::size_t)> make_room;
    if (block && count) make_room = [&](std::size_t n) { return allocate(room, n, value_bytes); };
    const std::span<const std::int64_t> given =
        counts ? std::span<const std::int64_t>(counts, counts_count) : std::span<const std::int64_t>();
    try {
      const gsr::ScatterResult result =
          gsr::scatter_bytes(data, data_length, given, value_bytes, root, comm, make_room);
      copy_stats(result.stats, stats);
      *block = room;
      *count = result.count;
    } catch (...) {
      std::free(room);
      throw;
    }
  });
  return ok ? GSR_SUCCESS : gsr_last_error();
}

int gsr_gather(const void* data, std::int64_t count, size_t value_bytes, int root, MPI_Comm comm, void** blocks,
               std::int64_t** counts, gsr_tree_stats* stats) {
  if (blocks) *blocks = nullptr;
  if (counts) *counts = nullptr;
  void* room = nullptr;
  std::int64_t* sizes = nullptr;
  const bool ok = gsr::capi::guarded("gsr_gather", comm, [&] {
    // Both outputs are allocated inside the gather (the root's make_room), so running out of
    // memory for either is a failure every rank learns of (E-SG-PEER-FAILED).
    void* sizes_room = nullptr;
    std::function<void*(std::size_t)> make_room;
    if (blocks && counts)
      make_room = [&](std::size_t n) {
        int ranks = 0;
        MPI_Comm_size(comm, &ranks);  // a valid communicator: make_room runs inside the gather
        allocate(sizes_room, static_cast<std::size_t>(ranks), sizeof(std::int64_t));
        sizes = static_cast<std::int64_t*>(sizes_room);
        return allocate(room, n, value_bytes);
      };
    try {
      const gsr::GatherResult result = gsr::gather_bytes(data, count, value_bytes, root, comm, make_room);
      if (sizes)
        for (std::size_t r = 0; r < result.counts.size(); ++r) sizes[r] = static_cast<std::int64_t>(result.counts[r]);
      copy_stats(result.stats, stats);
      *blocks = room;
      *counts = sizes;
    } catch (...) {
      std::free(room);
      std::free(sizes);
      throw;
    }
  });
  return ok ? GSR_SUCCESS : gsr_last_error();
}

void gsr_shim_fail_transfer(MPI_Comm comm, int code, const char* call, const char* message) {
  gsr::capi::guarded(call, comm, [&] {
    // Named by the call here too, so the other ranks' E-TRANSFER-REMOTE quotes it in full.
    gsr::fail_transfer(comm, static_cast<gsr::ErrorCode>(code), gsr::capi::format_failure(call, message));
  });
}

const char* gsr_transfer_method_name(int method) {
  // The C++ names are string literals, so their views are NUL-terminated.
  return gsr::to_string(static_cast<gsr::TransferMethod>(method)).data();
}

}  // extern "C"
