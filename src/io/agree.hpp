// io/agree.hpp — turns a failure found on some ranks during a collective file operation
// into the same gsr::Error on every rank. A bad file is bad for everyone, so every rank
// throws the failing rank's code and message (the lowest such rank's), not a "remote"
// error: whichever rank a user looks at, it names the file and the object at fault.
#pragma once

#include <gsr/error.hpp>

#include <mpi.h>

#include <new>
#include <string>

namespace gsr::io {

/// Collective: if any rank passes a non-ok code, every rank throws the lowest failing
/// rank's error.
void agree(MPI_Comm comm, ErrorCode local_code, const std::string& local_message);

/// Runs `body` (rank-local work, no collective calls inside) and then agrees on its outcome.
template <class Body>
void agreed(MPI_Comm comm, Body&& body) {
  ErrorCode code = ErrorCode::ok;
  std::string message;
  try {
    body();
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = ErrorCode::internal;
    message = "gsr: out of memory while reading or writing a mesh";
  }
  agree(comm, code, message);
}

}  // namespace gsr::io
