// make_bad_meshes.cpp — writes the bad-file corpus (tests/io/bad_meshes.hpp) into a
// directory for the gsr-check tests, and lists its cases, one per line:
//   name|object|problem|by_partition|loads
// With --hostile it writes instead the files beyond the corpus that gsr-check itself must
// reject: huge.h5 (2^40 elements declared), id_int64_min.h5 (element 3, node 4),
// coordinate_nan.h5, coordinate_inf.h5 and coordinate_minus_inf.h5 (element 2, node 5),
// and flipped_superblock.h5: MESHES/two_element.h5 with byte 33 xor 0xff, which once left
// the ranks of `mpiexec -n 2 gsr-check` waiting in different collective calls.
#include "bad_meshes.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

void write_flipped_copy(const std::string& source, const std::string& target, std::size_t offset, unsigned char mask) {
  std::ifstream in(source, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() <= offset) throw std::runtime_error("make-bad-meshes: cannot read " + source);
  bytes[offset] = static_cast<char>(static_cast<unsigned char>(bytes[offset]) ^ mask);
  std::ofstream(target, std::ios::binary) << bytes;
}

void write_hostile_meshes(const std::string& directory, const std::string& meshes) {
  using namespace gsr::testing;
  std::filesystem::create_directories(directory);
  const double infinity = std::numeric_limits<double>::infinity();
  write_huge_mesh(directory + "/huge.h5");
  write_mesh_with_id(directory + "/id_int64_min.h5", 3, 4, std::numeric_limits<std::int64_t>::min());
  write_mesh_with_coordinate(directory + "/coordinate_nan.h5", 2, 5, 1, std::numeric_limits<double>::quiet_NaN());
  write_mesh_with_coordinate(directory + "/coordinate_inf.h5", 2, 5, 0, infinity);
  write_mesh_with_coordinate(directory + "/coordinate_minus_inf.h5", 2, 5, 1, -infinity);
  write_flipped_copy(meshes + "/two_element.h5", directory + "/flipped_superblock.h5", 33, 0xff);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make-bad-meshes DIRECTORY [--list | --hostile MESHES]\n";
    return 2;
  }
  const std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "--list") {
    for (const auto& mesh : gsr::testing::bad_meshes())
      std::cout << mesh.name << '|' << mesh.object << '|' << mesh.problem << '|' << mesh.by_partition << '|'
                << mesh.loads << '\n';
    return 0;
  }
  if (mode == "--hostile" && argc > 3) {
    write_hostile_meshes(argv[1], argv[3]);
    return 0;
  }
  gsr::testing::write_bad_meshes(argv[1]);
  return 0;
}
