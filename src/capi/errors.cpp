// capi/errors.cpp — see errors.hpp; also the error entry points of gs.h and capi/shim.h.
#include "capi/errors.hpp"

#include "capi/shim.h"

#include <gsr/gs.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace gsr::capi {

namespace {

std::atomic<int> error_mode{GSR_ERRORS_ABORT};  // the process's, set from any thread

struct FailureRecord {
  int code = GSR_SUCCESS;  // of the most recent failure
  std::string message;     // "gsr: <call>: <what>"
  bool last_call_failed = false;
};
thread_local FailureRecord record;
thread_local const char* shim_call = nullptr;  // set by gsr_shim_enter

}  // namespace

std::string format_failure(const char* call, const std::string& message) {
  const std::string gsr = "gsr: ";
  const std::string what = message.rfind(gsr, 0) == 0 ? message.substr(gsr.size()) : message;
  const std::string prefix = std::string(call) + ": ";
  return what.rfind(prefix, 0) == 0 ? gsr + what : gsr + prefix + what;  // the call named once
}

void record_success() noexcept { record.last_call_failed = false; }

void record_failure(const char* function, ErrorCode code, const std::string& message, MPI_Comm comm) noexcept {
  record.code = static_cast<int>(code);
  record.last_call_failed = true;
  try {
    record.message = format_failure(shim_call ? shim_call : function, message);
  } catch (...) {
    record.message.clear();
  }
  if (error_mode.load(std::memory_order_relaxed) == GSR_ERRORS_ABORT) {
    std::fprintf(stderr, "%s\n", record.message.c_str());
    std::fflush(stderr);
    // The launcher forwards stderr asynchronously and may tear the job down before it has
    // read the message, leaving the user with an abort and no reason (seen with MPICH's
    // hydra when every rank aborts at once). A moment's pause lets the message out first.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
    std::abort();
  }
}

}  // namespace gsr::capi

using namespace gsr::capi;

extern "C" {

void gsr_set_error_mode(int mode) {
  error_mode.store(mode == GSR_ERRORS_RETURN ? GSR_ERRORS_RETURN : GSR_ERRORS_ABORT, std::memory_order_relaxed);
}
int gsr_get_error_mode(void) { return error_mode.load(std::memory_order_relaxed); }
int gsr_last_error(void) { return record.last_call_failed ? record.code : GSR_SUCCESS; }
const char* gsr_last_error_message(void) { return record.last_call_failed ? record.message.c_str() : ""; }
void gsr_clear_error(void) { gsr_shim_clear(); }

void gsr_shim_enter(const char* call) { shim_call = call; }
void gsr_shim_leave(void) { shim_call = nullptr; }

void gsr_shim_fail(int code, const char* call, const char* message) {
  record_failure(call, static_cast<gsr::ErrorCode>(code), message ? message : "", MPI_COMM_WORLD);
}

void gsr_shim_succeed(void) { record_success(); }

int gsr_shim_last_failure(void) { return record.code; }
const char* gsr_shim_last_failure_message(void) { return record.message.c_str(); }
void gsr_shim_clear(void) { record = FailureRecord{}; }

}  // extern "C"
