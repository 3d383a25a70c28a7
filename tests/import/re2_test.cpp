// The .re2 reader (src/io/import/re2.cpp) at P = 1, 2, 3: Nek5000's shipped meshes against the
// counts and values of the Nek5000 digest (section 5) and against their byte-swapped copies;
// box meshes of every version and byte order from re2_writer.py (re-oriented, shuffled,
// periodic) checked by geometry alone; one element whose curve and BC records carry the
// corners of their prenek edge or face; a v001 file of a million elements; every block
// against one rank's read of the whole file; every error of the reader (docs/errors.md,
// "Reading a Nek5000 .re2") with a file that provokes it. The files come from
// re2_test_files.py (fixture import_re2_files).
#include "io/import/re2.hpp"

#include "catalogue.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

using gsr::io::import::Curve;
using gsr::io::import::ElementBlock;
using gsr::io::import::FaceRecord;
using gsr::io::import::Re2Options;
using gsr::io::import::read_re2;

const std::string files = GSR_RE2_FILES;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

std::int64_t sum(std::int64_t x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return x;
}

std::string kind(const FaceRecord& r) { return std::string(r.kind.data()); }

int corners(const ElementBlock& b) { return b.dim == 3 ? 8 : 4; }

std::array<double, 3> point(const ElementBlock& b, std::int64_t element, int corner) {
  const std::int64_t local = element - b.first;
  const double* p = b.points.data() + (local * corners(b) + corner) * 3;
  return {p[0], p[1], p[2]};
}

/// Our face f: the corners whose bit f / 2 is f % 2 (element_block.hpp).
std::vector<int> face_corners(int dim, int f) {
  std::vector<int> out;
  for (int c = 0; c < (dim == 3 ? 8 : 4); ++c)
    if (((c >> (f / 2)) & 1) == f % 2) out.push_back(c);
  return out;
}

