// gsr/handle.hpp — the gather-scatter handle: built once, collectively, from each rank's
// local-to-global ids; then applies Q Q^T (or Q, Q^T with flagged ids) to data arrays.
//
//   std::vector<std::int64_t> ids = ...;               // 0: not taking part, <0: flagged
//   gsr::Handle gs(ids, MPI_COMM_WORLD);
//   gs.apply(std::span(u), gsr::Op::add);              // direct stiffness summation
//   auto req = gs.start(std::span(v), gsr::Op::max);   // non-blocking: overlap local work
//   ...; req.wait();
//
// See docs/concepts.md for the semantics (groups, flags, transpose, unique).
#pragma once

#include <gsr/error.hpp>
#include <gsr/options.hpp>
#include <gsr/types.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <vector>

namespace gsr {

/// The settings below `announce` left unset come from their environment variables, else
/// their defaults (docs/configuration.md); set, the variable is not read.
struct SetupOptions {
  bool unique = false;                // behave as if make_unique() had been applied to the ids
  Method method = Method::automatic;  // with `automatic`, method_table or GSR_METHOD may name one
  bool verbose = false;               // rank 0 prints summary() after setup
  bool announce = false;              // rank 0 prints summary_line() after setup (gslib's
                                      // entry points, where gslib prints its gs_setup lines)
  /// GSR_METHOD, read when `method` is automatic: a method name, or methods per call size
  /// ("crystal_router,pairwise:64": pairwise from 64 bytes per entry; docs/methods.md).
  std::string method_table;
  std::optional<bool> quiet;  // GSR_QUIET: true silences verbose and announce
  /// GSR_PREFETCH_FROM_BYTES: calls with at least this many bytes of data ask for their
  /// lines ahead (default: half the last-level cache over the ranks sharing it).
  std::optional<std::size_t> prefetch_from_bytes;
  std::string machine_file;  // GSR_MACHINE: auto's cost model (docs/scaling.md, "Calibration")
  MessageOptions messages;   // the timeout (GSR_TIMEOUT) and chunking of the handle's messages
};

/// Min / average / max of one per-rank quantity over the ranks of the handle.
struct Spread {
  double min = 0, avg = 0, max = 0;
};

/// One stage of an exchange method (the crystal router has ceil(log2 P); the others one).
struct StageStats {
  std::size_t messages = 0;  // messages this rank sends per call in this stage
  std::size_t values = 0;    // values (of one component) this rank sends per call
};

/// One point-to-point message of a call, as seen from this rank (values of one component;
/// every message also carries a 16-byte header).
struct MessageStats {
  int stage = 0;           // 0 for single-round methods
  int peer = 0;            // the rank it goes to or comes from
  bool sent = true;        // sent by this rank, else received
  std::size_t values = 0;  // values (of one component) it carries
};

/// A rank and a count of ids exchanged with it (Stats::pairwise_receives).
struct PeerIds {
  int peer = 0;
  std::size_t ids = 0;
};
/// What auto measured for one candidate: the maximum over ranks of the median time per call.
struct MethodTiming {
  Method method = Method::pairwise;
  double seconds_per_call = 0;   // negative: not measured (excluded; see reason)
  double predicted_seconds = 0;  // alpha-beta model prediction
  std::string note;              // why excluded, if it was
};

/// One range of auto's per-size table: `method` serves calls of at least `entry_bytes`
/// bytes per entry (value size x k), up to the next range's start.
struct SizeMethod {
  std::size_t entry_bytes = 0;
  Method method = Method::pairwise;
  std::vector<StageStats> stages;  // that method's stages on this rank (as Stats::stages)
};

struct Stats {
  Method method = Method::pairwise;  // the method in use (with auto: for one double)
  std::string method_reason;         // why (requested, GSR_METHOD, or auto's verdict)
  int ranks = 1;
  std::size_t local_entries = 0;   // n
  std::size_t active_entries = 0;  // entries the per-call path touches
  std::size_t local_groups = 0;    // groups entirely on this rank that need work
  std::size_t shared_groups = 0;   // groups this rank shares with other ranks
  // Of the groups that need work (local and shared), those the fixed-size kernels serve
  // (up to 8 local copies, nothing flagged on this rank) and the others (general kernels).
  std::size_t fixed_kernel_groups = 0;
  std::size_t general_kernel_groups = 0;
  std::int64_t global_shared_ids = 0;  // distinct ids held by more than one rank, all ranks
  int neighbors = 0;                   // ranks this rank exchanges with directly
  std::size_t messages_per_call = 0;   // sent by this rank per call
  std::size_t values_per_call = 0;     // values (per component) sent by this rank per call
  std::vector<StageStats> stages;      // per-stage breakdown of the two above
  std::vector<MessageStats> messages;  // every point-to-point message of a call (none for
                                       // allreduce, whose call is one collective)
  std::size_t handle_bytes = 0;        // plan and maps owned by the handle
  std::size_t method_bytes = 0;        // of which the exchange methods' own plans
  std::size_t buffer_bytes = 0;        // scratch buffers currently cached by the handle
  std::size_t call_index_bytes = 0;    // of the plan and maps (of `method`), the bytes one call
                                       // of one double reads, each array once (the plan part
                                       // of its memory traffic; docs/performance.md, "The bounds")
  double setup_seconds = 0;            // wall time of setup on this rank, auto included
  double auto_seconds = 0;             // part of setup_seconds spent by auto measuring
  std::vector<MethodTiming> auto_timings;
  /// With auto, when calls of different sizes use different methods: the ranges, ascending
  /// from 0 bytes per entry (docs/methods.md, "How auto decides"). Empty: `method` serves
  /// every call. stages, messages and the counts above describe `method`.
  std::vector<SizeMethod> methods_by_size;
  /// The method serving calls of k components of `value_bytes` each, and its stages.
  Method method_for(std::size_t value_bytes, std::size_t k = 1) const noexcept {
    const SizeMethod* range = range_for(value_bytes, k);
    return range ? range->method : method;
  }
  const std::vector<StageStats>& stages_for(std::size_t value_bytes, std::size_t k = 1) const noexcept {
    const SizeMethod* range = range_for(value_bytes, k);
    return range ? range->stages : stages;
  }
  /// The range of methods_by_size serving such calls; nullptr when the list is empty.
  const SizeMethod* range_for(std::size_t value_bytes, std::size_t k = 1) const noexcept {
    const SizeMethod* found = nullptr;
    for (const SizeMethod& range : methods_by_size)
      if (range.entry_bytes <= value_bytes * k) found = &range;
    return found;
  }

