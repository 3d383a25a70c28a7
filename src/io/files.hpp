// io/files.hpp — files are never left half-written: every writer in gsr writes to a
// temporary name beside the target and renames it into place only once the file is
// complete. A reader never sees a partial file at the target's name, and a write that fails
// (full disk, a rank that fails, an exception) leaves whatever was there before untouched.
#pragma once

#include <mpi.h>

#include <string>

namespace gsr::io {

/// A temporary name beside `path` (same directory, so the rename is atomic), unique to this
/// process: "<dir>/.<name>.<pid>.partial".
std::string temporary_name(const std::string& path);

/// Collective over `comm`: the temporary name rank 0 chose, on every rank.
std::string temporary_name(const std::string& path, MPI_Comm comm);

/// Moves the finished file `temporary` to `path`, replacing it; throws Error(io) naming
/// `path` if the rename fails (the temporary is then removed).
void publish(const std::string& temporary, const std::string& path);

/// Removes `temporary` if it exists; never throws (for failure paths).
void discard(const std::string& temporary) noexcept;

/// Whether `a` and `b` name one file: for existing paths the same file system entry
/// (std::filesystem::equivalent: links and other spellings), else the same weakly
/// canonical absolute path ("./x" and "x", "d/../x" and "x"). Never throws.
bool same_file(const std::string& a, const std::string& b) noexcept;

/// Writes `text` to `path` by way of a temporary; throws Error(io) naming `what` and `path`.
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace gsr::io