/// Our edge e: its lower and higher corner (element_block.hpp, written out by hand).
std::array<int, 2> edge_corners(int dim, int e) {
  if (dim == 2) {
    static const int table[4][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}};
    return {table[e][0], table[e][1]};
  }
  static const int table[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                   {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  return {table[e][0], table[e][1]};
}

bool near(const std::array<double, 3>& a, const std::array<double, 3>& b, double tol = 1e-12) {
  return std::fabs(a[0] - b[0]) <= tol && std::fabs(a[1] - b[1]) <= tol && std::fabs(a[2] - b[2]) <= tol;
}

bool same_face(const FaceRecord& a, const FaceRecord& b) {
  return a.element == b.element && a.face == b.face && a.field == b.field && a.kind == b.kind && a.tag == b.tag &&
         a.other_element == b.other_element && a.other_face == b.other_face && a.params == b.params;
}
bool same_curve(const Curve& a, const Curve& b) {
  return a.element == b.element && a.edge == b.edge && a.type == b.type && a.params == b.params;
}

/// `block` (this rank's) is `whole` (one rank's read of the file) restricted to its elements.
void expect_block_of(const ElementBlock& block, const ElementBlock& whole, const std::string& what) {
  const auto [first, last] = gsr::block_range(whole.elements, world_rank(), world_size());
  ASSERT_EQ(block.first, first) << what;
  ASSERT_EQ(block.count, last - first) << what;
  EXPECT_EQ(block.dim, whole.dim) << what;
  EXPECT_EQ(block.elements, whole.elements) << what;
  EXPECT_EQ(block.fluid_elements, whole.fluid_elements) << what;
  EXPECT_EQ(block.fields, whole.fields) << what;
  EXPECT_EQ(block.geometry, 2) << what;
  const int nv = corners(whole);
  const auto points_begin = whole.points.begin() + first * nv * 3;
  EXPECT_TRUE(
      std::equal(block.points.begin(), block.points.end(), points_begin, points_begin + (last - first) * nv * 3))
      << what << ": points";
  EXPECT_TRUE(
      std::equal(block.groups.begin(), block.groups.end(), whole.groups.begin() + first, whole.groups.begin() + last))
      << what << ": groups";
  if (!whole.vertices.empty()) {
    const auto vertices_begin = whole.vertices.begin() + first * nv;
    EXPECT_TRUE(
        std::equal(block.vertices.begin(), block.vertices.end(), vertices_begin, vertices_begin + (last - first) * nv))
        << what << ": vertices";
  } else {
    EXPECT_TRUE(block.vertices.empty()) << what;
  }
  std::vector<FaceRecord> faces;
  for (const FaceRecord& r : whole.faces)
    if (r.element >= first && r.element < last) faces.push_back(r);
  EXPECT_TRUE(std::equal(block.faces.begin(), block.faces.end(), faces.begin(), faces.end(), same_face))
      << what << ": BC records";
  std::vector<Curve> curves;
  for (const Curve& c : whole.curves)
    if (c.element >= first && c.element < last) curves.push_back(c);
  EXPECT_TRUE(std::equal(block.curves.begin(), block.curves.end(), curves.begin(), curves.end(), same_curve))
      << what << ": curves";
}

// ---- Nek5000's shipped meshes -------------------------------------------------------------------

#ifdef GSR_NEK_SHORT_TESTS
const std::string nek = GSR_NEK_SHORT_TESTS;

struct NekMesh {
  std::string path;  // under short_tests/
  int dim;
  std::int64_t nelgt, nelgv, curves;
  std::vector<std::int64_t> bcs;  // records per field
};

// The Nek5000 digest's table (section 5), counted there from the files' bytes by hand.
const std::vector<NekMesh> nek_meshes = {
    {"conj_ht/conj_ht.re2", 2, 64, 32, 0, {24, 32, 8}},
    {"conj_ht/conj_ht_char.re2", 2, 64, 32, 0, {24, 32, 8}},
    {"dfh_cav/lin_dfh_cav_adj.re2", 2, 196, 196, 0, {56, 56}},
    {"dfh_cav/lin_dfh_cav_dir.re2", 2, 196, 196, 0, {56, 56}},
    {"double_shear/double_shear.re2", 2, 64, 64, 0, {32}},
    {"ethier/ethier.re2", 3, 32, 32, 96, {24}},
    {"ethier/ethierRefine.re2", 3, 32, 32, 96, {24}},
    {"impsrc_scalar/impsrc_scalar.re2", 2, 10, 10, 0, {22, 22}},
    {"io_test/io_test.re2", 3, 36, 36, 0, {66, 66, 66, 66}},
    {"io_test/io_test_rs.re2", 3, 36, 36, 0, {66, 66, 66, 66}},
    {"lowMach_test/lowMach_test.re2", 2, 64, 64, 0, {32, 32}},
    {"lpm_one/uniform.re2", 3, 125, 125, 0, {150}},
    {"lpm_two/uniform.re2", 2, 25, 25, 0, {20}},
    {"mv_cyl/mv_cyl.re2", 2, 150, 150, 0, {50, 50}},
};

/// The counts of the digest's table, in a read of the whole file.
void expect_counts(const NekMesh& m, const ElementBlock& whole) {
  EXPECT_EQ(whole.dim, m.dim) << m.path;
  EXPECT_EQ(whole.elements, m.nelgt) << m.path;
  EXPECT_EQ(whole.count, m.nelgt) << m.path;
  EXPECT_EQ(whole.fluid_elements, m.nelgv) << m.path;
  EXPECT_EQ(static_cast<std::int64_t>(whole.curves.size()), m.curves) << m.path;
  ASSERT_EQ(whole.fields, static_cast<int>(m.bcs.size())) << m.path;
  for (int f = 0; f < whole.fields; ++f) {
    const auto n =
        std::count_if(whole.faces.begin(), whole.faces.end(), [&](const FaceRecord& r) { return r.field == f; });
    EXPECT_EQ(n, m.bcs[f]) << m.path << " field " << f;
  }
  EXPECT_TRUE(whole.vertices.empty()) << m.path;  // no .ma2/.co2 in the tarball
}

/// Each file read whole by one rank has the digest's counts; every rank's block of the
/// parallel read is that read cut up (the same at P = 1, 2, 3); the byte-swapped copy reads
/// the same block.
TEST(Re2NekMeshes, CountsBlocksAndByteSwappedCopies) {
  for (const NekMesh& m : nek_meshes) {
    const std::string path = nek + "/" + m.path;
    const ElementBlock whole = read_re2(path, MPI_COMM_SELF);
    expect_counts(m, whole);
    const ElementBlock a = read_re2(path, MPI_COMM_WORLD);
    expect_block_of(a, whole, m.path);
    std::string swapped = m.path;
    swapped.replace(swapped.find('/'), 1, "__");
    const ElementBlock b = read_re2(files + "/swapped/" + swapped, MPI_COMM_WORLD);
    EXPECT_EQ(a.points, b.points) << m.path;
    EXPECT_EQ(a.groups, b.groups) << m.path;
    EXPECT_TRUE(std::equal(a.faces.begin(), a.faces.end(), b.faces.begin(), b.faces.end(), same_face)) << m.path;
    EXPECT_TRUE(std::equal(a.curves.begin(), a.curves.end(), b.curves.begin(), b.curves.end(), same_curve)) << m.path;
    EXPECT_EQ(a.fields, b.fields) << m.path;
    EXPECT_EQ(a.first, b.first) << m.path;
    EXPECT_EQ(a.count, b.count) << m.path;
  }
}

TEST(Re2NekMeshes, KnownValues) {
  // double_shear: element 1 corners x = [0,.125,.125,0], y = [0,0,.125,.125] (prenek order),
  // fully periodic; element 1 prenek face 1 (our 2) is P to element 57 face 3 (our 3).
  const ElementBlock ds = read_re2(nek + "/double_shear/double_shear.re2", MPI_COMM_WORLD);
  if (ds.first == 0) {
    EXPECT_TRUE(near(point(ds, 0, 0), {0, 0, 0}));
    EXPECT_TRUE(near(point(ds, 0, 1), {.125, 0, 0}));
    EXPECT_TRUE(near(point(ds, 0, 2), {0, .125, 0}));  // prenek corner 4
    EXPECT_TRUE(near(point(ds, 0, 3), {.125, .125, 0}));
    EXPECT_EQ(ds.groups[0], 0);
    const auto r = std::find_if(ds.faces.begin(), ds.faces.end(),
                                [](const FaceRecord& f) { return f.element == 0 && f.face == 2; });
    ASSERT_NE(r, ds.faces.end());
    EXPECT_EQ(kind(*r), "P");
    EXPECT_EQ(r->other_element, 56);
    EXPECT_EQ(r->other_face, 3);
    EXPECT_EQ(r->params[0], 57.0);
    EXPECT_EQ(r->params[1], 3.0);
  }
  for (const FaceRecord& r : ds.faces) {
    EXPECT_EQ(kind(r), "P");
    EXPECT_GE(r.other_element, 0);
  }
  // io_test: element 1 at z = .1 (prenek corners 1-4) and .4 (5-8).
  const ElementBlock io = read_re2(nek + "/io_test/io_test.re2", MPI_COMM_WORLD);
  if (io.first == 0)
    for (int c = 0; c < 8; ++c) EXPECT_NEAR(point(io, 0, c)[2], c < 4 ? .1 : .4, 1e-6) << "corner " << c;
  // ethier: 'm' curves with the midpoint of their edge (read from the file's bytes by hand:
  // element 1's records are prenek edges 2, 6, 10, 11, the first (.9239, .3827, 0), the
  // second (.6739, .3029, .6739)); EXO boundary records.
  const ElementBlock et = read_re2(nek + "/ethier/ethier.re2", MPI_COMM_WORLD);
  for (const Curve& c : et.curves) EXPECT_EQ(c.type, 'm');
  for (const FaceRecord& r : et.faces) EXPECT_EQ(kind(r), "EXO");
  if (et.first == 0) {
    std::set<int> edges;
    for (const Curve& c : et.curves)
      if (c.element == 0) edges.insert(c.edge);
    EXPECT_EQ(edges, (std::set<int>{5, 7, 9, 11}));  // prenek 2, 6, 10, 11
    const auto c =
        std::find_if(et.curves.begin(), et.curves.end(), [](const Curve& x) { return x.element == 0 && x.edge == 5; });
    ASSERT_NE(c, et.curves.end());
    EXPECT_NEAR(c->params[0], .9239, 1e-4);
    EXPECT_NEAR(c->params[1], .3827, 1e-4);
    EXPECT_NEAR(c->params[2], 0, 1e-12);
    const auto d =
        std::find_if(et.curves.begin(), et.curves.end(), [](const Curve& x) { return x.element == 0 && x.edge == 7; });
    ASSERT_NE(d, et.curves.end());
    EXPECT_NEAR(d->params[0], .6739, 1e-4);
    EXPECT_NEAR(d->params[1], .3029, 1e-4);
    EXPECT_NEAR(d->params[2], .6739, 1e-4);
  }
  // Every 'm' midpoint lies near the middle of the chord of the edge it names (the edges
  // are gently curved), so a curve put on the wrong edge shows.
  for (const Curve& c : et.curves) {
    const auto [lo, hi] = edge_corners(3, c.edge);
    const auto a = point(et, c.element, lo), b = point(et, c.element, hi);
    const double length = std::hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    const double off =
        std::hypot(c.params[0] - (a[0] + b[0]) / 2, c.params[1] - (a[1] + b[1]) / 2, c.params[2] - (a[2] + b[2]) / 2);
    EXPECT_LT(off, 0.25 * length) << "element " << c.element + 1 << " edge " << c.edge;
  }
  // conj_ht: the velocity field covers only the 32 fluid elements.
  const ElementBlock cj = read_re2(nek + "/conj_ht/conj_ht.re2", MPI_COMM_WORLD);
  for (const FaceRecord& r : cj.faces)
    if (r.field == 0) EXPECT_LT(r.element, 32);
}

#endif

// ---- box meshes from re2_writer.py --------------------------------------------------------------

struct Box {
  std::string name;
  std::vector<int> n;
  std::vector<int> periodic;  // axes
  int fields;
  bool vertex_file;
  std::string reorient;  // none, rotations, all
  bool shuffle;
};

// The parameters re2_test_files.py passes to re2_writer.box.
const std::vector<Box> boxes = {
    {"box2d_v001", {4, 3}, {0}, 2, true, "all", true},
    {"box3d_v002", {3, 2, 2}, {0, 2}, 1, true, "all", true},
    {"box3d_v003", {2, 2, 3}, {}, 1, false, "rotations", false},
    {"box3d_v004", {3, 3, 2}, {1}, 3, true, "all", true},
    {"box2d_v004", {5, 2}, {0, 1}, 1, true, "none", false},
};

/// The sign of the element's Jacobian at corner 0 (lexicographic corners: 1, 2, 4 are its
/// neighbours along r, s, t).
int handedness(const ElementBlock& b, std::int64_t e) {
  const auto o = point(b, e, 0), r = point(b, e, 1), s = point(b, e, 2);
  const std::array<double, 3> u{r[0] - o[0], r[1] - o[1], r[2] - o[2]}, v{s[0] - o[0], s[1] - o[1], s[2] - o[2]};
  const std::array<double, 3> n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  if (b.dim == 2) return n[2] > 0 ? 1 : -1;
  const auto t = point(b, e, 4);
  return n[0] * (t[0] - o[0]) + n[1] * (t[1] - o[1]) + n[2] * (t[2] - o[2]) > 0 ? 1 : -1;
}

/// Checks a box read whole (one rank) by geometry alone: each element (its group is its
/// lexicographic grid index) is its grid cell with corners in lexicographic order of some
/// orientation; the BC records are the boundary faces, P across periodic axes.
void check_box(const Box& box, const ElementBlock& b) {
  const int dim = static_cast<int>(box.n.size()), nv = dim == 3 ? 8 : 4;
  std::int64_t elements = 1;
  for (int k : box.n) elements *= k;
  ASSERT_EQ(b.dim, dim);
  ASSERT_EQ(b.elements, elements);
  ASSERT_EQ(b.count, elements);
  EXPECT_EQ(b.fields, box.fields);
  EXPECT_EQ(b.vertices.empty(), !box.vertex_file);
  // Grid coordinates of every corner (integers).
  std::vector<std::array<int, 3>> q(static_cast<std::size_t>(elements * nv));
  for (std::int64_t e = 0; e < elements; ++e) {
    std::int64_t g = b.groups[e];
    std::array<int, 3> idx{0, 0, 0};
    for (int a = 0; a < dim; ++a) {
      idx[a] = static_cast<int>(g % box.n[a]);
      g /= box.n[a];
    }
    int seen = 0;
    for (int c = 0; c < nv; ++c) {
      const auto p = point(b, e, c);
      EXPECT_EQ(p[2], dim == 2 ? 0.0 : p[2]);
      int bits = 0;
      for (int a = 0; a < dim; ++a) {
        const double x = p[a] * box.n[a];
        q[e * nv + c][a] = static_cast<int>(std::lround(x));
        EXPECT_NEAR(x, q[e * nv + c][a], 1e-6);
        const int d = q[e * nv + c][a] - idx[a];
        EXPECT_TRUE(d == 0 || d == 1) << box.name << " element " << e + 1 << " corner " << c;
        bits |= (d & 1) << a;
      }
      seen |= 1 << bits;
      if (box.vertex_file) {
        std::int64_t id = 1, stride = 1;
        for (int a = 0; a < dim; ++a) {
          id += q[e * nv + c][a] * stride;
          stride *= box.n[a] + 1;
        }
        EXPECT_EQ(b.vertices[e * nv + c], id) << box.name << " element " << e + 1 << " corner " << c;
      }
    }
    EXPECT_EQ(seen, (1 << nv) - 1) << box.name << " element " << e + 1 << ": not its grid cell";
    // Lexicographic: corners c and c ^ (1 << k) differ along exactly one axis.
    for (int c = 0; c < nv; ++c)
      for (int k = 0; k < dim; ++k) {
        int differ = 0;
        for (int a = 0; a < dim; ++a) differ += q[e * nv + c][a] != q[e * nv + (c ^ (1 << k))][a];
        EXPECT_EQ(differ, 1) << box.name << " element " << e + 1 << " corners " << c << ", " << (c ^ (1 << k));
      }
  }
  // Rotations keep every element right-handed; reflections make some left-handed; the
  // shuffle moves elements away from grid order (the group is the grid index).
  std::int64_t left = 0, moved = 0;
  for (std::int64_t e = 0; e < elements; ++e) {
    left += handedness(b, e) < 0;
    moved += b.groups[e] != e;
  }
  if (box.reorient == "all")
    EXPECT_GT(left, 0) << box.name;
  else
    EXPECT_EQ(left, 0) << box.name;
  EXPECT_EQ(moved > 0, box.shuffle) << box.name;
  std::int64_t boundary_faces = 0;
  for (int a = 0; a < dim; ++a) boundary_faces += 2 * elements / box.n[a];
  for (int field = 0; field < box.fields; ++field) {
    std::set<std::pair<std::int64_t, int>> seen;
    for (const FaceRecord& r : b.faces) {
      if (r.field != field) continue;
      EXPECT_TRUE(seen.insert({r.element, r.face}).second) << box.name << ": two records of one face";
      const auto fc = face_corners(dim, r.face);
      int axis = -1, side = -1;
      for (int a = 0; a < dim; ++a) {
        const int v = q[r.element * nv + fc[0]][a];
        bool flat = true;
        for (int c : fc) flat = flat && q[r.element * nv + c][a] == v;
        if (flat && (v == 0 || v == box.n[a])) axis = a, side = v == 0 ? 0 : 1;
      }
      ASSERT_GE(axis, 0) << box.name << " element " << r.element + 1 << " face " << r.face << ": not on the boundary";
      const bool periodic = std::count(box.periodic.begin(), box.periodic.end(), axis) > 0;
      if (!periodic) {
        EXPECT_EQ(kind(r), "W");
        EXPECT_EQ(r.tag, 1 + 2 * axis + side);
        EXPECT_EQ(r.other_element, -1);
        continue;
      }
      EXPECT_EQ(kind(r), "P");
      EXPECT_EQ(r.tag, 0);
      ASSERT_GE(r.other_element, 0);
      ASSERT_LT(r.other_element, elements);
      ASSERT_GE(r.other_face, 0);
      std::set<std::array<int, 3>> mine, theirs;
      for (int c : fc) {
        auto p = q[r.element * nv + c];
        p[axis] = side == 0 ? box.n[axis] : 0;
        mine.insert(p);
      }
      for (int c : face_corners(dim, r.other_face)) theirs.insert(q[r.other_element * nv + c]);
      EXPECT_EQ(mine, theirs) << box.name << " element " << r.element + 1 << " face " << r.face;
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), boundary_faces) << box.name << " field " << field;
  }
}

