// mesh_consumer.cpp — a program of the package's component io (gsr::io): each rank writes
// its element of a mesh file (one bilinear element per rank in a row, sharing edges) and
// reads the file back, by blocks; then sums the element counts of each node with a handle
// from the ids it read. Expected values are worked out here: the two end nodes of the row
// and every node of a lone element count 1, interior nodes 2. Exits non-zero on a mismatch.
#include <gsr/handle.hpp>
#include <gsr/mesh.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // One file per rank count, so the runs at P = 1 and 2 may share the folder.
  const std::string path = argc > 1 ? argv[1] : "mesh_consumer_np" + std::to_string(ranks) + ".h5";

  // Element e's nodes, x fastest: bottom (e, e+1), top (e, e+1) of a row of P elements.
  gsr::Mesh mine;
  mine.info.dim = 2;
  mine.info.order = 1;
  mine.elements = {rank};
  const std::int64_t columns = ranks + 1;
  mine.ids = {rank + 1, rank + 2, columns + rank + 1, columns + rank + 2};
  int failures = 0;
  try {
    gsr::write_mesh(path, mine, MPI_COMM_WORLD);
    const gsr::Mesh read = gsr::read_mesh(path, MPI_COMM_WORLD);
    if (read.ids != mine.ids || read.elements != mine.elements) {
      std::fprintf(stderr, "rank %d: the ids or elements read back differ from those written\n", rank);
      ++failures;
    }
    gsr::Handle handle(read.ids, MPI_COMM_WORLD);
    std::vector<double> count(read.ids.size(), 1.0);
    handle.apply(std::span<double>(count), gsr::Op::add);
    for (std::size_t i = 0; i < count.size(); ++i) {
      const bool left_edge = i % 2 == 0 && rank == 0, right_edge = i % 2 == 1 && rank == ranks - 1;
      const double expected = left_edge || right_edge ? 1.0 : 2.0;
      if (count[i] != expected) {
        std::fprintf(stderr, "rank %d: node %zu counted %g elements, expected %g\n", rank, i, count[i], expected);
        ++failures;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mesh_consumer: %s\n", total == 0 ? "ok" : "FAILED");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
