// exchange/exchange.hpp — the one interface every exchange method implements. A method
// turns each rank's partial value per shared group (its own contribution, already folded
// locally) into the combined value per shared group. It owns its routing plan (built at
// setup from the gsr Plan) and nothing per call: per-call scratch lives in a Workspace the
// handle caches and reuses, so the hot path allocates nothing after the first call.
//
// Canonical order (what makes every copy bitwise equal, and every method agree): the value
// of a shared group is ((P_r0 op P_r1) op P_r2) ... over its holders r0 < r1 < r2 ..., where
// P_r is rank r's partial (the identity if r holds no contributing entry).
#pragma once

#include "local/kernels.hpp"
#include "plan/plan.hpp"

#include <gsr/handle.hpp>
#include <gsr/types.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

/// What one call reduces. Every rank must pass the same, or the call is a mismatch error.
struct CallInfo {
  Domain dom = Domain::float64;
  Op op = Op::add;
  Transpose transpose = Transpose::no;
  std::size_t k = 1;
  bool many = false;

  std::uint64_t signature() const noexcept;
  std::string describe() const;  // e.g. "dom=double op=add transpose=0 k=1 layout=vec"
};

/// Every message of every method starts with this (16 bytes keeps the values aligned).
struct MessageHeader {
  std::uint64_t signature = 0;  // CallInfo::signature() of the sender's call
  std::uint64_t failed = 0;     // 1: the sender's arguments were bad, no data follows
};
static_assert(sizeof(MessageHeader) == 16);

/// Method-specific per-call scratch (e.g. the crystal router's stage buffers).
struct MethodScratch {
  virtual ~MethodScratch() = default;
};

struct Workspace {
  CallInfo info;
  const Kernels* kernels = nullptr;  // nullptr: this rank's arguments were bad (failed round)
  std::vector<std::byte> partials;   // shared_groups * k values, this rank's partials
  std::vector<std::byte> results;    // shared_groups * k values, the combined values
  std::vector<std::byte> send, recv;
  std::vector<MPI_Request> requests;
  std::vector<MPI_Status> statuses;
  std::vector<const std::byte*> blocks;
  std::unique_ptr<MethodScratch> scratch;

  std::size_t bytes() const noexcept {
    return partials.capacity() + results.capacity() + send.capacity() + recv.capacity() +
           requests.capacity() * sizeof(MPI_Request) + statuses.capacity() * sizeof(MPI_Status);
  }
};

class Exchange {
public:
  virtual ~Exchange() = default;
  virtual Method method() const noexcept = 0;

  /// Begins the round: ws.partials holds this rank's partials. When ws.kernels is nullptr
  /// this rank takes part without data (its headers say failed) so that no peer waits.
  virtual void start(Workspace& ws) = 0;
  /// Completes every message of the round, then fills ws.results (unless failed). Throws
  /// Error(mismatch) if a peer's call differs, Error(remote) if a peer failed.
  virtual void finish(Workspace& ws) = 0;

  virtual std::vector<StageStats> stages() const = 0;
  virtual int neighbors() const noexcept = 0;
  virtual std::size_t bytes() const noexcept = 0;  // memory of the method's own plan
};

/// Records the first problem a received header reveals (mismatch or remote failure).
class HeaderCheck {
public:
  void check(const MessageHeader& h, const CallInfo& mine, int peer);
  void check_size(std::size_t got, std::size_t expected, const CallInfo& mine, int peer);
  void check_status(int mpi_error, const CallInfo& mine, int peer);
  void throw_if_failed() const;  // call once every message has completed
  bool ok() const noexcept { return code_ == ErrorCode::ok; }
  /// Records a problem found some other way than from one peer's header (e.g. a collective).
  void fail(ErrorCode code, std::string message);

private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

/// Completes every request, recording each one's error in its status; returns MPI_SUCCESS
/// or the first error. MPICH raises errors found while completing requests (such as
/// MPI_ERR_TRUNCATE, when a peer's call sends more than ours expects) on MPI_COMM_WORLD's
/// handler, which aborts by default, not on the handle's MPI_ERRORS_RETURN communicator;
/// so for the duration of the wait MPI_COMM_WORLD returns errors too, then gets its own
/// handler back. The swap is local to this process and involves no communication.
int wait_all(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses);

/// Is the method implemented; builds it (collective when the method needs to be).
bool method_available(Method m) noexcept;
std::unique_ptr<Exchange> make_exchange(Method m, const Plan& plan, MPI_Comm comm);

/// The tag every exchange message carries on the handle's private communicator.
inline constexpr int exchange_tag = 7;

}  // namespace gsr::detail
