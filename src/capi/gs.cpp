// capi/gs.cpp — the C shim of gs.h: converts, validates handles, forwards to gsr::Handle,
// and turns exceptions into the documented error behaviour (capi/errors.hpp).
#include <gsr/gs.h>
#include <gsr/gslib.h>
#include <gsr/handle.hpp>

#include "capi/errors.hpp"
#include "capi/shim.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace gsr::capi {
struct LiveHandle;
}  // namespace gsr::capi

// What a gs_setup pointer points at. As in gslib, its first member is the handle's own
// struct comm (its duplicated communicator): codes written for gslib read gsh->comm.c
// (Nek5000's fem_amg_preco.c declares `struct gs_data { struct comm comm; }` for that).
// Callers never reach the handle but through the registry below.
struct gs_data {
  struct comm comm;
};
static_assert(std::is_standard_layout_v<gs_data> && offsetof(gs_data, comm) == 0,
              "struct comm must be the first member, at the struct's address");

namespace gsr::capi {

// What a gs_setup handle owns.
struct LiveHandle {
  gsr::Handle handle;
  int serial;  // names the handle in igs request ids
  // In flight, by request index. A deque: starting a request never moves the others, which
  // a wait refused on another thread may be looking at.
  struct alignas(64) InFlight {  // 64 bytes, a power of two: found in the deque by shifts
    std::optional<gsr::Request> request;
    // Set while a gs_wait for it runs: another thread's wait meanwhile is refused before it
    // looks at `request` (E-THREAD-HANDLE-BUSY), which the running wait empties at its end.
    // A load and a store, as ThreadEntry's flags (mpi/threads.hpp), not an exchange.
    std::atomic<bool> waited{false};
  };
  std::deque<InFlight> requests;
};

namespace {

// The registry below is shared by the threads (docs/threads.md): setups and frees change
// it under `registry_lock` held exclusively; a call finds its handle under the lock shared,
// or without it when the handle is the one this thread found last and no handle has been
// freed since (`last_found`, checked against `frees`), which is every call of a thread
// working on one handle.
//
// The live handles, by the address of their struct gs_data. Freed handles leave this map,
// so the per-call lookup sees live handles only; their structs are kept in `freed` (the
// handles released) so that a pointer used after gs_free is refused as freed rather than
// reaching a new handle that malloc put at the same address. After `freed_kept` more frees
// the oldest freed struct is released.
struct Issued {
  std::unique_ptr<gs_data> shell;
  std::unique_ptr<LiveHandle> live;
};
// Allocated once and never destroyed: a process that ends with exit() before MPI_Finalize
// (a Fortran runtime error in a Nek5000 run, say) must not run handle destructors then,
// which would talk to ranks that may be stopped or gone. After MPI_Finalize there is nothing
// left for them to do. The handles stay reachable, so leak checkers do not count them.
std::map<const gs_data*, Issued>& live_handles = *new std::map<const gs_data*, Issued>;
std::deque<std::unique_ptr<gs_data>> freed;
constexpr std::size_t freed_kept = std::size_t{1} << 16;

// Live handles by serial, to map igs request ids back to their handle. Requests themselves
// live in their handle.
std::map<int, LiveHandle*> handles_by_serial;
int next_serial = 1;
constexpr int requests_per_handle = 1 << 12;
// Request ids are serial * requests_per_handle + index and must stay a positive int, so
// serials wrap around and a serial is reused once its handle is freed.
constexpr int max_serial = std::numeric_limits<int>::max() / requests_per_handle - 1;

std::shared_mutex registry_lock;
std::atomic<gsr_shim_free_hook> free_hook{nullptr};  // capi/shim.h: told of every handle gs_free frees
std::atomic<std::uint64_t> frees{0};                 // handles freed so far; bumped under registry_lock

struct LastFound {
  const gs_data* h = nullptr;
  LiveHandle* live = nullptr;
  int serial = 0;           // live->serial, so that a stale entry is never dereferenced
  std::uint64_t frees = 0;  // `frees` when it was found: valid while no handle was freed
};
// initial-exec: a plain load, not a call to __tls_get_addr, on every call.
thread_local constinit LastFound last_found __attribute__((tls_model("initial-exec")));

// Under registry_lock held exclusively.
int allocate_serial() {
  for (int tried = 0; tried < max_serial; ++tried) {
    const int serial = next_serial;
    next_serial = next_serial >= max_serial ? 1 : next_serial + 1;
    if (!handles_by_serial.count(serial)) return serial;
  }
  throw Error(ErrorCode::state, "gsr: more than " + std::to_string(max_serial) + " handles are live; gs_free some");
}

LiveHandle* find_live(const gs_data* h) {
  if (h == last_found.h && last_found.frees == frees.load(std::memory_order_acquire)) return last_found.live;
  const std::shared_lock lock(registry_lock);
  const auto found = live_handles.find(h);
  if (found == live_handles.end()) return nullptr;
  LiveHandle* const live = found->second.live.get();
  last_found = LastFound{h, live, live->serial, frees.load(std::memory_order_relaxed)};
  return last_found.live;
}

LiveHandle* find_by_serial(int serial) {
  if (last_found.live && last_found.serial == serial && last_found.frees == frees.load(std::memory_order_acquire))
    return last_found.live;
  const std::shared_lock lock(registry_lock);
  const auto found = handles_by_serial.find(serial);
  return found == handles_by_serial.end() ? nullptr : found->second;
}

// Only on the error path: a linear search of at most freed_kept structs.
bool was_freed(const gs_data* h) {
  const std::shared_lock lock(registry_lock);
  return std::any_of(freed.begin(), freed.end(), [h](const auto& shell) { return shell.get() == h; });
}

gs_data* register_handle(std::unique_ptr<LiveHandle> live) {
  const MPI_Comm comm = live->handle.comm();
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto shell = std::make_unique<gs_data>(gs_data{{static_cast<uint>(rank), static_cast<uint>(size), comm}});
  gs_data* const h = shell.get();
  const std::unique_lock lock(registry_lock);
  live->serial = allocate_serial();
  handles_by_serial[live->serial] = live.get();
  live_handles.emplace(h, Issued{std::move(shell), std::move(live)});
  return h;
}

// The handle is destroyed (its neighbours told, its communicator freed) after the lock is
// released: other threads' lookups do not wait for that.
void unregister_handle(const gs_data* h) {
  std::unique_ptr<LiveHandle> released;
  {
    const std::unique_lock lock(registry_lock);
    const auto found = live_handles.find(h);
    if (found == live_handles.end())  // another thread freed it meanwhile
      throw Error(ErrorCode::state, "gsr: the handle was freed by gs_free (a stale pointer); set up a new one");
    handles_by_serial.erase(found->second.live->serial);
    found->second.shell->comm.c = MPI_COMM_NULL;  // released with the handle, as gslib's gs_free does
    freed.push_back(std::move(found->second.shell));
    released = std::move(found->second.live);
    live_handles.erase(found);
    if (freed.size() > freed_kept) freed.pop_front();
    frees.fetch_add(1, std::memory_order_release);
  }
}

LiveHandle& checked(const gs_data* h) {
  if (!h) throw Error(ErrorCode::state, "gsr: the handle is NULL");
  if (LiveHandle* live = find_live(h)) return *live;
  if (was_freed(h))
    throw Error(ErrorCode::state, "gsr: the handle was freed by gs_free (a stale pointer); set up a new one");
  throw Error(ErrorCode::state, "gsr: the handle is not a live gs_setup handle (never set up, or freed long ago)");
}

MPI_Comm comm_of(const gs_data* h) {
  const LiveHandle* live = h ? find_live(h) : nullptr;
  return live ? live->handle.comm() : MPI_COMM_WORLD;
}

// guarded() around `body(the live handle)`, which finds the handle once; a failure aborts
// through the handle's communicator, or MPI_COMM_WORLD if `h` is not live (refused here).
template <class Body>
void with_handle(const char* call, const gs_data* h, Body&& body) {
  LiveHandle* const live = h ? find_live(h) : nullptr;
  guarded(call, live ? live->handle.comm() : MPI_COMM_WORLD, [&] { body(live ? *live : checked(h)); });
}

// The entry of an igs request id, or nullptr if the id names none; `h` its handle. The
// request is in flight if the entry's `request` holds one.
LiveHandle::InFlight* find_request(int id, LiveHandle*& h) {
  h = id < 0 ? nullptr : find_by_serial(id / requests_per_handle);
  const auto index = static_cast<std::size_t>(id % requests_per_handle);
  if (!h || index >= h->requests.size()) return nullptr;
  return &h->requests[index];
}

int start_request(LiveHandle& h, gsr::Request request) {
  std::size_t index = 0;
  while (index < h.requests.size() && h.requests[index].request) ++index;
  if (index == static_cast<std::size_t>(requests_per_handle)) {
    request.wait();
    throw Error(ErrorCode::state, "gsr: more than 4096 requests in flight on one handle");
  }
  if (index == h.requests.size()) h.requests.emplace_back();
  h.requests[index].request = std::move(request);
  return h.serial * requests_per_handle + static_cast<int>(index);
}

// A NULL request pointer is found before the call starts, but the other ranks are already
// in theirs: take part without data, so they fail at once (E-CALL-REMOTE-ARGS) instead of
// waiting for GSR_TIMEOUT. Handle::fail_call always throws.

// gs.h's domain codes follow gslib (gs_long is C's long, gs_long_long is long long); gsr's
// Domain names a fixed-width type (both from gsr/domains.h). Unknown codes pass through
// unchanged for the handle to reject, naming them (Domain has no value 4 or above).
gsr::Domain domain_of(gs_dom dom) {
  static_assert(sizeof(long long) == 8 && (sizeof(long) == 8 || sizeof(long) == 4), "unexpected integer sizes");
  switch (dom) {
#define GSR_GS_DOMAIN(type, domain, name, gs_code, fortran_code) \
  case gs_code:                                                  \
    return gsr::Domain::domain;
    GSR_FOR_EACH_DOMAIN(GSR_GS_DOMAIN)
#undef GSR_GS_DOMAIN
    case gs_long:
      return sizeof(long) == 8 ? gsr::Domain::int64 : gsr::Domain::int32;
    default:
      return static_cast<gsr::Domain>(dom);  // gs_dom_n and above, negatives: none is a Domain
  }
}

// (The NULL request pointer, above.) dom and k pick the method of auto's table the other
// ranks' call goes to.
[[noreturn]] void refuse_null_request(LiveHandle& h, gs_dom dom, std::size_t k) {
  h.handle.fail_call(ErrorCode::invalid_argument, "gsr: the request pointer is NULL", domain_of(dom), k);
}

// slong (gslib's global id) is long long; gsr works in std::int64_t, on LP64 Linux long: the
// same size, a distinct type. Reading long long objects through a long* would break the
// aliasing rules, so there the ids are copied; a NULL id goes through for the handle to report.
template <class Id>
class Int64Ids {
public:
  Int64Ids(Id* id, uint n) : id_(id), n_(n) {
    if constexpr (!same) {
      if (id && !too_many()) copy_.assign(id, id + n);
    }
  }
  std::span<std::conditional_t<std::is_const_v<Id>, const std::int64_t, std::int64_t>> span() {
    using Int64 = std::conditional_t<std::is_const_v<Id>, const std::int64_t, std::int64_t>;
    if constexpr (same) return {id_, n_};
    // More ids than a handle takes: the setup refuses them by their count, on every rank,
    // before reading any, so the caller's array is passed on uncopied (and never read).
    else if (too_many())
      return {reinterpret_cast<Int64*>(id_), n_};
    else
      return {id_ ? copy_.data() : nullptr, n_};
  }
  // Writes the (possibly rewritten) ids back to the caller's array.
  void write_back() {
    if constexpr (!same && !std::is_const_v<Id>) {
      if (id_) std::copy(copy_.begin(), copy_.end(), id_);
    }
  }

private:
  static constexpr bool same = std::is_same_v<std::remove_const_t<Id>, std::int64_t>;
  bool too_many() const noexcept { return n_ >= std::numeric_limits<std::uint32_t>::max(); }
  Id* id_;
  std::size_t n_;
  std::vector<std::int64_t> copy_;
};

template <class Id>
gs_data* setup_ids(const Id* id, uint n, const struct comm* comm, int unique, gs_method method, int verbose) {
  gs_data* result = nullptr;
  guarded("gs_setup", comm ? comm->c : MPI_COMM_WORLD, [&] {
    if (!comm) throw Error(ErrorCode::invalid_argument, "gsr: struct comm pointer is NULL");
    // verbose 1 prints gsr's one-line summary (where gslib prints its gs_setup lines),
    // 2 or more the full statistics.
    SetupOptions options;
    options.unique = unique != 0;
    options.method = static_cast<Method>(method);
    options.verbose = verbose >= 2;
    options.announce = verbose == 1;
    Int64Ids<const Id> ids(id, n);
    auto live = std::unique_ptr<LiveHandle>(new LiveHandle{Handle(ids.span(), comm->c, options), 0, {}});
    result = register_handle(std::move(live));
  });
  return result;
}

template <class Id>
void unique_ids(Id* id, uint n, const struct comm* comm) {
  guarded("gs_unique", comm ? comm->c : MPI_COMM_WORLD, [&] {
    if (!comm) throw Error(ErrorCode::invalid_argument, "gsr: struct comm pointer is NULL");
    Int64Ids<Id> ids(id, n);
    gsr::make_unique(ids.span(), comm->c);
    ids.write_back();
  });
}

}  // namespace

#if LONG_MAX == LLONG_MAX
gs_data* setup_long_ids(const long* id, uint n, const struct comm* comm, int unique, gs_method method, int verbose) {
  return setup_ids(id, n, comm, unique, method, verbose);
}
void unique_long_ids(long* id, uint n, const struct comm* comm) { unique_ids(id, n, comm); }
#endif

}  // namespace gsr::capi