TEST(Re2Boxes, WriterOutputIsTheBoxByGeometry) {
  for (const Box& box : boxes) {
    SCOPED_TRACE(box.name);
    const std::string path = files + "/" + box.name + ".re2";
    const ElementBlock whole = read_re2(path, MPI_COMM_SELF);
    check_box(box, whole);
    expect_block_of(read_re2(path, MPI_COMM_WORLD), whole, box.name);
  }
}

TEST(Re2Boxes, VertexFileIsFoundBesideOrGivenOrIgnored) {
  using gsr::io::import::vertex_file_for;
  EXPECT_EQ(vertex_file_for(files + "/box2d_v001.re2", {}), files + "/box2d_v001.ma2");
  EXPECT_EQ(vertex_file_for(files + "/box3d_v002.re2", {}), files + "/box3d_v002.co2");
  EXPECT_EQ(vertex_file_for(files + "/box3d_v003.re2", {}), "");
  Re2Options ignore;
  ignore.ignore_vertex_file = true;
  EXPECT_EQ(vertex_file_for(files + "/box2d_v001.re2", ignore), "");
  EXPECT_TRUE(read_re2(files + "/box2d_v001.re2", MPI_COMM_WORLD, ignore).vertices.empty());
  Re2Options given;
  given.vertex_file = files + "/box2d_v001.ma2";
  EXPECT_EQ(vertex_file_for(files + "/box3d_v003.re2", given), given.vertex_file);
}

