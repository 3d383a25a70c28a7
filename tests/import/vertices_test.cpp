// import/vertices_test.cpp — match_vertices (io/import/vertices.hpp) on structured boxes the
// test builds itself: elements of an n0 x n1 (x n2) lattice, in block distribution, their
// points taken from integer lattice coordinates through a smooth deformation, each corner copy
// perturbed by less than the tolerance, each element's corners re-oriented at random. The
// expected grouping comes from the lattice (two corners are one vertex exactly when their
// lattice points are one, modulo the periodic axes), and the expected id of a vertex from
// the contract (vertices.hpp): the smallest element * corners + corner + 1 of its corners, or
// the smallest file id of its class. Errors: E-IMPORT-CORNERS-AMBIGUOUS,
// E-IMPORT-PERIODIC-RECIPROCAL, E-IMPORT-PERIODIC-MISMATCH (docs/errors.md).
#include <gsr/error.hpp>
#include <gsr/mesh.hpp>

#include "io/import/vertices.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using gsr::io::import::corners_per_element;
using gsr::io::import::ElementBlock;
using gsr::io::import::FaceRecord;
using gsr::io::import::match_vertices;
using gsr::io::import::Vertices;

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int p = 0;
  MPI_Comm_size(comm, &p);
  return p;
}

struct BoxSpec {
  int dim = 3;
  std::array<int, 3> n{3, 3, 3};
  int geometry = 2;
  bool reorient = true;
  double perturbation = 0.02;  // each point copy moves by up to this in each coordinate
  std::array<bool, 3> periodic{false, false, false};
  bool periodic_records = false;  // P records for the periodic axes
  bool file_ids = false;          // vertices from a "file": a scrambled positive id per lattice point
  bool gmsh_periodic = false;     // $Periodic node pairs for the periodic axes (needs file_ids)
  std::uint64_t seed = 1;
};

/// The whole box, on every rank alike.
struct Box {
  BoxSpec spec;
  std::int64_t elements = 0;
  std::vector<double> points;                  // all elements
  std::vector<std::array<int, 3>> lattice;     // per global corner: its lattice point
  std::vector<std::array<int, 6>> local_face;  // per element: the local face on global face 2D+S
  std::vector<std::int64_t> file_ids;          // per global corner, when spec.file_ids
  std::vector<FaceRecord> faces;               // all P records
  std::vector<std::array<std::int64_t, 2>> periodic_nodes;

  int cpe() const { return corners_per_element(spec.dim); }
  std::array<int, 3> element_index(std::int64_t e) const {
    return {static_cast<int>(e % spec.n[0]), static_cast<int>((e / spec.n[0]) % spec.n[1]),
            static_cast<int>(e / (spec.n[0] * spec.n[1]))};
  }
  std::int64_t element_at(std::array<int, 3> i) const { return i[0] + spec.n[0] * (i[1] + spec.n[1] * i[2]); }
  /// A lattice point's index, its periodic axes wrapped.
  std::int64_t vertex(std::array<int, 3> v) const {
    for (int d = 0; d < 3; ++d) {
      if (spec.periodic[d]) v[d] %= spec.n[d];
    }
    return v[0] + (spec.n[0] + 1) * (v[1] + (spec.n[1] + 1) * std::int64_t{v[2]});
  }
  std::int64_t file_id(std::array<int, 3> v) const {  // unwrapped lattice point: 7919 * index mod a prime, + 1
    const std::int64_t index = v[0] + (spec.n[0] + 1) * (v[1] + (spec.n[1] + 1) * std::int64_t{v[2]});
    return (index * 7919) % 1000003 + 1;
  }
};

std::array<double, 3> deform(double x, double y, double z) {
  return {x + 0.15 * std::sin(0.7 * y + 0.3 * z), y + 0.15 * std::sin(0.5 * x + 0.2 * z),
          z + 0.1 * std::sin(0.4 * x + 0.6 * y)};
}

