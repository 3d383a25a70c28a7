// make_bad_meshes.cpp — writes the bad-file corpus (tests/io/bad_meshes.hpp) into a
// directory for the gsr-check tests, and lists its cases, one per line:
//   name|object|problem|by_partition|loads
#include "bad_meshes.hpp"

#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make-bad-meshes DIRECTORY [--list]\n";
    return 2;
  }
  if (argc > 2 && std::strcmp(argv[2], "--list") == 0) {
    for (const auto& mesh : gsr::testing::bad_meshes())
      std::cout << mesh.name << '|' << mesh.object << '|' << mesh.problem << '|' << mesh.by_partition << '|'
                << mesh.loads << '\n';
    return 0;
  }
  gsr::testing::write_bad_meshes(argv[1]);
  return 0;
}
