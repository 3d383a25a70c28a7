// One rank skips a gs call (tests/mpi/CMakeLists.txt checks what every rank reports).
//   skipped_call free <method>: rank 1 skips the second of three calls, then both ranks free
//     the handle: rank 0, waiting in its third call, learns from rank 1's free notice that
//     rank 1 made 2 calls; both report the difference when they free.
//   skipped_call wait <method> [rank]: rank 1 (or the rank given) skips the third call and
//     keeps the handle until the others are done: its neighbours' third calls give up after
//     GSR_TIMEOUT seconds, naming the ranks whose messages they still wait for.
// Prints "rank R: call C: <error>" for each failed call; exits 0 unless setup fails.
#include <gsr/handle.hpp>

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

// Rank r holds ids r+1 and r+2: neighbouring ranks share one id.
std::vector<std::int64_t> chain_ids(int rank) { return {rank + 1, rank + 2}; }

void call(gsr::Handle& handle, int rank, int number) {
  std::vector<double> u{1.0, 2.0};
  try {
    handle.apply(std::span<double>(u), gsr::Op::add);
    std::printf("rank %d: call %d: ok\n", rank, number);
  } catch (const gsr::Error& e) {
    std::printf("rank %d: call %d: error %d: %s\n", rank, number, static_cast<int>(e.code()), e.what());
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool free_mode = argc > 1 && std::strcmp(argv[1], "free") == 0;
  const std::optional<gsr::Method> method = gsr::method_from_string(argc > 2 ? argv[2] : "pairwise");
  {
    gsr::SetupOptions options;
    options.method = method.value_or(gsr::Method::pairwise);
    gsr::Handle handle(chain_ids(rank), MPI_COMM_WORLD, options);
    const int skipped = free_mode ? 2 : 3;
    const int skipper = argc > 3 ? std::atoi(argv[3]) : 1;
    for (int number = 1; number <= 3; ++number)
      if (!(rank == skipper && number == skipped)) call(handle, rank, number);
    if (!free_mode) MPI_Barrier(MPI_COMM_WORLD);  // rank 1 keeps the handle until rank 0 gave up
  }
  MPI_Finalize();
  return 0;
}