// ---- records that name their own edge or face ---------------------------------------------------

TEST(Re2OneElement, CurvesAndFacesLandOnOurEdgesAndFaces) {
  for (const int dim : {2, 3}) {
    SCOPED_TRACE(dim);
    const ElementBlock b = read_re2(files + "/one" + std::to_string(dim) + "d.re2", MPI_COMM_SELF);
    ASSERT_EQ(b.elements, 1);
    EXPECT_EQ(b.groups[0], 3);
    const int edges = dim == 3 ? 12 : 4, faces = 2 * dim;
    // 'C': params = (prenek edge number k as radius, prenek's start corner). Our edge runs
    // low to high: the start is our low corner and the radius k, or our high one and -k.
    std::set<int> arc_edges, radii;
    for (const Curve& c : b.curves) {
      if (c.type != 'C') continue;
      ASSERT_GE(c.edge, 0);
      ASSERT_LT(c.edge, edges);
      arc_edges.insert(c.edge);
      const auto [lo, hi] = edge_corners(dim, c.edge);
      const std::array<double, 3> start{c.params[1], c.params[2], c.params[3]};
      if (near(start, point(b, 0, lo))) {
        EXPECT_GT(c.params[0], 0) << "edge " << c.edge;
      } else {
        EXPECT_TRUE(near(start, point(b, 0, hi))) << "edge " << c.edge << ": prenek's start is neither corner";
        EXPECT_LT(c.params[0], 0) << "edge " << c.edge;
      }
      radii.insert(static_cast<int>(std::fabs(c.params[0])));
    }
    EXPECT_EQ(static_cast<int>(arc_edges.size()), edges);
    EXPECT_EQ(static_cast<int>(radii.size()), edges);
    // 's' (3-D) and W records: params = centroid of the prenek face's corners.
    std::set<int> sphere_faces, wall_faces;
    auto centroid = [&](int f) {
      std::array<double, 3> m{0, 0, 0};
      const auto fc = face_corners(dim, f);
      for (int c : fc)
        for (int a = 0; a < 3; ++a) m[a] += point(b, 0, c)[a] / static_cast<double>(fc.size());
      return m;
    };
    for (const Curve& c : b.curves) {
      if (c.type != 's') continue;
      ASSERT_GE(c.edge, 0);
      ASSERT_LT(c.edge, faces);
      sphere_faces.insert(c.edge);
      EXPECT_TRUE(near(centroid(c.edge), {c.params[0], c.params[1], c.params[2]}, 1e-12)) << "face " << c.edge;
    }
    for (const FaceRecord& r : b.faces) {
      ASSERT_GE(r.face, 0);
      ASSERT_LT(r.face, faces);
      wall_faces.insert(r.face);
      EXPECT_EQ(kind(r), "W");
      EXPECT_EQ(r.other_element, -1);
      const double tol = dim == 2 ? 1e-6 : 1e-12;  // the 2-D file is #v001: float32
      EXPECT_TRUE(near(centroid(r.face), {r.params[0], r.params[1], r.params[2]}, tol)) << "face " << r.face;
    }
    EXPECT_EQ(static_cast<int>(sphere_faces.size()), dim == 3 ? faces : 0);
    EXPECT_EQ(static_cast<int>(wall_faces.size()), faces);
  }
}