  /// What gslib's pairwise method receives per call on this rank for the same ids, whatever
  /// method this handle uses (gslib's pw_data_nmsg / pw_data_size): one entry per rank that
  /// holds one of this rank's shared ids unflagged (after `unique`), in ascending rank order,
  /// with the number of such ids.
  std::vector<PeerIds> pairwise_receives;
  /// Min/avg/max over ranks, filled at setup: neighbours, bytes per call (one double
  /// component), handle memory.
  Spread neighbors_spread, bytes_spread, memory_spread;

  /// Bytes this rank sends per call for `k` components of `value_bytes` each.
  std::size_t bytes_per_call(std::size_t value_bytes, std::size_t k = 1) const {
    return values_per_call * value_bytes * k;
  }
};

namespace detail {
struct HandleState;
}

/// An operation started with Handle::start*, finished by wait(). Move-only. A request keeps
/// its handle's state alive, so it may outlive the Handle object; a request destroyed while
/// pending is waited for. The data must stay alive, and its entries that take part in
/// groups untouched, until wait() returns (start_many copies the array of pointers).
/// Requests may be waited in any order, on any rank, across handles: every start and wait
/// advances every request in flight on the rank (docs/methods.md).
class Request {
public:
  Request() = default;
  Request(Request&& other) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request();

