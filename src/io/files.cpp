// io/files.cpp — see files.hpp.
#include "io/files.hpp"
#include "config/config.hpp"
#include "mpi/polled.hpp"

#include <gsr/error.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace gsr::io {

std::string temporary_name(const std::string& path) {
  const std::filesystem::path target(path);
  const std::string name = "." + target.filename().string() + "." + std::to_string(::getpid()) + ".partial";
  return (target.parent_path() / name).string();
}

std::string temporary_name(const std::string& path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string name = rank == 0 ? temporary_name(path) : std::string();
  unsigned long long length = name.size();
  const double timeout = detail::timeout_or_default({});  // polled (mpi/polled.hpp)
  detail::bcast_polled(&length, sizeof length, 0, comm, timeout);
  name.resize(length);
  detail::bcast_polled(name.data(), static_cast<int>(length), 0, comm, timeout);
  return name;
}

void publish(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) == 0) return;
  const int error = errno;
  discard(temporary);
  throw Error(ErrorCode::io, "file '" + path + "': cannot be put in place (rename from '" + temporary +
                                 "' failed: " + std::strerror(error) + ")");
}

void discard(const std::string& temporary) noexcept { std::remove(temporary.c_str()); }

bool same_file(const std::string& a, const std::string& b) noexcept {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool same = fs::equivalent(a, b, error);
    if (!error) return same;
  }
  auto canonical = [](const std::string& path) {
    std::error_code ignored;
    const fs::path absolute = fs::absolute(path, ignored);
    const fs::path resolved = fs::weakly_canonical(absolute, ignored);
    return (resolved.empty() ? absolute : resolved).lexically_normal();
  };
  try {
    return canonical(a) == canonical(b);
  } catch (...) {  // allocation failure: say "different", the caller then writes as asked
    return a == b;
  }
}

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  const std::string temporary = temporary_name(path);
  {
    std::ofstream out(temporary, std::ios::trunc | std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      discard(temporary);
      throw Error(ErrorCode::io, "file '" + path + "': cannot write " + what);
    }
  }
  publish(temporary, path);
}

}  // namespace gsr::io