TEST(Re2OneElement, RanksWithoutElementsGetNone) {
  const ElementBlock whole = read_re2(files + "/one3d.re2", MPI_COMM_SELF);
  const ElementBlock b = read_re2(files + "/one3d.re2", MPI_COMM_WORLD);
  expect_block_of(b, whole, "one3d");
  if (world_rank() > 0) {
    EXPECT_TRUE(b.faces.empty());
    EXPECT_TRUE(b.curves.empty());
  }
}

TEST(Re2Records, KindsTagsAndConnections) {
  const ElementBlock b = read_re2(files + "/records.re2", MPI_COMM_SELF);
  ASSERT_EQ(b.faces.size(), 7u);
  const auto& f = b.faces;
  // In file order; faces: prenek 1, 2, 3, 4 are our 2, 1, 3, 0.
  EXPECT_EQ(kind(f[0]), "E");
  EXPECT_EQ(f[0].element, 0);
  EXPECT_EQ(f[0].face, 1);
  EXPECT_EQ(f[0].other_element, 1);
  EXPECT_EQ(f[0].other_face, 0);
  EXPECT_EQ(kind(f[1]), "E");
  EXPECT_EQ(f[1].other_element, -1);
  EXPECT_EQ(f[1].other_face, -1);
  EXPECT_EQ(kind(f[2]), "p");
  EXPECT_EQ(f[2].face, 2);
  EXPECT_EQ(f[2].other_element, -1);
  EXPECT_EQ(kind(f[3]), "W");
  EXPECT_EQ(f[3].tag, 0);
  EXPECT_EQ(f[3].params[4], 3.5);
  EXPECT_EQ(f[4].tag, 0);
  EXPECT_EQ(f[4].params[4], -2.0);
  EXPECT_EQ(kind(f[5]), "MSH");
  EXPECT_EQ(f[5].face, 3);
  EXPECT_EQ(f[5].tag, 12);
  EXPECT_EQ(kind(f[6]), "SYM");
  EXPECT_EQ(f[6].face, 0);
  for (const FaceRecord& r : f) EXPECT_EQ(r.field, 0);
  ASSERT_EQ(b.curves.size(), 1u);
  EXPECT_EQ(b.curves[0].element, 3);
  EXPECT_EQ(b.curves[0].edge, 1);  // 2-D prenek edge 3 runs along r at s = 1
  EXPECT_EQ(b.curves[0].type, 'm');
  EXPECT_EQ(b.curves[0].params[0], 0.5);  // not an arc: as read
  // v004 headers with a BC-field count of 0 (not given: sections until the end) and -1 (|n|).
  for (const char* name : {"v004_zero_fields.re2", "v004_negative_fields.re2"}) {
    const ElementBlock v = read_re2(files + "/" + name, MPI_COMM_WORLD);
    EXPECT_EQ(v.fields, 1) << name;
    EXPECT_EQ(v.dim, 3) << name;
  }
}

