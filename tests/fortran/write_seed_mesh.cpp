// write_seed_mesh.cpp — writes the two-element example of docs/concepts.md (Table 1's id,
// order 2 in 2D) as a gsr mesh file for the Fortran mesh test: element 1 on [0,1]^2,
// element 2 on [1,2]x[0,1], and a partition for two ranks that swaps them (element 1 on
// rank 1, element 2 on rank 0). Usage: write_seed_mesh <file.h5>
#include <gsr/mesh.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <file.h5>\n", argv[0]);
    return 2;
  }
  const std::vector<std::int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 10, 11, 6, 12, 13, 9, 14, 15};
  std::vector<double> coordinates;
  for (int element = 0; element < 2; ++element)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        coordinates.push_back(element + 0.5 * i);
        coordinates.push_back(0.5 * j);
      }
  const std::vector<std::int32_t> partition = {1, 0};
  try {
    gsr::MeshLayout layout;
    layout.dim = 2;
    layout.order = 2;
    layout.elements = 2;
    layout.coordinates = true;
    layout.partition = true;
    layout.partition_ranks = 2;
    gsr::MeshWriter writer(argv[1], layout);
    writer.write(ids, coordinates, partition);
    writer.close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_seed_mesh: %s\n", e.what());
    return 1;
  }
  return 0;
}
