// import/vertices_nek_test.cpp — match_vertices on two of Nek5000's shipped 2-D meshes, read
// here by a few lines that know just their layout (.re2 v001 and v002: header, elements,
// no curves, BC sections of 8-word records): double_shear (8 x 8 elements on the unit square,
// periodic in x and y by 32 P records) and lowMach_test (8 x 8 on [-1, 1] x [0, 1], periodic
// in y, its 16 P records given again in its second BC section). Both meshes are lattices, so
// the expected vertices are their lattice points, wrapped along the periodic axes, and the
// expected id of a vertex is the contract's (vertices.hpp): the smallest element * 4 +
// corner + 1 of its corners.
#include <gsr/mesh.hpp>

#include "io/import/vertices.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

using gsr::io::import::ElementBlock;
using gsr::io::import::FaceRecord;
using gsr::io::import::match_vertices;

struct Re2 {
  std::int64_t elements = 0;
  std::vector<std::array<double, 8>> xy;  // per element: x of the 4 prenek corners, then y
  std::vector<FaceRecord> faces;          // our numbering, 0-based
};

Re2 read_re2(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Re2 mesh;
  const int w = bytes.compare(0, 5, "#v001") == 0 ? 4 : 8;
  mesh.elements = std::stoll(bytes.substr(5, 9));
  EXPECT_EQ(bytes.substr(14, 3), "  2");
  std::size_t at = 84;
  const auto real = [&](std::size_t i) {
    if (w == 8) {
      double v;
      std::memcpy(&v, &bytes[i], 8);
      return v;
    }
    float v;
    std::memcpy(&v, &bytes[i], 4);
    return double(v);
  };
  const auto integer = [&](std::size_t i) -> std::int64_t {
    if (w == 8) return static_cast<std::int64_t>(real(i));
    std::int32_t v;
    std::memcpy(&v, &bytes[i], 4);
    return v;
  };
  for (std::int64_t e = 0; e < mesh.elements; ++e) {
    std::array<double, 8> xy{};
    for (int i = 0; i < 8; ++i) xy[i] = real(at + (1 + i) * w);
    mesh.xy.push_back(xy);
    at += 9 * w;
  }
  EXPECT_EQ(integer(at), 0);  // no curves
  at += w;
  static constexpr int ours[] = {2, 1, 3, 0};  // prenek face 1..4 -> ours
  int field = 0;
  while (at < bytes.size()) {
    const std::int64_t records = integer(at);
    at += w;
    for (std::int64_t r = 0; r < records; ++r, at += 8 * w) {
      FaceRecord f;
      f.element = integer(at) - 1;
      f.face = ours[integer(at + w) - 1];
      f.field = field;
      for (int k = 0; k < 3 && bytes[at + 7 * w + k] != ' '; ++k) f.kind[k] = bytes[at + 7 * w + k];
      if (f.kind[0] == 'P') {
        f.other_element = static_cast<std::int64_t>(real(at + 2 * w)) - 1;
        f.other_face = ours[static_cast<int>(real(at + 3 * w)) - 1];
      }
      mesh.faces.push_back(f);
    }
    ++field;
  }
  return mesh;
}

void check(const std::string& file, double x0, double dx, double dy, bool periodic_x, std::int64_t face_pairs) {
  const Re2 mesh = read_re2(GSR_NEK_MESHES "/Nek5000/short_tests/" + file);
  ASSERT_EQ(mesh.elements, 64);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto range = gsr::block_range(mesh.elements, rank, ranks);
  ElementBlock b;
  b.source = file;
  b.dim = 2;
  b.elements = b.fluid_elements = mesh.elements;
  b.first = range[0];
  b.count = range[1] - range[0];
  static constexpr int prenek[] = {0, 1, 3, 2};  // lexicographic corner -> prenek corner
  for (std::int64_t e = b.first; e < range[1]; ++e) {
    for (int c = 0; c < 4; ++c) {
      b.points.insert(b.points.end(), {mesh.xy[e][prenek[c]], mesh.xy[e][4 + prenek[c]], 0.0});
    }
  }
  for (const FaceRecord& f : mesh.faces) {
    if (f.element >= b.first && f.element < range[1]) b.faces.push_back(f);
  }
  const auto result = match_vertices(b, MPI_COMM_WORLD);
  // The lattice point of every corner of the mesh, wrapped; the smallest key + 1 at each.
  const auto point = [&](std::int64_t e, int c) {
    long i = std::lround((mesh.xy[e][prenek[c]] - x0) / dx), j = std::lround(mesh.xy[e][4 + prenek[c]] / dy);
    if (periodic_x) i %= 8;
    return std::array<long, 2>{i, j % 8};
  };
  std::map<std::array<long, 2>, std::int64_t> smallest;
  for (std::int64_t e = 0; e < mesh.elements; ++e) {
    for (int c = 0; c < 4; ++c) smallest.emplace(point(e, c), e * 4 + c + 1);  // first seen is smallest
  }
  EXPECT_EQ(smallest.size(), periodic_x ? 64u : 72u);
  ASSERT_EQ(result.ids.size(), static_cast<std::size_t>(b.count * 4));
  for (std::int64_t e = b.first; e < range[1]; ++e) {
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(result.ids[static_cast<std::size_t>((e - b.first) * 4 + c)], smallest.at(point(e, c)))
          << file << ": element " << e + 1 << " corner " << c;
    }
  }
  EXPECT_EQ(result.periodic_face_pairs, face_pairs);
}

TEST(ImportVerticesNek, DoubleShearIsPeriodicInXAndY) {
  check("double_shear/double_shear.re2", 0.0, 0.125, 0.125, true, 16);
}

TEST(ImportVerticesNek, LowMachTestIsPeriodicInY) {
  check("lowMach_test/lowMach_test.re2", -1.0, 0.25, 0.125, false, 8);
}

}  // namespace