TEST(Re2Million, V001PeriodicElementIsInt32Bits) {
  const ElementBlock b = read_re2(files + "/million_v001.re2", MPI_COMM_WORLD);
  EXPECT_EQ(b.elements, 1000000);
  EXPECT_EQ(sum(static_cast<std::int64_t>(b.faces.size())), 3);
  for (const FaceRecord& r : b.faces) {
    if (r.element == 0) {
      EXPECT_EQ(kind(r), "P");
      EXPECT_EQ(r.face, 0);  // prenek 4
      EXPECT_EQ(r.other_element, 999999);
      EXPECT_EQ(r.other_face, 1);  // prenek 2
      EXPECT_EQ(r.params[0], 1000000.0);
    } else if (r.element == 999999) {
      EXPECT_EQ(r.other_element, 0);
      EXPECT_EQ(r.other_face, 0);
    } else {
      EXPECT_EQ(r.element, 999998);
      EXPECT_EQ(kind(r), "W");
      EXPECT_EQ(r.params[0], 1.5);  // not P: a float
      EXPECT_EQ(r.tag, 7);
    }
  }
  if (b.first + b.count == 1000000) {
    const auto p = point(b, 999999, 3);
    EXPECT_EQ(p[0], 1000000.0);
    EXPECT_EQ(p[1], 1.0);
  }
}

