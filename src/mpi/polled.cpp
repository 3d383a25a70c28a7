// mpi/polled.cpp — see polled.hpp.
#include "mpi/polled.hpp"

#include "mpi/checked.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace gsr::detail {

namespace {

/// The communicators whose handler ReturnErrors switched: how many switches of this process
/// are open on each, and the caller's handler to restore after the last.
struct Switches {
  struct Open {
    int count = 0;
    MPI_Errhandler callers = MPI_ERRHANDLER_NULL;
  };
  std::mutex mutex;
  std::map<MPI_Comm, Open, std::less<>> open;
};

Switches& switches() {
  static Switches* all = new Switches;  // never destroyed: used until MPI_Finalize
  return *all;
}

/// The byte size of one value of `type`.
std::size_t size_of(MPI_Datatype type) {
  int bytes = 0;
  GSR_MPI_CHECK(MPI_Type_size(type, &bytes));
  return static_cast<std::size_t>(bytes);
}

/// What MPI may write or read until a polled collective completes: it lives on the heap and
/// goes to the keeper if the wait gives up.
struct Buffers {
  std::vector<std::byte> in, out;
  MPI_Request request = MPI_REQUEST_NULL;
};

}  // namespace

ReturnErrors::ReturnErrors(MPI_Comm comm) : comm_(comm) {
  Switches& all = switches();
  const std::lock_guard lock(all.mutex);
  Switches::Open& open = all.open[comm];
  if (open.count == 0) {
    MPI_Errhandler callers = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(comm, &callers) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
      if (callers != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&callers);
      all.open.erase(comm);
      return;  // the collective runs under the caller's handler, as it did before
    }
    open.callers = callers;
  }
  ++open.count;
  switched_ = true;
}

MPI_Errhandler ReturnErrors::callers() const {
  Switches& all = switches();
  const std::lock_guard lock(all.mutex);
  const auto it = all.open.find(comm_);
  return it == all.open.end() ? MPI_ERRHANDLER_NULL : it->second.callers;
}

ReturnErrors::~ReturnErrors() {
  if (!switched_) return;
  Switches& all = switches();
  const std::lock_guard lock(all.mutex);
  const auto it = all.open.find(comm_);
  if (it == all.open.end() || --it->second.count > 0) return;
  MPI_Comm_set_errhandler(comm_, it->second.callers);
  MPI_Errhandler_free(&it->second.callers);
  all.open.erase(it);
}

