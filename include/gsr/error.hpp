// gsr/error.hpp — the one exception type gsr throws, and its error codes (shared with
// the C and Fortran interfaces, which report the same codes).
#pragma once

#include <stdexcept>
#include <string>

namespace gsr {

enum class ErrorCode : int {
  ok = 0,
  invalid_argument = 1,  // a bad value in a call: code, length, NULL pointer, op/domain mismatch
  mismatch = 2,          // ranks disagree about the arguments of one collective call
  remote = 3,            // another rank failed during a collective step this rank took part in
  state = 4,             // wrong use of a handle: freed, foreign, busy with a request
  io = 5,                // a file could not be read or written, or is malformed
  mpi = 6,               // an MPI call failed
  internal = 7,          // a bug in gsr
  timeout = 8,           // a call waited longer than GSR_TIMEOUT seconds for other ranks
};

class Error : public std::runtime_error {
public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

private:
  ErrorCode code_;
};

}  // namespace gsr
