// E-FREE-SILENT (docs/errors.md): rank 0 reaches MPI_Finalize with a live handle while
// rank 1 is still busy for longer than GSR_TIMEOUT (run with GSR_TIMEOUT=1): rank 0 waits
// that long for rank 1's notice, reports it on stderr, and finishes. Exits 0.
#include <gsr/handle.hpp>

#include <mpi.h>

#include <chrono>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  gsr::SetupOptions options;
  options.method = gsr::Method::pairwise;
  // Kept live on purpose: its notices go out at MPI_Finalize.
  static gsr::Handle handle(std::vector<std::int64_t>{1, 2}, MPI_COMM_WORLD, options);
  if (rank != 0) std::this_thread::sleep_for(std::chrono::seconds(3));
  MPI_Finalize();
  return 0;
}