// ---- errors -------------------------------------------------------------------------------------

struct BadFile {
  std::string id;
  std::string file;   // in the test files' folder
  std::string words;  // further words the message must hold (the element, the field)
  std::string names;  // the file the message names ("" : file)
};

const std::vector<BadFile> bad_files = {
    {"E-IMPORT-RE2-OPEN", "no_such_file.re2", "cannot be opened", ""},
    {"E-IMPORT-RE2-HEADER", "bad_short.re2", "60 bytes", ""},
    {"E-IMPORT-RE2-HEADER", "bad_endian.re2", "byte 80", ""},
    {"E-IMPORT-RE2-HEADER", "bad_header_text.re2", "'      abc'", ""},
    {"E-IMPORT-RE2-HEADER", "bad_not_re2.re2", "version", ""},
    {"E-IMPORT-RE2-VERSION", "bad_version.re2", "'#v005'", ""},
    {"E-IMPORT-RE2-DIM", "bad_dim.re2", "dimension 4", ""},
    {"E-IMPORT-RE2-ELEMENTS", "bad_nelgv.re2", "of which 5 fluid", ""},
    {"E-IMPORT-RE2-ELEMENTS", "bad_nelgt.re2", "gives 0 elements", ""},
    {"E-IMPORT-RE2-OVERFLOW", "bad_overflow.re2", "40000000000000", ""},
    {"E-IMPORT-RE2-OVERFLOW", "bad_overflow_int64.re2", "99999999999999999999", ""},
    {"E-IMPORT-RE2-TRUNCATED", "bad_truncated.re2", "BC section 1", ""},
    {"E-IMPORT-RE2-TRUNCATED", "bad_trailing.re2", "3 bytes", ""},
    {"E-IMPORT-RE2-TRUNCATED", "bad_elements_cut.re2", "element section", ""},
    {"E-IMPORT-RE2-TRUNCATED", "bad_v004_fields.re2", "BC section 2", ""},
    {"E-IMPORT-RE2-TRUNCATED", "bad_curve_count.re2", "curve section count", ""},
    {"E-IMPORT-RE2-RECORD", "bad_curve_element.re2", "element 5 is not in 1..4", ""},
    {"E-IMPORT-RE2-RECORD", "bad_curve_element_v001.re2", "element 6 is not in 1..4", ""},
    {"E-IMPORT-RE2-RECORD", "bad_curve_edge.re2", "element 2: edge 5 is not in 1..4", ""},
    {"E-IMPORT-RE2-RECORD", "bad_bc_face.re2", "element 3: face 7 is not in 1..4", ""},
    {"E-IMPORT-RE2-RECORD", "bad_bc_element.re2", "element 0 is not in 1..4", ""},
    {"E-IMPORT-RE2-RECORD", "bad_bc_fraction.re2", "element 2.5 is not in 1..4", ""},
    {"E-IMPORT-RE2-PERIODIC", "bad_periodic_element.re2", "element 1: face 4: 'P' connection to element 9", ""},
    {"E-IMPORT-RE2-PERIODIC", "bad_periodic_face.re2", "face 9 is not in 1..4", ""},
    {"E-IMPORT-RE2-VERTEX-FILE", "bad_ma2_count.re2", "5 elements", "bad_ma2_count.ma2"},
    {"E-IMPORT-RE2-VERTEX-FILE", "bad_co2_nv.re2", "8 vertices per element", "bad_co2_nv.co2"},
    {"E-IMPORT-RE2-VERTEX-FILE", "bad_ma2_cut.re2", "bytes", "bad_ma2_cut.ma2"},
    {"E-IMPORT-RE2-VERTEX-FILE", "bad_ma2_endian.re2", "byte 132", "bad_ma2_endian.ma2"},
    {"E-IMPORT-RE2-VERTEX-FILE", "bad_co2_element.re2", "element 3 names element 7", "bad_co2_element.co2"},
    {"E-IMPORT-RE2-VERTEX-ID", "bad_ma2_id.re2", "element 4: vertex id 0 of corner 1", "bad_ma2_id.ma2"},
};