Box make_box(const BoxSpec& spec) {
  Box box;
  box.spec = spec;
  const int dim = spec.dim, g = spec.geometry, cpe = box.cpe();
  const std::array<int, 3> n{spec.n[0], spec.n[1], dim == 3 ? spec.n[2] : 1};
  box.spec.n = n;
  box.elements = std::int64_t{n[0]} * n[1] * n[2];
  const int per_element = dim == 3 ? g * g * g : g * g;
  std::mt19937_64 random(spec.seed);
  std::uniform_real_distribution<double> jitter(-spec.perturbation, spec.perturbation);
  box.points.resize(static_cast<std::size_t>(box.elements * per_element * 3));
  box.lattice.resize(static_cast<std::size_t>(box.elements * cpe));
  box.local_face.resize(static_cast<std::size_t>(box.elements));
  for (std::int64_t e = 0; e < box.elements; ++e) {
    const std::array<int, 3> ix = box.element_index(e);
    std::array<int, 3> perm{0, 1, 2};
    std::array<bool, 3> flip{false, false, false};
    if (spec.reorient) {
      std::shuffle(perm.begin(), perm.begin() + dim, random);
      for (int d = 0; d < dim; ++d) flip[d] = (random() & 1) != 0;
    }
    // Local point l sits at the global offset o: o[D] = l[perm[D]], flipped if flip[D].
    const auto offset = [&](std::array<int, 3> l, int last) {
      std::array<int, 3> o{0, 0, 0};
      for (int d = 0; d < dim; ++d) o[d] = flip[d] ? last - l[perm[d]] : l[perm[d]];
      return o;
    };
    for (int p = 0; p < per_element; ++p) {
      const std::array<int, 3> l{p % g, (p / g) % g, p / (g * g)};
      const std::array<int, 3> o = offset(l, g - 1);
      std::array<double, 3> X{0, 0, 0};
      for (int d = 0; d < dim; ++d) X[d] = ix[d] + double(o[d]) / (g - 1);
      std::array<double, 3> x = deform(X[0], X[1], X[2]);
      if (dim == 2) x[2] = 0;
      for (int d = 0; d < dim; ++d) x[d] += jitter(random);
      for (int d = 0; d < 3; ++d) box.points[static_cast<std::size_t>((e * per_element + p) * 3 + d)] = x[d];
    }
    for (int c = 0; c < cpe; ++c) {
      const std::array<int, 3> o = offset({c & 1, (c >> 1) & 1, (c >> 2) & 1}, 1);
      std::array<int, 3> v{0, 0, 0};
      for (int d = 0; d < dim; ++d) v[d] = ix[d] + o[d];
      box.lattice[static_cast<std::size_t>(e * cpe + c)] = v;
    }
    for (int D = 0; D < dim; ++D) {
      for (int S = 0; S < 2; ++S) box.local_face[e][2 * D + S] = 2 * perm[D] + (flip[D] ? 1 - S : S);
    }
  }
  if (spec.file_ids) {
    for (const auto& v : box.lattice) box.file_ids.push_back(box.file_id(v));
  }
  for (int D = 0; D < dim; ++D) {
    if (!spec.periodic[D]) continue;
    if (spec.periodic_records) {
      for (std::int64_t e = 0; e < box.elements; ++e) {
        std::array<int, 3> ix = box.element_index(e);
        if (ix[D] != 0 && ix[D] != n[D] - 1) continue;
        for (int S = 0; S < 2; ++S) {
          if (ix[D] != (S == 0 ? 0 : n[D] - 1)) continue;
          std::array<int, 3> jx = ix;
          jx[D] = S == 0 ? n[D] - 1 : 0;
          const std::int64_t other = box.element_at(jx);
          FaceRecord r;
          r.element = e;
          r.face = box.local_face[e][2 * D + S];
          r.kind = {'P', 0, 0, 0};
          r.other_element = other;
          r.other_face = box.local_face[other][2 * D + 1 - S];
          box.faces.push_back(r);
        }
      }
    }
    if (spec.gmsh_periodic) {
      // Every lattice point on the high side of axis D is a slave of its image on the low side.
      std::array<int, 3> v{0, 0, 0};
      for (v[0] = 0; v[0] <= n[0]; ++v[0]) {
        for (v[1] = 0; v[1] <= n[1]; ++v[1]) {
          for (v[2] = 0; v[2] <= (dim == 3 ? n[2] : 0); ++v[2]) {
            if (v[D] != n[D]) continue;
            std::array<int, 3> w = v;
            w[D] = 0;
            box.periodic_nodes.push_back({box.file_id(v), box.file_id(w)});
          }
        }
      }
    }
  }
  return box;
}