using gsr::capi::domain_of;
using gsr::capi::guarded;
using gsr::capi::LiveHandle;

namespace {
gsr::Transpose transpose_of(unsigned t) { return t ? gsr::Transpose::yes : gsr::Transpose::no; }
}  // namespace

extern "C" {

void comm_init(struct comm* c, MPI_Comm mpi_comm) {
  guarded("comm_init", mpi_comm, [&] {
    if (!c) throw gsr::Error(gsr::ErrorCode::invalid_argument, "gsr: struct comm pointer is NULL");
    c->c = MPI_COMM_NULL;  // what a failed comm_init leaves
    if (mpi_comm == MPI_COMM_NULL)
      throw gsr::Error(gsr::ErrorCode::invalid_argument, "gsr: the communicator (comm) is MPI_COMM_NULL");
    int rank = 0, size = 0;
    // Polled against GSR_TIMEOUT (the default if it cannot be read, which gs_setup reports):
    // a rank that skips comm_init costs the others E-SETUP-TIMEOUT, not a hang. The
    // duplicate keeps the caller's error handler.
    try {
      c->c = gsr::duplicate_communicator(mpi_comm);
    } catch (const gsr::Error& e) {
      if (e.code() != gsr::ErrorCode::mpi) throw;
      throw gsr::Error(gsr::ErrorCode::mpi, std::string("gsr: MPI_Comm_dup failed (") + e.what() + ")");
    }
    MPI_Comm_rank(c->c, &rank);
    MPI_Comm_size(c->c, &size);
    c->id = static_cast<uint>(rank);
    c->np = static_cast<uint>(size);
  });
}

int gsr_shim_agree_max(MPI_Comm comm, int* value, char* message, size_t message_bytes) {
  std::string text;
  gsr::ErrorCode code = gsr::ErrorCode::ok;
  try {
    *value = gsr::agree_max(*value, comm);
  } catch (const gsr::Error& e) {
    code = e.code();
    text = e.what();
  } catch (const std::bad_alloc&) {
    code = gsr::ErrorCode::internal;
    text = "gsr: out of memory";
  }
  if (code != gsr::ErrorCode::ok && message && message_bytes) std::snprintf(message, message_bytes, "%s", text.c_str());
  return static_cast<int>(code);
}

void comm_free(struct comm* c) {
  if (c && c->c != MPI_COMM_NULL) MPI_Comm_free(&c->c);
}

void buffer_init(buffer* b, size_t max) {
  if (!b) return;
  b->n = 0;
  b->max = max;
  b->ptr = max ? std::malloc(max) : nullptr;
  if (!b->ptr) b->max = 0;
}

void buffer_free(buffer* b) {
  if (!b) return;
  std::free(b->ptr);
  b->ptr = nullptr;
  b->n = b->max = 0;
}

struct gs_data* gs_setup(const slong* id, uint n, const struct comm* comm, int unique, gs_method method, int verbose) {
  return gsr::capi::setup_ids(id, n, comm, unique, method, verbose);
}

void gs_vec(void* u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*) {
  gsr::capi::with_handle("gs_vec", gsh, [&](LiveHandle& h) {
    h.handle.apply_vec(u, h.handle.size() * k, k, domain_of(dom), static_cast<gsr::Op>(op), transpose_of(transpose));
  });
}

void gs(void* u, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*) {
  gsr::capi::with_handle("gs", gsh, [&](LiveHandle& h) {
    h.handle.apply_vec(u, h.handle.size(), 1, domain_of(dom), static_cast<gsr::Op>(op), transpose_of(transpose));
  });
}

void gs_many(void* const* u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*) {
  gsr::capi::with_handle("gs_many", gsh, [&](LiveHandle& h) {
    h.handle.apply_many(u, k, domain_of(dom), static_cast<gsr::Op>(op), transpose_of(transpose));
  });
}

void igs(void* u, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*, int* handle) {
  gsr::capi::with_handle("igs", gsh, [&](LiveHandle& h) {
    if (!handle) gsr::capi::refuse_null_request(h, dom, 1);
    *handle = gsr::capi::start_request(h, h.handle.start_vec(u, h.handle.size(), 1, domain_of(dom),
                                                             static_cast<gsr::Op>(op), transpose_of(transpose)));
  });
}

void igs_vec(void* u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*, int* handle) {
  gsr::capi::with_handle("igs_vec", gsh, [&](LiveHandle& h) {
    if (!handle) gsr::capi::refuse_null_request(h, dom, k);
    *handle = gsr::capi::start_request(h, h.handle.start_vec(u, h.handle.size() * k, k, domain_of(dom),
                                                             static_cast<gsr::Op>(op), transpose_of(transpose)));
  });
}

void igs_many(void* const* u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer*,
              int* handle) {
  gsr::capi::with_handle("igs_many", gsh, [&](LiveHandle& h) {
    if (!handle) gsr::capi::refuse_null_request(h, dom, k);
    *handle = gsr::capi::start_request(
        h, h.handle.start_many(u, k, domain_of(dom), static_cast<gsr::Op>(op), transpose_of(transpose)));
  });
}

int gsr_progress(void) {
  int done = 0;
  guarded("gsr_progress", MPI_COMM_WORLD, [&] { done = gsr::progress() ? 1 : 0; });
  return done;
}

// Of two threads waiting for one request, the second is refused before it looks at the
// request: the first may be the thread that started it, inside its wait (the second then
// must not find the request half waited for, nor empty its entry), or another thread, whose
// wait is about to be refused (the second, if it started the request, may retry).
void gs_wait(int handle) {
  LiveHandle* h = nullptr;
  LiveHandle::InFlight* const entry = gsr::capi::find_request(handle, h);
  guarded("gs_wait", h ? h->handle.comm() : MPI_COMM_WORLD, [&] {
    if (entry && entry->waited.load(std::memory_order_acquire))
      throw gsr::Error(gsr::ErrorCode::state, "gsr: request " + std::to_string(handle) +
                                                  " is in use by another thread (its wait for it is under way); "
                                                  "wait for a request on the thread that started it");
    if (!entry || !entry->request)
      throw gsr::Error(gsr::ErrorCode::state, "gsr: request " + std::to_string(handle) +
                                                  " is not in flight (already waited for, or never started)");
    entry->waited.store(true, std::memory_order_relaxed);
    struct Unmark {
      std::atomic<bool>& waited;
      ~Unmark() { waited.store(false, std::memory_order_release); }
    } unmark{entry->waited};
    std::optional<gsr::Request>& request = entry->request;
    try {
      request->wait();
    } catch (...) {
      if (!request->pending()) request.reset();  // else refused, not begun: still in flight
      throw;
    }
    request.reset();
  });
}

int gsr_shim_request_in_flight(int handle) {
  LiveHandle* h = nullptr;
  const LiveHandle::InFlight* entry = gsr::capi::find_request(handle, h);
  return entry && entry->request ? 1 : 0;
}

void gs_unique(slong* id, uint n, const struct comm* comm) { gsr::capi::unique_ids(id, n, comm); }

void gsr_shim_set_free_hook(gsr_shim_free_hook hook) { gsr::capi::free_hook.store(hook, std::memory_order_release); }

void gs_free(struct gs_data* gsh) {
  gsr::capi::with_handle("gs_free", gsh, [&](LiveHandle& h) {
    if (h.handle.pending_requests() > 0)
      throw gsr::Error(gsr::ErrorCode::state, "gsr: the handle has " + std::to_string(h.handle.pending_requests()) +
                                                  " request(s) in flight; gs_wait for them before gs_free");
    gsr::capi::unregister_handle(gsh);
    if (const gsr_shim_free_hook hook = gsr::capi::free_hook.load(std::memory_order_acquire)) hook(gsh);
  });
}

// gslib's pairwise statistics (Nek5000's partitioner prints them): what its pairwise method
// would receive on this rank, whatever method the handle uses (Stats::pairwise_receives).
void pw_data_nmsg(struct gs_data* gsh, int* n) {
  guarded("pw_data_nmsg", gsr::capi::comm_of(gsh), [&] {
    const auto& receives = gsr::capi::checked(gsh).handle.stats().pairwise_receives;
    if (!n) throw gsr::Error(gsr::ErrorCode::invalid_argument, "gsr: the count pointer (n) is NULL");
    *n = static_cast<int>(receives.size());
  });
}

void pw_data_size(struct gs_data* gsh, int* n) {
  guarded("pw_data_size", gsr::capi::comm_of(gsh), [&] {
    const auto& receives = gsr::capi::checked(gsh).handle.stats().pairwise_receives;
    if (!n && !receives.empty())
      throw gsr::Error(gsr::ErrorCode::invalid_argument, "gsr: the sizes pointer (n) is NULL");
    for (std::size_t i = 0; i < receives.size(); ++i) {
      if (receives[i].ids > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw gsr::Error(gsr::ErrorCode::invalid_argument,
                         "gsr: " + std::to_string(receives[i].ids) + " ids come from rank " +
                             std::to_string(receives[i].peer) + ", more than an int holds");
      n[i] = static_cast<int>(receives[i].ids);
    }
  });
}

const char* gsr_method_name(const struct gs_data* gsh) {
  const char* name = "";
  guarded("gsr_method_name", gsr::capi::comm_of(gsh),
          [&] { name = gsr::to_string(gsr::capi::checked(gsh).handle.stats().method).data(); });
  return name;
}

void* gsr_gslib_alloc(void* ptr, size_t count, size_t size, int zero, const char* file, unsigned line) {
  // The tmalloc/tcalloc/trealloc macros of gslib.h: abort rather than return NULL.
  const bool overflow = size != 0 && count > std::numeric_limits<size_t>::max() / size;
  const size_t bytes = overflow ? 0 : count * size;
  void* result = nullptr;
  if (!overflow) result = zero ? std::calloc(count, size) : std::realloc(ptr, bytes);
  if (result || (!overflow && bytes == 0)) return result;
  std::fprintf(stderr, "gsr: %s:%u: allocation of %zu x %zu bytes failed\n", file ? file : "?", line, count, size);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void gsr_shim_fail_call(struct gs_data* gsh, int code, const char* call, const char* message, int dom, int k) {
  // fail_call always throws, so the guard records the failure (or that gsh is not live).
  const std::string what = message ? message : "";
  guarded(call, gsr::capi::comm_of(gsh), [&] {
    auto& handle = gsr::capi::checked(gsh).handle;
    if (dom >= 0 && dom < static_cast<int>(gs_dom_n) && k >= 1)
      handle.fail_call(static_cast<gsr::ErrorCode>(code), what, domain_of(static_cast<gs_dom>(dom)),
                       static_cast<std::size_t>(k));
    handle.fail_call(static_cast<gsr::ErrorCode>(code), what);
  });
}

}  // extern "C"

/* gslib's C names under the prefix its default build (and so Nek5000's) gives them,
 * GSLIB_PREFIX = gslib_: the same functions, so that a program compiled against gslib's
 * own headers links to gsr, and gslib's gs.o is never taken from a libgs.a linked after
 * gsr. Every external name of gs.o has a definition in gsr (gs_hf2c, which maps Fortran
 * handles, is in libgsr_fortran); tests/gslib/check_exports.sh compares the lists. */
#define GSR_GSLIB_PREFIXED(result, name, parameters) \
  extern "C" result gslib_##name parameters __attribute__((alias(#name)));
GSR_GSLIB_PREFIXED(struct gs_data*, gs_setup, (const slong*, uint, const struct comm*, int, gs_method, int))
GSR_GSLIB_PREFIXED(void, gs, (void*, gs_dom, gs_op, unsigned, struct gs_data*, buffer*))
GSR_GSLIB_PREFIXED(void, gs_vec, (void*, unsigned, gs_dom, gs_op, unsigned, struct gs_data*, buffer*))
GSR_GSLIB_PREFIXED(void, gs_many, (void* const*, unsigned, gs_dom, gs_op, unsigned, struct gs_data*, buffer*))
GSR_GSLIB_PREFIXED(void, igs, (void*, gs_dom, gs_op, unsigned, struct gs_data*, buffer*, int*))
GSR_GSLIB_PREFIXED(void, igs_vec, (void*, unsigned, gs_dom, gs_op, unsigned, struct gs_data*, buffer*, int*))
GSR_GSLIB_PREFIXED(void, igs_many, (void* const*, unsigned, gs_dom, gs_op, unsigned, struct gs_data*, buffer*, int*))
GSR_GSLIB_PREFIXED(void, gs_wait, (int))
GSR_GSLIB_PREFIXED(void, gs_free, (struct gs_data*))
GSR_GSLIB_PREFIXED(void, gs_unique, (slong*, uint, const struct comm*))
GSR_GSLIB_PREFIXED(void, pw_data_nmsg, (struct gs_data*, int*))
GSR_GSLIB_PREFIXED(void, pw_data_size, (struct gs_data*, int*))
#undef GSR_GSLIB_PREFIXED
