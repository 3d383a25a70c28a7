// capi/transfer.cpp — the C record transfer of include/gsr/transfer.h: forwards to
// gsr::transfer_bytes and hands the results over in malloc'd memory. A NULL output pointer
// is reported through the transfer's own agreement (as an empty make_room), so it is an
// error on every rank like any other bad argument. Errors go through the C shim's guard.
#include <gsr/transfer.h>
#include <gsr/transfer.hpp>

#include "capi/errors.hpp"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <span>

namespace {

const char* const function_name = "gsr_transfer";

}  // namespace

extern "C" {

int gsr_transfer(const void* records, size_t count, size_t record_bytes, const int* destinations, MPI_Comm comm,
                 int method, void** received, int** sources, size_t* received_count, gsr_transfer_stats* stats) {
  if (received) *received = nullptr;
  if (sources) *sources = nullptr;
  if (received_count) *received_count = 0;
  void* room = nullptr;
  int* from = nullptr;
  const bool ok = gsr::capi::guarded(function_name, comm, [&] {
    if (comm == MPI_COMM_NULL) throw gsr::Error(gsr::ErrorCode::invalid_argument, "comm is MPI_COMM_NULL");
    std::function<void*(std::size_t)> make_room;
    if (received && sources && received_count)
      make_room = [&](std::size_t n) -> void* {
        if (n == 0 || record_bytes == 0) return nullptr;
        room = std::malloc(n * record_bytes);
        if (!room) throw std::bad_alloc();
        return room;
      };
    try {
      const gsr::TransferResult result =
          gsr::transfer_bytes(records, count, record_bytes, std::span<const int>(destinations, count),
                              comm, make_room, static_cast<gsr::TransferMethod>(method));
      if (!result.sources.empty()) {
        from = static_cast<int*>(std::malloc(result.sources.size() * sizeof(int)));
        if (!from) throw std::bad_alloc();
        std::memcpy(from, result.sources.data(), result.sources.size() * sizeof(int));
      }
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
      *sources = from;
      *received_count = result.count;
    } catch (...) {
      std::free(room);
      std::free(from);
      throw;
    }
  });
  return ok ? GSR_SUCCESS : gsr_last_error();
}

const char* gsr_transfer_method_name(int method) {
  // The C++ names are string literals, so their views are NUL-terminated.
  return gsr::to_string(static_cast<gsr::TransferMethod>(method)).data();
}

}  // extern "C"