/// This rank's block of the box.
ElementBlock block_of(const Box& box, MPI_Comm comm) {
  ElementBlock b;
  b.source = "box.re2";
  b.dim = box.spec.dim;
  b.elements = box.elements;
  b.fluid_elements = box.elements;
  const auto range = gsr::block_range(box.elements, rank_of(comm), size_of(comm));
  b.first = range[0];
  b.count = range[1] - range[0];
  b.geometry = box.spec.geometry;
  const std::size_t per_element =
      static_cast<std::size_t>(b.dim == 3 ? b.geometry * b.geometry * b.geometry : b.geometry * b.geometry);
  b.points.assign(box.points.begin() + static_cast<std::ptrdiff_t>(b.first * per_element * 3),
                  box.points.begin() + static_cast<std::ptrdiff_t>((b.first + b.count) * per_element * 3));
  if (!box.file_ids.empty()) {
    b.vertices.assign(box.file_ids.begin() + b.first * box.cpe(),
                      box.file_ids.begin() + (b.first + b.count) * box.cpe());
  }
  for (const FaceRecord& r : box.faces) {
    if (r.element >= b.first && r.element < b.first + b.count) b.faces.push_back(r);
  }
  b.fields = 1;
  b.periodic_nodes = box.periodic_nodes;
  b.groups.assign(static_cast<std::size_t>(b.count), 0);
  return b;
}

/// The contract's ids for the box: per global corner, the smallest key + 1 (or file id)
/// over the corners of its (wrapped) lattice point.
std::vector<std::int64_t> expected_ids(const Box& box) {
  std::map<std::int64_t, std::int64_t> smallest;
  for (std::size_t i = 0; i < box.lattice.size(); ++i) {
    const std::int64_t v = box.vertex(box.lattice[i]);
    const std::int64_t id = box.file_ids.empty() ? static_cast<std::int64_t>(i) + 1 : box.file_ids[i];
    auto [it, fresh] = smallest.emplace(v, id);
    if (!fresh) it->second = std::min(it->second, id);
  }
  std::vector<std::int64_t> ids;
  for (const auto& v : box.lattice) ids.push_back(smallest.at(box.vertex(v)));
  return ids;
}

void expect_ids(const Box& box, const Vertices& got, MPI_Comm comm) {
  const auto range = gsr::block_range(box.elements, rank_of(comm), size_of(comm));
  const std::vector<std::int64_t> all = expected_ids(box);
  const std::vector<std::int64_t> want(all.begin() + range[0] * box.cpe(), all.begin() + range[1] * box.cpe());
  ASSERT_EQ(got.ids.size(), want.size());
  int wrong = 0;
  for (std::size_t i = 0; i < want.size() && wrong < 5; ++i) {
    if (got.ids[i] != want[i]) {
      ++wrong;
      ADD_FAILURE() << "element " << range[0] + std::int64_t(i) / box.cpe() << " corner " << i % box.cpe() << ": id "
                    << got.ids[i] << ", expected " << want[i];
    }
  }
}

void expect_io_error(const std::function<void()>& call, const std::vector<std::string>& words) {
  try {
    call();
    ADD_FAILURE() << "no error";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::io) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("gsr: file 'box.re2': ", 0), 0u) << message;
    for (const std::string& w : words)
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
  }
}

// ---- coordinates ----------------------------------------------------------------------------

TEST(ImportVertices, CoordinatesGiveTheLatticeGroupings3D) {
  for (int geometry : {2, 3}) {
    BoxSpec spec;
    spec.n = {4, 3, 3};
    spec.geometry = geometry;
    const Box box = make_box(spec);
    const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
    expect_ids(box, v, MPI_COMM_WORLD);
    EXPECT_EQ(v.periodic_face_pairs, 0);
  }
}

TEST(ImportVertices, CoordinatesGiveTheLatticeGroupings2D) {
  for (int geometry : {2, 3}) {
    BoxSpec spec;
    spec.dim = 2;
    spec.n = {5, 4, 1};
    spec.geometry = geometry;
    spec.seed = 7;
    const Box box = make_box(spec);
    const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
    expect_ids(box, v, MPI_COMM_WORLD);
  }
}

