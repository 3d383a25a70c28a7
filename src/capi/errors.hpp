// capi/errors.hpp — how every C entry point reports failure: record the code and message
// (gsr_last_error / gsr_last_error_message), then, in the default GSR_ERRORS_ABORT mode,
// print the message and abort the job; in GSR_ERRORS_RETURN mode, return to the caller.
// Other C wrappers in the library (mesh I/O) use the same guard.
#pragma once

#include <gsr/error.hpp>

#include <mpi.h>

#include <exception>
#include <new>
#include <string>

namespace gsr::capi {

void record_success() noexcept;
/// Records the failure of `function`; aborts through MPI_Abort(comm) in abort mode.
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