  void wait();
  bool pending() const noexcept { return state_ != nullptr; }

private:
  friend class Handle;
  Request(std::shared_ptr<detail::HandleState> state, std::size_t slot) : state_(std::move(state)), slot_(slot) {}
  std::shared_ptr<detail::HandleState> state_;
  std::size_t slot_ = 0;
};

class Handle {
public:
  /// Collective over `comm` (duplicated internally). ids may be empty on some ranks.
  Handle(std::span<const std::int64_t> ids, MPI_Comm comm, SetupOptions options = {});
  ~Handle();
  Handle(Handle&&) noexcept;
  Handle& operator=(Handle&&) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  // ---- typed front end -------------------------------------------------------------
  /// u[i], i < size(): one value per id.
  template <class T>
  void apply(std::span<T> u, Op op, Transpose t = Transpose::no) {
    apply_vec(u.data(), u.size(), 1, domain_of<T>(), op, t);
  }
  /// u[i*k + c]: k interleaved components per id, reduced component-wise.
  template <class T>
  void apply_vec(std::span<T> u, std::size_t k, Op op, Transpose t = Transpose::no) {
    apply_vec(u.data(), u.size(), k, domain_of<T>(), op, t);
  }
  /// arrays[c][i]: k separate arrays of size() values each.
  template <class T>
  void apply_many(std::span<T* const> arrays, Op op, Transpose t = Transpose::no) {
    apply_many(reinterpret_cast<void* const*>(arrays.data()), arrays.size(), domain_of<T>(), op, t);
  }
  template <class T>
  [[nodiscard]] Request start(std::span<T> u, Op op, Transpose t = Transpose::no) {
    return start_vec(u.data(), u.size(), 1, domain_of<T>(), op, t);
  }
  template <class T>
  [[nodiscard]] Request start_vec(std::span<T> u, std::size_t k, Op op, Transpose t = Transpose::no) {
    return start_vec(u.data(), u.size(), k, domain_of<T>(), op, t);
  }
  template <class T>
  [[nodiscard]] Request start_many(std::span<T* const> arrays, Op op, Transpose t = Transpose::no) {
    return start_many(reinterpret_cast<void* const*>(arrays.data()), arrays.size(), domain_of<T>(), op, t);
  }

  // ---- type-erased core (what the C shim calls) --------------------------------------
  /// `length` is the number of values at u (must be size() * k; checked).
  void apply_vec(void* u, std::size_t length, std::size_t k, Domain dom, Op op, Transpose t);
  void apply_many(void* const* arrays, std::size_t k, Domain dom, Op op, Transpose t);
  [[nodiscard]] Request start_vec(void* u, std::size_t length, std::size_t k, Domain dom, Op op, Transpose t);
  [[nodiscard]] Request start_many(void* const* arrays, std::size_t k, Domain dom, Op op, Transpose t);

  std::size_t size() const noexcept;  // n, the number of local ids
  MPI_Comm comm() const noexcept;     // the handle's own (duplicated) communicator
  const Stats& stats() const;
  std::size_t pending_requests() const noexcept;
  /// The summary `verbose` prints on rank 0 (not collective: the spreads are from setup).
  std::string summary() const;
  /// One line naming gsr, the shared ids, the method and why: what `announce` prints.
  std::string summary_line() const;

  /// For shims that find a call's arguments bad before they can pass them on: takes part
  /// in one call's exchange without data, as a call with bad arguments does, so the other
  /// ranks' matching call fails with ErrorCode::remote instead of waiting; then throws
  /// Error(code, message). `dom` and `k` are the call's, as far as the shim knows them: they
  /// pick the method of auto's table that the other ranks' call uses (Stats::method_for).
  [[noreturn]] void fail_call(ErrorCode code, const std::string& message, Domain dom = Domain::float64,
                              std::size_t k = 1);

private:
  std::shared_ptr<detail::HandleState> state_;
};

/// Makes progress on every gather-scatter call in flight that a wait on this thread would
/// advance (this thread's at MPI_THREAD_MULTIPLE, the process's below it), of every handle,
/// without blocking; returns true when none of them waits for other ranks any more (their
/// waits will not block). MPI moves a message only while the ranks are inside MPI, so a
/// computation between start and wait hides the messages only if it calls this now and
/// then (a handle's own local work does: docs/methods.md, "Overlap"). With nothing in
/// flight it tests an empty list. Throws Error(state) below MPI_THREAD_MULTIPLE while
/// another thread is inside gsr.
bool progress();

/// Negates every entry of each group except one (collective). The kept entry: on the
/// owning rank, the first unflagged entry in index order (the first if all are flagged);
/// the owner, among the ranks that hold the id unflagged (all holders if none does),
/// sorted by rank, is the (|id| mod count)-th.
void make_unique(std::span<std::int64_t> ids, MPI_Comm comm);

/// A duplicate of `comm` that keeps its error handler, as the C API's comm_init makes
/// (collective). Waited for as GSR_TIMEOUT says: a rank that never joins costs the others
/// Error(timeout), not a hang. The caller frees it (MPI_Comm_free).
MPI_Comm duplicate_communicator(MPI_Comm comm);

/// The largest of every rank's `value` (collective), waited for as duplicate_communicator;
/// the agreement with which the C and Fortran shims settle their own argument checks.
int agree_max(int value, MPI_Comm comm);

}  // namespace gsr