TEST(ImportVertices, GradedElementsMatchAtTheirOwnScale) {
  // Element widths 1, 10, 100, 1000 along x and y: the matching distance of a corner pair is
  // its smaller element's, so the small elements' corners match tightly and the large ones'
  // loosely. Each copy moves by up to 0.005 x the smallest width next to its lattice point.
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {4, 4, 1};
  spec.perturbation = 0;
  spec.seed = 29;
  Box box = make_box(spec);
  const double at[] = {0, 1, 11, 111, 1111};  // lattice line i -> coordinate
  std::mt19937_64 random(31);
  std::uniform_real_distribution<double> jitter(-0.005, 0.005);
  for (std::size_t i = 0; i < box.lattice.size(); ++i) {
    const auto& v = box.lattice[i];
    double smallest = 1e9;
    for (int d = 0; d < 2; ++d) {
      if (v[d] > 0) smallest = std::min(smallest, at[v[d]] - at[v[d] - 1]);
      if (v[d] < 4) smallest = std::min(smallest, at[v[d] + 1] - at[v[d]]);
    }
    for (int d = 0; d < 2; ++d) box.points[i * 3 + d] = at[v[d]] + smallest * jitter(random);
  }
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
}

TEST(ImportVertices, IdsDoNotDependOnTheRankCount) {
  // Every rank matches the whole box alone (P = 1) and the ranks its blocks (P = size); the
  // gathered ids must be equal.
  BoxSpec spec;
  spec.n = {3, 4, 3};
  spec.seed = 11;
  const Box box = make_box(spec);
  const Vertices alone = match_vertices(block_of(box, MPI_COMM_SELF), MPI_COMM_SELF);
  const Vertices together = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  const int ranks = size_of(MPI_COMM_WORLD);
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto range = gsr::block_range(box.elements, r, ranks);
    counts[static_cast<std::size_t>(r)] = static_cast<int>((range[1] - range[0]) * box.cpe());
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(range[0] * box.cpe());
  }
  std::vector<std::int64_t> gathered(alone.ids.size());
  MPI_Allgatherv(together.ids.data(), static_cast<int>(together.ids.size()), MPI_INT64_T, gathered.data(),
                 counts.data(), offsets.data(), MPI_INT64_T, MPI_COMM_WORLD);
  EXPECT_EQ(gathered, alone.ids);
  expect_ids(box, together, MPI_COMM_WORLD);
}

// ---- periodicity --------------------------------------------------------------------------

/// A box of flat elements (no deformation, so that translations map its sides; corners only).
Box flat_box(BoxSpec spec) {
  Box box = make_box(spec);
  std::mt19937_64 random(spec.seed + 100);
  std::uniform_real_distribution<double> jitter(-spec.perturbation, spec.perturbation);
  const int cpe = box.cpe();
  for (std::int64_t e = 0; e < box.elements; ++e) {
    for (int c = 0; c < cpe; ++c) {
      const auto& v = box.lattice[static_cast<std::size_t>(e * cpe + c)];
      for (int d = 0; d < spec.dim; ++d) {
        box.points[static_cast<std::size_t>((e * cpe + c) * 3 + d)] = v[d] + jitter(random);
      }
    }
  }
  return box;
}

TEST(ImportVertices, PeriodicRecordsJoinTheImages) {
  BoxSpec spec;
  spec.n = {3, 4, 3};
  spec.periodic = {true, false, true};
  spec.periodic_records = true;
  spec.perturbation = 0.005;
  spec.seed = 3;
  const Box box = flat_box(spec);
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
  EXPECT_EQ(v.periodic_face_pairs, 4 * 3 + 3 * 4);  // x: n1 * n2 face pairs; z: n0 * n1
}

TEST(ImportVertices, PeriodicRecordsIn2D) {
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {3, 5, 1};
  spec.periodic = {true, true, false};
  spec.periodic_records = true;
  spec.perturbation = 0.005;
  spec.seed = 13;
  const Box box = flat_box(spec);
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
  EXPECT_EQ(v.periodic_face_pairs, 5 + 3);
}

TEST(ImportVertices, FileIdsWithPeriodicRecordsGiveTheSameGrouping) {
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {4, 3, 1};
  spec.periodic = {true, false, false};
  spec.periodic_records = true;
  spec.file_ids = true;
  spec.perturbation = 0.005;
  spec.seed = 17;
  const Box box = flat_box(spec);
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
  EXPECT_EQ(v.periodic_face_pairs, 3);
}