TEST(Re2Errors, EveryBadFileFailsOnEveryRankNamingFileAndElement) {
  for (const BadFile& bad : bad_files) {
    const std::string path = files + "/" + bad.file;
    const std::string message = gsr_errors::expect_entry(
        bad.id, [&] { (void)read_re2(path, MPI_COMM_WORLD); }, bad.file);
    const std::string named = "file '" + files + "/" + (bad.names.empty() ? bad.file : bad.names) + "'";
    EXPECT_NE(message.find(named), std::string::npos) << bad.file << ": \"" << message << "\"";
    EXPECT_NE(message.find(bad.words), std::string::npos) << bad.file << ": \"" << message << "\"";
    if (!bad.names.empty()) EXPECT_NE(message.find(bad.file), std::string::npos) << message;  // and the mesh
  }
  // A vertex file given that does not exist.
  Re2Options missing;
  missing.vertex_file = files + "/no_such_file.ma2";
  const std::string message = gsr_errors::expect_entry(
      "E-IMPORT-RE2-OPEN", [&] { (void)read_re2(files + "/box3d_v003.re2", MPI_COMM_WORLD, missing); }, "vertex file");
  EXPECT_NE(message.find("no_such_file.ma2"), std::string::npos) << message;
  // A directory; a vertex file that is neither .ma2 nor .co2.
  const std::string folder = gsr_errors::expect_entry(
      "E-IMPORT-RE2-OPEN", [&] { (void)read_re2(files, MPI_COMM_WORLD); }, "directory");
  EXPECT_NE(folder.find("is a directory"), std::string::npos) << folder;
  Re2Options text;
  text.vertex_file = files + "/one2d.re2";
  const std::string other = gsr_errors::expect_entry(
      "E-IMPORT-RE2-VERTEX-FILE", [&] { (void)read_re2(files + "/box3d_v003.re2", MPI_COMM_WORLD, text); },
      "vertex file named .re2");
  EXPECT_NE(other.find("neither in .co2 nor in .ma2"), std::string::npos) << other;
}

}  // namespace
