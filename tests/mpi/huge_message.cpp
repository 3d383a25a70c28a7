// Opt-in (ctest -L huge, configured with -DGSR_HUGE_TESTS=ON): messages really longer than
// 2 GiB between two ranks, with the MPI library's own large-count path (or chunks where it
// has none). Needs about 11 GiB per rank for the gs part; not for every CI run.
//
//   huge_message raw BYTES            rank 0 sends BYTES to rank 1 (mpi/messages.hpp)
//   huge_message gs METHOD N K        gs_vec of K doubles on N ids both ranks hold
//
// The gs mode prints the call's time and the memory it added (peak resident set during the
// first call minus the resident set before it), as a multiple of the bytes this rank sends
// plus receives, and fails if the values are wrong or, for pairwise, that multiple exceeds 2.
#include <gsr/handle.hpp>

#include "mpi/messages.hpp"

#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::byte pattern(std::size_t i) { return static_cast<std::byte>((i * 2654435761u) >> 13); }

double resident_gib() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * 4096.0 / (1u << 30);
}

double peak_resident_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0 / (1u << 30);  // ru_maxrss is in KiB
}

int raw(std::size_t bytes, int rank) {
  const auto start = std::chrono::steady_clock::now();
  int failures = 0;
  if (rank == 0) {
    std::vector<std::byte> out(bytes);
    for (std::size_t i = 0; i < bytes; ++i) out[i] = pattern(i);
    std::vector<MPI_Request> requests;
    gsr::detail::post_send(out.data(), bytes, 1, 5, MPI_COMM_WORLD, requests, 0);
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    std::printf("raw: rank 0 sent %zu bytes as %zu MPI message(s)\n", bytes, requests.size());
  } else if (rank == 1) {
    gsr::detail::ProbedMessage message = gsr::detail::probe(MPI_COMM_WORLD, 0, 5, 0);
    std::vector<std::byte> in(message.bytes);
    gsr::detail::receive(message, in.data());
    if (message.bytes != bytes) ++failures;
    for (std::size_t i = 0; i < message.bytes && failures < 10; ++i)
      if (in[i] != pattern(i)) ++failures;
    std::printf("raw: rank 1 received %zu bytes (%zu chunk(s)): %s\n", message.bytes, message.more.size() + 1,
                failures ? "WRONG" : "intact");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("raw: rank %d: %.2f s\n", rank, seconds);
  return failures;
}

int gs(gsr::Method method, std::size_t n, std::size_t k, int rank) {
  std::vector<std::int64_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::int64_t>(i + 1);
  gsr::SetupOptions options;
  options.method = method;
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  std::vector<std::int64_t>().swap(ids);

  // Small integers, so the sum over both ranks is exact in double.
  std::vector<double> u(n * k);
  for (std::size_t j = 0; j < u.size(); ++j) u[j] = static_cast<double>(j % 1000 + static_cast<std::size_t>(rank));
  MPI_Barrier(MPI_COMM_WORLD);
  const double before = resident_gib();
  const auto start = std::chrono::steady_clock::now();
  h.apply_vec(std::span<double>(u), k, gsr::Op::add);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double added = peak_resident_gib() - before;
  // A second call: its buffers exist, so this is the steady-state time.
  for (std::size_t j = 0; j < u.size(); ++j) u[j] = static_cast<double>(j % 1000 + static_cast<std::size_t>(rank));
  MPI_Barrier(MPI_COMM_WORLD);
  const auto again = std::chrono::steady_clock::now();
  h.apply_vec(std::span<double>(u), k, gsr::Op::add);
  const double second = std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();

  std::size_t wrong = 0;
  for (std::size_t j = 0; j < u.size(); ++j)
    if (u[j] != static_cast<double>(2 * (j % 1000) + 1)) ++wrong;
  const double traffic = 2.0 * static_cast<double>(n * k * sizeof(double)) / (1u << 30);  // sent + received
  const double ratio = added / traffic;
  std::printf(
      "gs %s: rank %d: n = %zu, k = %zu, message %.3f GiB: %.2f s (again: %.2f s), added %.2f GiB = %.2fx sent + "
      "received"
      " (%zu wrong values)\n",
      std::string(gsr::to_string(method)).c_str(), rank, n, k, traffic / 2, seconds, second, added, ratio, wrong);
  int failures = wrong != 0;
  if (method == gsr::Method::pairwise && ratio > 2.0) {
    std::printf("gs pairwise: rank %d: added memory exceeds 2x the bytes sent plus received\n", rank);
    ++failures;
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (size != 2) {
      if (rank == 0) std::fprintf(stderr, "huge_message: run on 2 ranks\n");
      failures = 1;
    } else if (mode == "raw" && argc == 3) {
      failures = raw(std::stoull(argv[2]), rank);
    } else if (mode == "gs" && argc == 5 && gsr::method_from_string(argv[2])) {
      failures = gs(*gsr::method_from_string(argv[2]), std::stoull(argv[3]), std::stoull(argv[4]), rank);
    } else {
      if (rank == 0) std::fprintf(stderr, "usage: huge_message raw BYTES | gs METHOD N K\n");
      failures = 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "huge_message: rank %d: %s\n", rank, e.what());
    failures = 1;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