TEST(ImportVertices, GmshPeriodicNodesJoinTheImages2D) {
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {3, 4, 1};
  spec.periodic = {true, false, false};
  spec.file_ids = true;
  spec.gmsh_periodic = true;
  spec.seed = 23;
  const Box box = make_box(spec);
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
  EXPECT_EQ(v.periodic_face_pairs, 4);  // x: n1 edge pairs
}

TEST(ImportVertices, GmshPeriodicNodesJoinTheImages) {
  BoxSpec spec;
  spec.n = {3, 3, 4};
  spec.periodic = {false, true, true};
  spec.file_ids = true;
  spec.gmsh_periodic = true;
  spec.seed = 19;
  const Box box = make_box(spec);
  const Vertices v = match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD);
  expect_ids(box, v, MPI_COMM_WORLD);
  EXPECT_EQ(v.periodic_face_pairs, 3 * 4 + 3 * 3);  // y: n0 * n2 face pairs; z: n0 * n1
}

// ---- errors ---------------------------------------------------------------------------------

TEST(ImportVertices, CornersTooCloseToTellApartAreAnError) {
  // E-IMPORT-CORNERS-AMBIGUOUS: the copies of lattice point (2, 2) are spread along x by
  // 0.08 each: neighbours are within 0.1 x the shortest edge (1), the outer two are not.
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {4, 4, 1};
  spec.perturbation = 0;
  spec.reorient = false;
  Box box = flat_box(spec);
  double shift = -0.08;
  for (std::size_t i = 0; i < box.lattice.size(); ++i) {
    if (box.lattice[i] == std::array<int, 3>{2, 2, 0}) {
      box.points[i * 3] += shift;
      shift = std::min(shift + 0.08, 0.08);
    }
  }
  expect_io_error([&] { match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD); },
                  {"corners too close to tell apart", "element "});
}

TEST(ImportVertices, AnEdgeOfLengthZeroIsAnError) {
  // E-IMPORT-CORNERS-AMBIGUOUS: the last element's corner 1 moved onto its corner 0.
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {3, 3, 1};
  spec.reorient = false;
  Box box = flat_box(spec);
  for (int d = 0; d < 3; ++d) box.points[static_cast<std::size_t>((8 * 4 + 1) * 3 + d)] = box.points[(8 * 4) * 3 + d];
  expect_io_error([&] { match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD); },
                  {"element 9: corners 0 and 1 coincide", "corners too close to tell apart"});
}

TEST(ImportVertices, ANonReciprocalPeriodicRecordIsAnError) {
  // E-IMPORT-PERIODIC-RECIPROCAL: a 3 x 3 box periodic in x; the record of element 3's x+
  // face (1-based) now names element 4's x- face, whose record names element 6's x+ face.
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {3, 3, 1};
  spec.periodic = {true, false, false};
  spec.periodic_records = true;
  spec.reorient = false;
  spec.perturbation = 0.005;
  Box box = flat_box(spec);
  for (FaceRecord& r : box.faces) {
    if (r.element == 2) r.other_element = 3;
  }
  expect_io_error([&] { match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD); },
                  {"must be reciprocal", "element "});
  // ... and one naming an element the mesh does not have.
  for (FaceRecord& r : box.faces) {
    if (r.element == 2) r.other_element = 9;
  }
  expect_io_error(
      [&] { match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD); },
      {"element 3 face r+ (Nek5000 face 2): its P record names element 10", "does not have", "must be reciprocal"});
}

TEST(ImportVertices, PeriodicFacesThatDoNotMatchAreAnError) {
  // E-IMPORT-PERIODIC-MISMATCH: the lattice point (3, 1) on the x+ side moves by 0.3 in y
  // (in every element that has it), so the x+ faces at it are no translation of the x- ones.
  BoxSpec spec;
  spec.dim = 2;
  spec.n = {3, 3, 1};
  spec.periodic = {true, false, false};
  spec.periodic_records = true;
  spec.perturbation = 0.005;
  Box box = flat_box(spec);
  for (std::size_t i = 0; i < box.lattice.size(); ++i) {
    if (box.lattice[i] == std::array<int, 3>{3, 1, 0}) box.points[i * 3 + 1] += 0.3;
  }
  expect_io_error([&] { match_vertices(block_of(box, MPI_COMM_WORLD), MPI_COMM_WORLD); },
                  {"do not match", "rotational periodicity in a .re2 is not supported", "element "});
}

}  // namespace
