// capi/errors.hpp — how every C entry point reports failure. A failure is recorded once,
// where it is detected: its code, the call it belongs to, and what went wrong. In the
// default GSR_ERRORS_ABORT mode the message is printed and the job aborted; in
// GSR_ERRORS_RETURN mode the call returns and the record answers gsr_last_error (C: the
// most recent call, cleared by a success) and the shims' own accessors (Fortran: the most
// recent failure, kept until cleared). The record is per thread.
#pragma once

#include <gsr/error.hpp>

#include <mpi.h>

#include <exception>
#include <new>
#include <string>

namespace gsr::capi {

/// "gsr: <call>: <what>", whatever prefix `message` had ("gsr: " or "gsr: <call>: ").
std::string format_failure(const char* call, const std::string& message);

void record_success() noexcept;
/// Records the failure of `function` (or of the shim call named by gsr_shim_enter);
/// aborts through MPI_Abort(comm) in abort mode.
void record_failure(const char* function, ErrorCode code, const std::string& message, MPI_Comm comm) noexcept;

/// Runs `body`; on exception records it for `function`. Returns true on success.
template <class Body>
bool guarded(const char* function, MPI_Comm comm, Body&& body) noexcept {
  try {
    body();
    record_success();
    return true;
  } catch (const Error& e) {
    record_failure(function, e.code(), e.what(), comm);
  } catch (const std::bad_alloc&) {
    record_failure(function, ErrorCode::internal, "gsr: out of memory", comm);
  } catch (const std::exception& e) {
    record_failure(function, ErrorCode::internal, std::string("gsr: ") + e.what(), comm);
  }
  return false;
}

}  // namespace gsr::capi
