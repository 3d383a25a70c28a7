// A real allocation failure midway (P = 2): rank 1's address space is capped (RLIMIT_AS) a
// little above what it uses, then rank 0 sends it 192 MiB of records by each method, a
// scatter and a gather. Rank 1 runs out of memory receiving them; rank 0, whose sends rank 1
// never takes, must not wait forever: every rank returns an error (E-TRANSFER-OUT-OF-MEMORY
// on rank 1, E-TRANSFER-REMOTE on rank 0; E-SG-* for scatter and gather), well before
// GSR_TIMEOUT. Not built with AddressSanitizer, which needs far more address space than
// any cap leaves.
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr std::size_t big = std::size_t{192} << 20;  // bytes rank 0 sends to rank 1

/// Caps this process's address space at what it maps now plus `extra` bytes.
void cap_address_space(std::size_t extra) {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  ASSERT_GT(pages, 0u);
  const rlim_t cap = pages * 4096 + extra;
  const rlimit limit{cap, cap};
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limit), 0);
}

double timeout_seconds() {
  const char* text = std::getenv("GSR_TIMEOUT");
  return text ? std::atof(text) : 0.0;
}

/// Rank 1 must fail with `own`, rank 0 with `remote` naming rank 1, before GSR_TIMEOUT.
template <class Call>
void expect_out_of_memory(const std::string& own, const std::string& remote, Call&& call, const std::string& what) {
  const double started = MPI_Wtime();
  if (gsr_test::world_rank() == 1) {
    gsr_errors::expect_entry(own, call, what);
  } else {
    const std::string message = gsr_errors::expect_entry(remote, call, what);
    EXPECT_NE(message.find("rank 1 failed: "), std::string::npos) << message;
  }
  EXPECT_LT(MPI_Wtime() - started, timeout_seconds()) << what;
}

TEST(TransferMemory, ARankRunsOutOfMemoryReceiving) {
  ASSERT_EQ(gsr_test::world_size(), 2);
  ASSERT_GT(timeout_seconds(), 0) << "run with GSR_TIMEOUT set";
  const int me = gsr_test::world_rank();
  // Rank 0's records exist before rank 1 caps its memory (each rank maps its own).
  std::vector<std::uint64_t> records(me == 0 ? big / 8 : 0, 7);
  std::vector<int> to(records.size(), 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) cap_address_space(std::size_t{64} << 20);
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<std::uint64_t> received;
  auto room = [&](std::size_t n) -> void* {
    received.resize(n);
    return received.data();
  };
  for (const gsr::TransferMethod method :
       {gsr::TransferMethod::direct, gsr::TransferMethod::crystal_router, gsr::TransferMethod::two_round}) {
    expect_out_of_memory(
        "E-TRANSFER-OUT-OF-MEMORY", "E-TRANSFER-REMOTE",
        [&] { gsr::transfer_bytes(records.data(), records.size(), 8, to, MPI_COMM_WORLD, room, method); },
        std::string(gsr::to_string(method)));
  }
  const std::vector<std::int64_t> counts = {0, static_cast<std::int64_t>(big / 8)};
  expect_out_of_memory(
      "E-SG-OUT-OF-MEMORY", "E-SG-REMOTE",
      [&] {
        gsr::scatter_bytes(records.data(), me == 0 ? records.size() : gsr::unknown_length, counts, 8, 0, MPI_COMM_WORLD,
                           room);
      },
      "scatter");
  expect_out_of_memory(
      "E-SG-OUT-OF-MEMORY", "E-SG-REMOTE",
      [&] { gsr::gather_bytes(records.data(), static_cast<std::int64_t>(records.size()), 8, 1, MPI_COMM_WORLD, room); },
      "gather");
}

}  // namespace