void allreduce_polled(void* values, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(type);
  auto b = std::make_shared<Buffers>();
  b->in.assign(static_cast<const std::byte*>(values), static_cast<const std::byte*>(values) + bytes);
  b->out.resize(bytes);
  GSR_MPI_CHECK(MPI_Iallreduce(b->in.data(), b->out.data(), count, type, op, comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (bytes) std::memcpy(values, b->out.data(), bytes);
}

void exscan_polled(const void* mine, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   double timeout) {
  const ReturnErrors returning(comm);
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(type);
  auto b = std::make_shared<Buffers>();
  b->in.assign(static_cast<const std::byte*>(mine), static_cast<const std::byte*>(mine) + bytes);
  b->out.assign(static_cast<const std::byte*>(out), static_cast<const std::byte*>(out) + bytes);
  GSR_MPI_CHECK(MPI_Iexscan(b->in.data(), b->out.data(), count, type, op, comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (bytes) std::memcpy(out, b->out.data(), bytes);
}

std::vector<std::byte> allgather_polled(const void* mine, int bytes, MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  auto b = std::make_shared<Buffers>();
  b->in.assign(static_cast<const std::byte*>(mine), static_cast<const std::byte*>(mine) + bytes);
  b->out.resize(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(comm_size(comm)));
  GSR_MPI_CHECK(MPI_Iallgather(b->in.data(), bytes, MPI_BYTE, b->out.data(), bytes, MPI_BYTE, comm, &b->request));
  wait_polled(b->request, b, timeout);
  return std::move(b->out);
}

void allgatherv_polled(const void* mine, int count, MPI_Datatype type, void* out, const int* counts, const int* offsets,
                       MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  const std::size_t ranks = static_cast<std::size_t>(comm_size(comm)), value = size_of(type);
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r)
    total = std::max(total, static_cast<std::size_t>(offsets[r]) + static_cast<std::size_t>(counts[r]));
  struct Counts : Buffers {
    std::vector<int> counts;
  };
  auto b = std::make_shared<Counts>();
  b->in.assign(static_cast<const std::byte*>(mine), static_cast<const std::byte*>(mine) + count * value);
  b->out.resize(total * value);
  b->counts.assign(counts, counts + ranks);
  b->counts.insert(b->counts.end(), offsets, offsets + ranks);
  GSR_MPI_CHECK(MPI_Iallgatherv(b->in.data(), count, type, b->out.data(), b->counts.data(), b->counts.data() + ranks,
                                type, comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (!b->out.empty()) std::memcpy(out, b->out.data(), b->out.size());
}

void bcast_polled(void* data, int bytes, int root, MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  auto b = std::make_shared<Buffers>();
  b->out.assign(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + bytes);
  GSR_MPI_CHECK(MPI_Ibcast(b->out.data(), bytes, MPI_BYTE, root, comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (bytes) std::memcpy(data, b->out.data(), static_cast<std::size_t>(bytes));
}

void alltoall_polled(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(type) * static_cast<std::size_t>(comm_size(comm));
  auto b = std::make_shared<Buffers>();
  b->in.assign(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
  b->out.resize(bytes);
  GSR_MPI_CHECK(MPI_Ialltoall(b->in.data(), count, type, b->out.data(), count, type, comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (bytes) std::memcpy(receive, b->out.data(), bytes);
}

void alltoallv_polled(const void* send, const int* send_counts, const int* send_offsets, void* receive,
                      const int* receive_counts, const int* receive_offsets, MPI_Datatype type, MPI_Comm comm,
                      double timeout) {
  const ReturnErrors returning(comm);
  const std::size_t ranks = static_cast<std::size_t>(comm_size(comm)), value = size_of(type);
  std::size_t sent = 0, received = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    sent = std::max(sent, static_cast<std::size_t>(send_offsets[r]) + static_cast<std::size_t>(send_counts[r]));
    received =
        std::max(received, static_cast<std::size_t>(receive_offsets[r]) + static_cast<std::size_t>(receive_counts[r]));
  }
  // The counts and offsets travel with the buffers: MPI may read them until completion.
  struct Counts : Buffers {
    std::vector<int> counts;
  };
  auto b = std::make_shared<Counts>();
  b->in.assign(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + sent * value);
  b->out.resize(received * value);
  b->counts.assign(send_counts, send_counts + ranks);
  b->counts.insert(b->counts.end(), send_offsets, send_offsets + ranks);
  b->counts.insert(b->counts.end(), receive_counts, receive_counts + ranks);
  b->counts.insert(b->counts.end(), receive_offsets, receive_offsets + ranks);
  const int* c = b->counts.data();
  GSR_MPI_CHECK(MPI_Ialltoallv(b->in.data(), c, c + ranks, type, b->out.data(), c + 2 * ranks, c + 3 * ranks, type,
                               comm, &b->request));
  wait_polled(b->request, b, timeout);
  if (!b->out.empty()) std::memcpy(receive, b->out.data(), b->out.size());
}

void barrier_polled(MPI_Comm comm, double timeout) {
  const ReturnErrors returning(comm);
  auto b = std::make_shared<Buffers>();
  GSR_MPI_CHECK(MPI_Ibarrier(comm, &b->request));
  wait_polled(b->request, b, timeout);
}

MPI_Comm dup_polled(MPI_Comm comm, double timeout) {
  struct Duplicate {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  auto dup = std::make_shared<Duplicate>();
  const ReturnErrors returning(comm);
  GSR_MPI_CHECK(MPI_Comm_idup(comm, &dup->comm, &dup->request));
  wait_polled(dup->request, dup, timeout);
  // The duplicate inherited the switched handler: it gets the caller's.
  if (returning.switched()) {
    const int rc = MPI_Comm_set_errhandler(dup->comm, returning.callers());
    if (rc != MPI_SUCCESS) {
      MPI_Comm_free(&dup->comm);
      throw_mpi_error(rc, "MPI_Comm_set_errhandler", __FILE__, __LINE__);
    }
  }
  return dup->comm;
}

int ranks_on_node_polled(MPI_Comm comm, double timeout) {
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  GSR_MPI_CHECK(MPI_Get_processor_name(name, &length));
  std::uint64_t mine = 1469598103934665603ull;  // FNV-1a: the same on every rank, whatever its library
  for (int i = 0; i < length; ++i) mine = (mine ^ static_cast<unsigned char>(name[i])) * 1099511628211ull;
  const std::vector<std::byte> all = allgather_polled(&mine, sizeof mine, comm, timeout);
  int same = 0;
  for (std::size_t r = 0; r < all.size() / sizeof mine; ++r) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, all.data() + r * sizeof mine, sizeof mine);
    same += theirs == mine ? 1 : 0;
  }
  return same;
}

}  // namespace gsr::detail
