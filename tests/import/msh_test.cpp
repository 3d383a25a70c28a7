// msh_test.cpp — the Gmsh .msh reader (io/import/msh.cpp) against boxes written by
// msh_writer.py (every format: 2.2 and 4.1, ASCII and binary in both byte orders; every
// element type gsr imports, corners re-oriented, node tags shuffled), whose expectations the
// writer derives from the box itself, against Nek5000's bcid_test meshes, and against one bad
// file per error (docs/errors.md, "Reading a Gmsh .msh").
#include "io/import/msh.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#ifndef GSR_MSH_SUITE
#error "GSR_MSH_SUITE must name the folder msh_writer.py --suite writes"
#endif

namespace {

using gsr::io::import::ElementBlock;
using gsr::io::import::FaceRecord;
using gsr::io::import::read_msh;

const std::string suite = GSR_MSH_SUITE;

struct Expected {
  int dim = 0, geometry = 0;
  std::int64_t elements = 0;
  std::vector<std::int64_t> groups, vertices;
  std::vector<double> points;
  std::vector<std::array<std::int64_t, 3>> faces;  // element, face, tag
  std::vector<std::array<std::int64_t, 2>> periodic;
  std::vector<ElementBlock::Name> names;
};

Expected read_expected(const std::string& path) {
  std::ifstream in(path);
  Expected x;
  std::string word;
  in >> word >> x.dim >> word >> x.elements >> word >> x.geometry;
  const int corners = x.dim == 3 ? 8 : 4;
  const int points = x.dim == 3 ? x.geometry * x.geometry * x.geometry : x.geometry * x.geometry;
  for (std::int64_t e = 0; e < x.elements; ++e) {
    std::int64_t v = 0;
    in >> v;
    x.groups.push_back(v);
    for (int c = 0; c < corners; ++c) in >> v, x.vertices.push_back(v);
    for (int p = 0; p < 3 * points; ++p) {
      double d = 0;
      in >> d;
      x.points.push_back(d);
    }
  }
  std::size_t n = 0;
  in >> word >> n;
  x.faces.resize(n);
  for (auto& f : x.faces) in >> f[0] >> f[1] >> f[2];
  in >> word >> n;
  x.periodic.resize(n);
  for (auto& p : x.periodic) in >> p[0] >> p[1];
  in >> word >> n;
  x.names.resize(n);
  for (auto& m : x.names) in >> m.dim >> m.tag >> m.name;
  EXPECT_TRUE(in) << path;
  return x;
}

void expect_block(const ElementBlock& b, const Expected& x, const std::string& path) {
  SCOPED_TRACE(path);
  const int rank = gsr_test::world_rank(), ranks = gsr_test::world_size();
  const auto [first, last] = gsr::block_range(x.elements, rank, ranks);
  ASSERT_EQ(b.dim, x.dim);
  ASSERT_EQ(b.elements, x.elements);
  EXPECT_EQ(b.fluid_elements, x.elements);
  ASSERT_EQ(b.first, first);
  ASSERT_EQ(b.count, last - first);
  ASSERT_EQ(b.geometry, x.geometry);
  EXPECT_EQ(b.source, path);
  EXPECT_EQ(b.fields, 1);
  const int corners = x.dim == 3 ? 8 : 4;
  const std::size_t points =
      3 * static_cast<std::size_t>(x.dim == 3 ? x.geometry * x.geometry * x.geometry : x.geometry * x.geometry);
  ASSERT_EQ(b.vertices.size(), static_cast<std::size_t>(b.count * corners));
  ASSERT_EQ(b.points.size(), static_cast<std::size_t>(b.count) * points);
  ASSERT_EQ(b.groups.size(), static_cast<std::size_t>(b.count));
  for (std::int64_t e = 0; e < b.count; ++e) {
    EXPECT_EQ(b.groups[e], x.groups[first + e]) << "element " << first + e;
    for (int c = 0; c < corners; ++c)
      EXPECT_EQ(b.vertices[e * corners + c], x.vertices[(first + e) * corners + c])
          << "element " << first + e << " corner " << c;
    for (std::size_t p = 0; p < points; ++p)
      EXPECT_NEAR(b.points[e * points + p], x.points[(first + e) * points + p], 1e-12)
          << "element " << first + e << " point value " << p;
  }
  std::vector<std::array<std::int64_t, 3>> faces, expected;
  for (const FaceRecord& f : b.faces) {
    faces.push_back({f.element, f.face, f.tag});
    EXPECT_EQ(f.field, 0);
    EXPECT_EQ(f.kind[0], '\0');
  }
  for (const auto& f : x.faces)
    if (f[0] >= first && f[0] < last) expected.push_back(f);
  EXPECT_EQ(faces, expected);
  EXPECT_EQ(b.periodic_nodes, x.periodic);
  ASSERT_EQ(b.names.size(), x.names.size());
  for (std::size_t i = 0; i < x.names.size(); ++i) {
    EXPECT_EQ(b.names[i].dim, x.names[i].dim);
    EXPECT_EQ(b.names[i].tag, x.names[i].tag);
    EXPECT_EQ(b.names[i].name, x.names[i].name);
  }
}

// Every box gives the block its writer expects, in every format for one box of each
// dimension (so the four formats, and binary in both byte orders, give identical blocks) and in
// two formats for the other element types (a read costs a few collective steps at P = 3).
TEST(ImportMsh, BoxesInEveryFormatGiveTheWritersBlock) {
  // (2.2-bin-singles: every element in a block of its own, which the parallel reader reads as runs.)
  const std::vector<std::string> all = {"2.2-ascii",  "2.2-bin",    "4.1-ascii",      "4.1-bin",
                                        "2.2-bin-be", "4.1-bin-be", "2.2-bin-singles"};
  const std::vector<std::string> two = {"2.2-bin", "4.1-ascii"};
  for (const char* box : {"hex27", "quad9", "hex8", "hex20", "quad4", "quad8"}) {
    const Expected x = read_expected(suite + "/" + box + ".expect");
    const bool every = std::string(box) == "hex27" || std::string(box) == "quad9";
    std::vector<ElementBlock> blocks;
    for (const std::string& format : every ? all : two) {
      const std::string path = suite + "/" + box + "-" + format + ".msh";
      blocks.push_back(read_msh(path, MPI_COMM_WORLD));
      expect_block(blocks.back(), x, path);
      // The writer's binary is little-endian unless -be.
      const std::string kind = format.find("ascii") != std::string::npos ? " ASCII"
                               : format.find("-be") != std::string::npos ? " binary, big-endian"
                                                                         : " binary, little-endian";
      EXPECT_EQ(blocks.back().format, "Gmsh " + format.substr(0, 3) + kind) << path;
      EXPECT_EQ(blocks.back().vertices, blocks.front().vertices) << path;
      EXPECT_EQ(blocks.back().points, blocks.front().points) << path;
    }
  }
}

std::int64_t sum(std::int64_t v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

// The 3 x 3 (x 3) points of each element lie on a consistent grid: every middle point of a
// grid line lies near the middle of its ends (a wrong node order puts corners in the middle).
void expect_consistent_grid(const ElementBlock& b) {
  const int g = 3, per = b.dim == 3 ? 27 : 9;
  const int lines = b.dim == 3 ? 9 : 3;
  for (std::int64_t e = 0; e < b.count; ++e) {
    const double* p = b.points.data() + e * 3 * per;
    for (int axis = 0; axis < b.dim; ++axis) {
      const int stride = axis == 0 ? 1 : axis == 1 ? g : g * g;
      for (int l = 0; l < lines; ++l) {
        // the line's start: the l-th point whose coordinate on `axis` is 0
        int start = 0, seen = 0;
        for (int q = 0; q < per; ++q)
          if ((q / stride) % g == 0 && seen++ == l) start = q;
        double chord = 0, off = 0;
        for (int x = 0; x < 3; ++x) {
          const double a = p[3 * start + x], m = p[3 * (start + stride) + x], z = p[3 * (start + 2 * stride) + x];
          chord += (z - a) * (z - a);
          off += (m - (a + z) / 2) * (m - (a + z) / 2);
        }
        EXPECT_GT(chord, 0.0) << "element " << b.first + e;
        EXPECT_LT(std::sqrt(off), 0.2 * std::sqrt(chord))
            << "element " << b.first + e << " axis " << axis << " line " << l;
      }
    }
  }
}

// The points of face f of element e (3^(dim-1) of them).
std::vector<std::array<double, 3>> face_points(const ElementBlock& b, const FaceRecord& f) {
  std::vector<std::array<double, 3>> out;
  const int per = b.dim == 3 ? 27 : 9;
  const double* p = b.points.data() + (f.element - b.first) * 3 * per;
  for (int q = 0; q < per; ++q) {
    const int idx[3] = {q % 3, (q / 3) % 3, q / 9};
    if (idx[f.face / 2] == 2 * (f.face % 2)) out.push_back({p[3 * q], p[3 * q + 1], p[3 * q + 2]});
  }
  return out;
}

#ifdef GSR_NEK_MESHES
const std::string bcid = std::string(GSR_NEK_MESHES) + "/Nek5000/short_tests/bcid_test";

// Nek5000's bcid_test pipe (binary 2.2): 960 hex27 of group 4 (Fluid); 416 quad9 boundary
// faces: 48 Inlet (1), 48 Outlet (2), 320 Wall (3). Inlet and outlet faces are planes of one
// axis-aligned coordinate; wall faces lie on a circle about the pipe's axis.
TEST(ImportMsh, NekPipe) {
  const std::string path = bcid + "/3D/pipe.msh";
  const ElementBlock b = read_msh(path, MPI_COMM_WORLD);
  ASSERT_EQ(b.dim, 3);
  ASSERT_EQ(b.elements, 960);
  ASSERT_EQ(b.geometry, 3);
  for (auto g : b.groups) EXPECT_EQ(g, 4);
  std::map<std::int64_t, std::int64_t> by_tag;
  for (const auto& f : b.faces) ++by_tag[f.tag];
  EXPECT_EQ(sum(static_cast<std::int64_t>(b.faces.size())), 416);
  EXPECT_EQ(sum(by_tag[1]), 48);
  EXPECT_EQ(sum(by_tag[2]), 48);
  EXPECT_EQ(sum(by_tag[3]), 320);
  ASSERT_EQ(b.names.size(), 4u);
  std::map<std::int64_t, std::string> names;
  for (const auto& n : b.names) names[n.tag] = n.name;
  EXPECT_EQ(names[1], "Inlet");
  EXPECT_EQ(names[2], "Outlet");
  EXPECT_EQ(names[3], "Wall");
  EXPECT_EQ(names[4], "Fluid");
  EXPECT_TRUE(b.periodic_nodes.empty());
  expect_consistent_grid(b);
  // A corner tag always names the same point.
  std::map<std::int64_t, std::array<double, 3>> at;
  for (std::int64_t e = 0; e < b.count; ++e)
    for (int c = 0; c < 8; ++c) {
      const int q = (c & 1) * 2 + ((c >> 1) & 1) * 6 + ((c >> 2) & 1) * 18;
      const double* p = b.points.data() + (e * 27 + q) * 3;
      const auto [it, added] = at.emplace(b.vertices[e * 8 + c], std::array<double, 3>{p[0], p[1], p[2]});
      if (!added)
        for (int x = 0; x < 3; ++x) EXPECT_EQ(it->second[x], p[x]) << "vertex " << b.vertices[e * 8 + c];
    }
  // Inlet/outlet faces: one coordinate constant over the face's 9 points.
  for (const auto& f : b.faces) {
    const auto pts = face_points(b, f);
    ASSERT_EQ(pts.size(), 9u);
    if (f.tag == 1 || f.tag == 2) {
      bool planar = false;
      for (int x = 0; x < 3; ++x) {
        bool same = true;
        for (const auto& p : pts) same = same && std::abs(p[x] - pts[0][x]) < 1e-9;
        planar = planar || same;
      }
      EXPECT_TRUE(planar) << "element " << f.element << " face " << f.face;
    }
  }
}

// Nek5000's bcid_test 2-D fluid (ASCII 2.2): 15 quad9 of group 1 and 16 line3 on the sides.
TEST(ImportMsh, NekFluid2D) {
  const std::string path = bcid + "/2D/fluid.msh";
  const ElementBlock b = read_msh(path, MPI_COMM_WORLD);
  ASSERT_EQ(b.dim, 2);
  ASSERT_EQ(b.elements, 15);
  ASSERT_EQ(b.geometry, 3);
  for (auto g : b.groups) EXPECT_EQ(g, 1);
  EXPECT_EQ(sum(static_cast<std::int64_t>(b.faces.size())), 16);
  for (const auto& f : b.faces) {
    EXPECT_GE(f.tag, 1);
    EXPECT_LE(f.tag, 4);
    EXPECT_EQ(face_points(b, f).size(), 3u);
  }
  expect_consistent_grid(b);
}
#endif

// One file per error: the io error of its catalogue entry (code and key words from
// docs/errors.md) on every rank, naming the file and what is wrong.
void expect_error(const std::string& id, const std::string& name, const std::vector<std::string>& words) {
  const std::string path = suite + "/" + name;
  const std::string message = gsr_errors::expect_entry(
      id, [&] { (void)read_msh(path, MPI_COMM_WORLD); }, path);
  EXPECT_NE(message.find("file '" + path + "'"), std::string::npos) << message;
  for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

TEST(ImportMsh, EveryBadFileIsAnIoErrorOnEveryRank) {
  // Binary files are read in parts by every rank (ASCII by rank 0): the same errors either way.
  for (const char* format : {"2.2-ascii", "2.2-bin", "4.1-bin"}) {
    const std::string f = std::string("-") + format + ".msh";
    expect_error("E-IMPORT-MSH-CORRUPT", "bad-truncated" + f, {});
    expect_error("E-IMPORT-MSH-VERSION", "bad-version" + f, {"MSH version 3.0"});
    expect_error("E-IMPORT-MSH-TYPES", "bad-tets" + f,
                 {"3-D elements of types it cannot import: 3 tetrahedra (type 4), 2 prisms (type 6)",
                  "gsr imports hexahedra only"});
    expect_error("E-IMPORT-MSH-MIXED", "bad-mixed" + f, {"2 of type 12", "1 of type 5"});
    expect_error("E-IMPORT-MSH-NO-VOLUME", "bad-no-volume" + f, {"not lie in one plane"});
    expect_error("E-IMPORT-MSH-NODE", "bad-undefined-node" + f, {"element 13: node 10000003"});
    expect_error("E-IMPORT-MSH-BOUNDARY", "bad-unmatched" + f, {"element 1 (physical tag 1"});
    expect_error("E-IMPORT-MSH-CORRUPT", "bad-duplicate-node" + f, {"section $Nodes: node ", " is defined twice"});
  }
  expect_error("E-IMPORT-MSH-NO-VOLUME", "bad-no-volume-2d.msh", {"no element of dimension 2 or 3"});
  expect_error("E-IMPORT-MSH-VERSION", "bad-version1.msh", {"MSH version 1.0"});
  expect_error("E-IMPORT-MSH-CORRUPT", "bad-empty.msh", {"not a Gmsh .msh file"});
  expect_error("E-IMPORT-MSH-OPEN", "no-such-file.msh", {});
}

}  // namespace
