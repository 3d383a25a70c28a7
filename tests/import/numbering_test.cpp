// numbering_test.cpp — the GLL numbering of an imported mesh (io/import/numbering.hpp) against
// an independent expectation: every test builds a box from integer lattice coordinates (its
// corner vertex ids and the lattice position of every GLL node), so that two nodes must
// share an id exactly when they sit at one lattice point (modulo the period for a periodic
// box). Elements are randomly re-oriented (a random symmetry of the square or cube applied to
// their corner order), shuffled, and the vertex ids shuffled; the ids must be the same at
// every rank count (compared with the same problem numbered on one rank), compact, and as
// many as V + (N-1) E + (N-1)^2 F + (N-1)^3 K with V, E, F and K counted here by brute force,
// and each face's neighbour the element whose face has the same corner positions.
// The boxes gsr-mesh generates (tools/box.hpp, its own numbering, periodic faces joined) group
// their nodes as this numbering of their corner ids does.
// Errors: E-IMPORT-REPEATED-VERTEX, E-IMPORT-SAME-VERTICES, E-IMPORT-FACE-THREE-ELEMENTS, E-IMPORT-FACE-MISMATCH,
// E-IMPORT-ORDER.
#include "io/import/numbering.hpp"
#include "tools/box.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using gsr::io::import::number_nodes;
using gsr::io::import::Numbering;
using Point = std::array<std::int64_t, 3>;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

/// A whole mesh as every rank builds it: corners (K * 2^dim ids, lexicographic) and, per
/// element and node (a + (N+1) b + (N+1)^2 c), the node's lattice position.
struct Problem {
  int dim = 3, order = 1;
  std::int64_t elements = 0;
  std::vector<std::int64_t> corners;
  std::vector<Point> positions;
  std::vector<Point> origin;             // per element: its lattice cell
  std::vector<std::array<int, 3>> perm;  // per element: the symmetry applied
  std::vector<std::array<int, 3>> flip;
  std::array<std::int64_t, 3> period{0, 0, 0};  // lattice units (nodes), 0: none
};

struct BoxSpec {
  int dim = 3;
  std::array<int, 3> n{2, 2, 2};
  int order = 2;
  bool periodic = false;
  bool scramble = false;  // re-orient and shuffle the elements, shuffle the vertex ids
  unsigned seed = 1;
};

Problem make_box(const BoxSpec& s) {
  Problem p;
  p.dim = s.dim;
  p.order = s.order;
  const int N = s.order, nc = s.dim == 3 ? 8 : 4;
  const std::array<int, 3> n{s.n[0], s.n[1], s.dim == 3 ? s.n[2] : 1};
  std::mt19937_64 rng(s.seed);
  // Lattice vertices (periodic: indices modulo n) and their ids, shuffled or not.
  const std::array<int, 3> nv{n[0] + 1, n[1] + 1, s.dim == 3 ? n[2] + 1 : 1};
  const std::int64_t vertex_count = std::int64_t{nv[0]} * nv[1] * nv[2];
  std::vector<std::int64_t> vid(static_cast<std::size_t>(vertex_count));
  std::iota(vid.begin(), vid.end(), 1);
  if (s.scramble) {
    std::shuffle(vid.begin(), vid.end(), rng);
    for (auto& v : vid) v = v * 7919 + 1000003;  // arbitrary, not compact
  }
  auto vertex_id = [&](Point cell) {
    for (int k = 0; k < s.dim; ++k) {
      if (s.periodic) cell[k] %= n[k];
    }
    return vid[static_cast<std::size_t>(cell[0] + nv[0] * (cell[1] + std::int64_t{nv[1]} * cell[2]))];
  };
  std::vector<Point> cells;
  for (int z = 0; z < n[2]; ++z) {
    for (int y = 0; y < n[1]; ++y) {
      for (int x = 0; x < n[0]; ++x) cells.push_back({x, y, z});
    }
  }
  if (s.scramble) std::shuffle(cells.begin(), cells.end(), rng);
  p.elements = static_cast<std::int64_t>(cells.size());
  const std::int64_t np = N + 1, nodes = s.dim == 3 ? np * np * np : np * np;
  for (int k = 0; k < s.dim; ++k) p.period[k] = s.periodic ? std::int64_t{n[k]} * N : 0;
  for (const Point& cell : cells) {
    std::array<int, 3> perm{0, 1, 2}, flip{0, 0, 0};
    if (s.scramble) {
      std::shuffle(perm.begin(), perm.begin() + s.dim, rng);
      for (int k = 0; k < s.dim; ++k) flip[k] = static_cast<int>(rng() & 1);
    }
    // The element's reference position r maps to the lattice point cell * N + T(r), with
    // T(r)_k = r_perm[k] or N - r_perm[k]: a symmetry of the cube.
    auto place = [&](const Point& r) {
      Point x{0, 0, 0};
      for (int k = 0; k < s.dim; ++k) {
        const std::int64_t t = flip[k] ? N - r[perm[k]] : r[perm[k]];
        x[k] = cell[k] * N + t;
      }
      return x;
    };
    for (int c = 0; c < nc; ++c) {
      Point r{(c & 1) * N, ((c >> 1) & 1) * N, ((c >> 2) & 1) * N};
      const Point x = place(r);
      Point v{0, 0, 0};
      for (int k = 0; k < s.dim; ++k) v[k] = x[k] / N;
      p.corners.push_back(vertex_id(v));
    }
    for (std::int64_t i = 0; i < nodes; ++i) {
      Point x = place({i % np, (i / np) % np, i / (np * np)});
      for (int k = 0; k < s.dim; ++k) {
        if (p.period[k]) x[k] %= p.period[k];
      }
      p.positions.push_back(x);
    }
    p.origin.push_back(cell);
    p.perm.push_back(perm);
    p.flip.push_back(flip);
  }
  return p;
}

/// This rank's block of `p`, numbered on `comm`.
Numbering number_block(const Problem& p, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const auto range = gsr::block_range(p.elements, rank, ranks);
  const std::size_t nc = p.dim == 3 ? 8 : 4;
  std::span<const std::int64_t> mine(p.corners.data() + range[0] * nc,
                                     static_cast<std::size_t>(range[1] - range[0]) * nc);
  return number_nodes(mine, p.dim, p.order, range[0], p.elements, "box.test", comm);
}

/// Every rank's ids, in element order (MPI_COMM_WORLD).
std::vector<std::int64_t> gather(const std::vector<std::int64_t>& mine) {
  const int ranks = world_size();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  return all;
}

/// Distinct vertices, edges, faces of the corners, counted by brute force: an edge is a pair
/// of corners whose positions differ in one coordinate, a face the four corners with one
/// coordinate fixed.
std::array<std::int64_t, 3> count_entities(const Problem& p) {
  const int nc = p.dim == 3 ? 8 : 4;
  std::set<std::int64_t> v;
  std::set<std::vector<std::int64_t>> e, f;
  for (std::int64_t k = 0; k < p.elements; ++k) {
    const std::int64_t* c = p.corners.data() + k * nc;
    for (int a = 0; a < nc; ++a) {
      v.insert(c[a]);
      for (int b = a + 1; b < nc; ++b) {
        if (std::popcount(static_cast<unsigned>(a ^ b)) == 1) {
          e.insert({std::min(c[a], c[b]), std::max(c[a], c[b])});
        }
      }
    }
    if (p.dim == 3) {
      for (int axis = 0; axis < 3; ++axis) {
        for (int side = 0; side < 2; ++side) {
          std::vector<std::int64_t> q;
          for (int a = 0; a < 8; ++a) {
            if (((a >> axis) & 1) == side) q.push_back(c[a]);
          }
          std::sort(q.begin(), q.end());
          f.insert(q);
        }
      }
    }
  }
  return {static_cast<std::int64_t>(v.size()), static_cast<std::int64_t>(e.size()),
          static_cast<std::int64_t>(f.size())};
}

/// Checks `ids` (the whole mesh's, element order) against the positions: two nodes share an
/// id exactly when they share a position; ids are 1..total, all used.
void expect_grouping_by_position(const Problem& p, const std::vector<std::int64_t>& ids, std::int64_t total) {
  ASSERT_EQ(ids.size(), p.positions.size());
  std::map<Point, std::int64_t> id_at;
  std::map<std::int64_t, Point> at_id;
  int bad = 0;
  for (std::size_t i = 0; i < ids.size() && bad < 5; ++i) {
    auto [it, fresh] = id_at.emplace(p.positions[i], ids[i]);
    auto [jt, fresh_id] = at_id.emplace(ids[i], p.positions[i]);
    if (it->second != ids[i] || jt->second != p.positions[i]) {
      ++bad;
      ADD_FAILURE() << "node " << i << " (element " << i / (ids.size() / p.elements) << ") id " << ids[i] << " at ("
                    << p.positions[i][0] << "," << p.positions[i][1] << "," << p.positions[i][2]
                    << "): the point has id " << it->second << ", the id is at (" << jt->second[0] << ","
                    << jt->second[1] << "," << jt->second[2] << ")";
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(at_id.size()), total);
  EXPECT_EQ(at_id.begin()->first, 1);
  EXPECT_EQ(at_id.rbegin()->first, total);
}

/// The neighbours of this rank's elements from the node positions: face f of element k (its
/// corners with reference coordinate f / 2 at side f % 2) meets the face of another element
/// whose corners sit at the same lattice points; -1 where no other element has them.
void expect_neighbors_by_position(const Problem& p, const Numbering& got) {
  const int dim = p.dim, nf = 2 * dim, N = p.order;
  const std::int64_t np = N + 1;
  const auto nodes = static_cast<std::int64_t>(p.positions.size()) / p.elements;
  auto face_points = [&](std::int64_t k, int f) {
    std::vector<Point> points;
    for (int c = 0; c < (dim == 3 ? 8 : 4); ++c) {
      if (((c >> (f / 2)) & 1) != f % 2) continue;
      const std::int64_t at = (c & 1) * N + ((c >> 1) & 1) * N * np + ((c >> 2) & 1) * N * np * np;
      points.push_back(p.positions[static_cast<std::size_t>(k * nodes + at)]);
    }
    std::sort(points.begin(), points.end());
    return points;
  };
  std::map<std::vector<Point>, std::vector<std::pair<std::int64_t, int>>> holders;
  for (std::int64_t k = 0; k < p.elements; ++k) {
    for (int f = 0; f < nf; ++f) holders[face_points(k, f)].push_back({k, f});
  }
  const auto range = gsr::block_range(p.elements, world_rank(), world_size());
  ASSERT_EQ(got.neighbor_element.size(), static_cast<std::size_t>((range[1] - range[0]) * nf));
  ASSERT_EQ(got.neighbor_face.size(), got.neighbor_element.size());
  for (std::int64_t k = range[0]; k < range[1]; ++k) {
    for (int f = 0; f < nf; ++f) {
      const auto& h = holders.at(face_points(k, f));
      ASSERT_LE(h.size(), 2u);
      std::pair<std::int64_t, int> want{-1, -1};
      if (h.size() == 2) want = h[0] == std::pair<std::int64_t, int>{k, f} ? h[1] : h[0];
      const auto at = static_cast<std::size_t>((k - range[0]) * nf + f);
      EXPECT_EQ(got.neighbor_element[at], want.first) << "element " << k << " face " << f;
      EXPECT_EQ(got.neighbor_face[at], want.second) << "element " << k << " face " << f;
    }
  }
}

/// Numbers `p` at the world's rank count and on one rank; checks the groupings, the counts
/// and that both give the same ids. Returns this rank's numbering at the world's rank count.
Numbering check_problem(const Problem& p) {
  const Numbering here = number_block(p, MPI_COMM_WORLD);
  const std::vector<std::int64_t> all = gather(here.ids);
  expect_grouping_by_position(p, all, here.total);

  MPI_Comm self = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank(), 0, &self);
  const Numbering alone = number_block(p, self);
  MPI_Comm_free(&self);
  EXPECT_TRUE(alone.ids == all) << "ids differ between " << world_size() << " ranks and one";
  EXPECT_EQ(alone.total, here.total);

  const auto [V, E, F] = count_entities(p);
  EXPECT_EQ(here.vertices, V);
  EXPECT_EQ(here.edges, E);
  EXPECT_EQ(here.faces, p.dim == 3 ? F : 0);
  EXPECT_EQ(here.elements, p.elements);
  const std::int64_t n1 = p.order - 1;
  const std::int64_t expected =
      p.dim == 3 ? V + n1 * E + n1 * n1 * F + n1 * n1 * n1 * p.elements : V + n1 * E + n1 * n1 * p.elements;
  EXPECT_EQ(here.total, expected);
  expect_neighbors_by_position(p, here);
  return here;
}

/// The neighbours of this rank's elements: across each face, the element whose cell is next
/// along that axis (modulo the box when periodic), by its face on the other side; -1 at the
/// box's boundary. Only for boxes whose elements are not re-oriented (element order free).
void expect_box_neighbors(const Problem& p, const BoxSpec& s, const Numbering& got) {
  const auto range = gsr::block_range(p.elements, world_rank(), world_size());
  const int nf = 2 * p.dim;
  std::map<Point, std::int64_t> element_at;
  for (std::int64_t k = 0; k < p.elements; ++k) element_at[p.origin[k]] = k;
  ASSERT_EQ(got.neighbor_element.size(), static_cast<std::size_t>((range[1] - range[0]) * nf));
  for (std::int64_t k = range[0]; k < range[1]; ++k) {
    for (int f = 0; f < nf; ++f) {
      Point cell = p.origin[k];
      const int axis = f / 2;
      cell[axis] += f % 2 ? 1 : -1;
      std::int64_t want = -1;
      if (s.periodic) cell[axis] = (cell[axis] + s.n[axis]) % s.n[axis];
      if (cell[axis] >= 0 && cell[axis] < s.n[axis]) want = element_at.at(cell);
      const auto at = static_cast<std::size_t>((k - range[0]) * nf + f);
      EXPECT_EQ(got.neighbor_element[at], want) << "element " << k << " face " << f;
      EXPECT_EQ(got.neighbor_face[at], want < 0 ? -1 : (f ^ 1)) << "element " << k << " face " << f;
    }
  }
}

TEST(ImportNumbering, StructuredBox3D) {
  for (int order : {1, 2, 5}) {
    SCOPED_TRACE("N = " + std::to_string(order));
    BoxSpec s{3, {4, 3, 3}, order, false, false, 1};
    const Problem p = make_box(s);
    const Numbering got = check_problem(p);
    expect_box_neighbors(p, s, got);
  }
}

TEST(ImportNumbering, StructuredBox2D) {
  for (int order : {1, 2, 5}) {
    SCOPED_TRACE("N = " + std::to_string(order));
    BoxSpec s{2, {5, 4, 1}, order, false, false, 2};
    const Problem p = make_box(s);
    const Numbering got = check_problem(p);
    expect_box_neighbors(p, s, got);
  }
}

TEST(ImportNumbering, ReorientedShuffledBox3D) {
  for (const auto [order, seed] : {std::pair{1, 11u}, {2, 12u}, {5, 13u}, {5, 14u}}) {
    SCOPED_TRACE("N = " + std::to_string(order) + ", seed " + std::to_string(seed));
    check_problem(make_box({3, {3, 3, 4}, order, false, true, seed}));
  }
}

TEST(ImportNumbering, ReorientedShuffledBox2D) {
  for (const auto [order, seed] : {std::pair{1, 21u}, {2, 22u}, {5, 23u}, {5, 24u}}) {
    SCOPED_TRACE("N = " + std::to_string(order) + ", seed " + std::to_string(seed));
    check_problem(make_box({2, {4, 5, 1}, order, false, true, seed}));
  }
}

TEST(ImportNumbering, PeriodicBoxGroupsImages) {
  for (int order : {3}) {
    SCOPED_TRACE("N = " + std::to_string(order));
    BoxSpec s3{3, {3, 4, 3}, order, true, false, 3};
    const Problem p3 = make_box(s3);
    expect_box_neighbors(p3, s3, check_problem(p3));
    check_problem(make_box({3, {3, 3, 3}, order, true, true, 31}));
    BoxSpec s2{2, {3, 4, 1}, order, true, false, 4};
    const Problem p2 = make_box(s2);
    expect_box_neighbors(p2, s2, check_problem(p2));
    check_problem(make_box({2, {4, 3, 1}, order, true, true, 41}));
  }
}

TEST(ImportNumbering, HighOrderAndMoreRanksThanElements) {
  check_problem(make_box({2, {2, 1, 1}, 64, false, true, 5}));
  check_problem(make_box({3, {1, 1, 1}, 12, false, true, 6}));
}

/// gsr-mesh box's own numbering (tools/box.hpp): its corner nodes' ids as vertex ids (periodic
/// images share them), numbered here, must group the nodes as the box's ids do.
void expect_same_grouping_as_box(const gsr::tools::BoxSpec& spec) {
  const gsr::tools::Box box(spec);
  const int dim = spec.dim, N = spec.order, nc = dim == 3 ? 8 : 4;
  const std::int64_t K = spec.element_count(), np = N + 1;
  const auto nodes = static_cast<std::size_t>(spec.nodes_per_element());
  std::vector<std::int64_t> box_ids(static_cast<std::size_t>(K) * nodes);
  for (std::int64_t e = 0; e < K; ++e) {
    box.element_ids(e, std::span<std::int64_t>(box_ids.data() + e * nodes, nodes));
  }
  const auto range = gsr::block_range(K, world_rank(), world_size());
  std::vector<std::int64_t> corners;
  for (std::int64_t e = range[0]; e < range[1]; ++e) {
    for (int c = 0; c < nc; ++c) {
      const std::int64_t at = (c & 1) * N + ((c >> 1) & 1) * N * np + ((c >> 2) & 1) * N * np * np;
      corners.push_back(box_ids[static_cast<std::size_t>(e) * nodes + static_cast<std::size_t>(at)]);
    }
  }
  const Numbering got = number_nodes(corners, dim, N, range[0], K, "box.h5", MPI_COMM_WORLD);
  const std::vector<std::int64_t> all = gather(got.ids);
  ASSERT_EQ(all.size(), box_ids.size());
  std::map<std::int64_t, std::int64_t> ours_of_box, box_of_ours;
  int bad = 0;
  for (std::size_t i = 0; i < all.size() && bad < 5; ++i) {
    const auto a = ours_of_box.emplace(box_ids[i], all[i]).first->second;
    const auto b = box_of_ours.emplace(all[i], box_ids[i]).first->second;
    if (a != all[i] || b != box_ids[i]) {
      ++bad;
      ADD_FAILURE() << "node " << i << ": box id " << box_ids[i] << ", ours " << all[i] << " (box id " << box_ids[i]
                    << " elsewhere ours " << a << ", ours " << all[i] << " elsewhere box id " << b << ")";
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(ours_of_box.size()), spec.node_count());
  EXPECT_EQ(got.total, spec.node_count());
}

TEST(ImportNumbering, SameGroupingAsGsrMeshBox) {
  gsr::tools::BoxSpec s3;
  s3.dim = 3;
  s3.elements = {3, 4, 3};
  s3.order = 3;
  for (const std::array<bool, 3> periodic : {std::array<bool, 3>{false, false, false}, {true, false, true}}) {
    s3.periodic = periodic;
    expect_same_grouping_as_box(s3);
  }
  gsr::tools::BoxSpec s2;
  s2.dim = 2;
  s2.elements = {4, 3, 1};
  s2.order = 4;
  for (const std::array<bool, 3> periodic : {std::array<bool, 3>{false, false, false}, {false, true, false}}) {
    s2.periodic = periodic;
    expect_same_grouping_as_box(s2);
  }
}

/// Expects `call` to throw gsr::Error of `code` on this rank with a message containing every
/// one of `words`.
template <class Call>
void expect_error(Call&& call, gsr::ErrorCode code, std::initializer_list<std::string> words) {
  try {
    call();
    ADD_FAILURE() << "no error";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

// E-IMPORT-REPEATED-VERTEX: a corner vertex id repeated within an element, on every rank.
TEST(ImportNumbering, DegenerateElementIsAnErrorOnEveryRank) {
  for (int dim : {2, 3}) {
    Problem p = make_box({dim, {3, 2, 2}, 2, false, false, 7});
    const int nc = dim == 3 ? 8 : 4;
    p.corners[static_cast<std::size_t>(5 * nc + nc - 1)] = p.corners[static_cast<std::size_t>(5 * nc)];
    expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
                 {"gsr: file 'box.test': element 6: vertex " + std::to_string(p.corners[5 * nc]), "degenerate"});
  }
}

// E-IMPORT-SAME-VERTICES: a periodic direction two elements across (each element's neighbour
// across the period has its very vertices, so distinct edges and faces would be joined), and
// an element given twice.
TEST(ImportNumbering, ElementsWithTheSameVerticesAreAnErrorOnEveryRank) {
  for (int dim : {2, 3}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    const Problem p = make_box({dim, {2, 3, 3}, 2, true, false, 8});  // periodic, 2 across x
    expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
                 {"gsr: file 'box.test': elements 1 and 2 have the same vertices", "at least three"});
    Problem q = make_box({dim, {3, 2, 2}, 2, false, false, 9});
    const int nc = dim == 3 ? 8 : 4;
    // Element 5 (1-based 6) becomes a copy of element 2 (1-based 3), its corners reversed.
    for (int c = 0; c < nc; ++c)
      q.corners[static_cast<std::size_t>(5 * nc + c)] = q.corners[static_cast<std::size_t>(2 * nc + nc - 1 - c)];
    expect_error([&] { number_block(q, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
                 {"elements 3 and 6 have the same vertices", "a duplicated element"});
  }
}

// E-IMPORT-FACE-THREE-ELEMENTS: three hexahedra (quadrilaterals) on one face (edge).
TEST(ImportNumbering, FaceOfThreeElementsIsAnErrorOnEveryRank) {
  Problem p;
  p.dim = 3;
  p.order = 2;
  p.elements = 4;
  // Element 0 is alone; elements 1, 2 and 3 share the face 1 2 3 4 (their r- face).
  p.corners = {101, 102, 103, 104, 105, 106, 107, 108,  //
               1,   11,  2,   12,  3,   13,  4,   14,   //
               21,  1,   22,  2,   23,  3,   24,  4,    //
               1,   31,  2,   32,  3,   33,  4,   34};
  expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
               {"gsr: file 'box.test': element 2: ", "vertices 1 2 3 4", "elements 2, 3 and 4", "at most two"});
  Problem q;
  q.dim = 2;
  q.order = 3;
  q.elements = 3;
  q.corners = {1, 2, 11, 12, 2, 1, 21, 22, 31, 32, 1, 2};  // the edge 1 2, three times
  expect_error([&] { number_block(q, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
               {"gsr: file 'box.test': element 1: ", "vertices 1 2", "elements 1, 2 and 3"});
}

// E-IMPORT-FACE-MISMATCH: two hexahedra with the same four vertices on a face, but not as the
// same quadrilateral (a twisted face), on one rank or on two.
TEST(ImportNumbering, TwistedFaceIsAnErrorOnEveryRank) {
  Problem p;
  p.dim = 3;
  p.order = 3;
  p.elements = 2;
  // Element 1's r+ face has (0,0) 2, (1,0) 4, (0,1) 6, (1,1) 8 (2 across from 8); element 2's r-
  // face has 2, 4, 8, 6 (2 across from 6).
  p.corners = {1, 2,  3, 4,  5, 6,  7, 8,  //
               2, 11, 4, 12, 8, 13, 6, 14};
  expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::io,
               {"gsr: file 'box.test': element 1: the face with vertices 2 4 6 8 is a face of elements 1 and 2",
                "in another order", "across from 8 in element 1, from 6 in element 2", "do not match"});
  // Element 2's r- face as 4, 8, 2, 6: the same quadrilateral turned (2 across from 8), fine.
  p.corners = {1, 2,  3, 4,  5, 6,  7, 8,  //
               4, 11, 8, 12, 2, 13, 6, 14};
  expect_neighbors_by_position(make_box({3, {2, 1, 1}, 1, false, false, 9}), number_block(p, MPI_COMM_WORLD));
}

// E-IMPORT-ORDER: N outside 1..64. Other bad arguments (the caller's mistakes, not the
// file's) are refused too, on every rank.
TEST(ImportNumbering, BadArgumentsAreRefused) {
  for (int order : {0, 65, -1}) {
    Problem p = make_box({3, {2, 1, 1}, 1, false, false, 8});
    p.order = order;
    expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::invalid_argument,
                 {"order " + std::to_string(order), "outside 1..64"});
  }
  Problem p = make_box({3, {2, 2, 1}, 1, false, false, 8});
  p.dim = 4;
  expect_error([&] { number_block(p, MPI_COMM_WORLD); }, gsr::ErrorCode::invalid_argument, {"dimension 4"});
  const std::vector<std::int64_t> corners(world_rank() == 0 ? 7 : 0, 1);  // rank 0: not whole elements
  expect_error([&] { number_nodes(corners, 3, 2, world_rank() == 0 ? 0 : 1, 1, "box.test", MPI_COMM_WORLD); },
               gsr::ErrorCode::invalid_argument, {"7 corner ids are not a whole number of elements"});
  const std::vector<std::int64_t> one(8, 1);  // every rank claims element 0 of 1
  expect_error(
      [&] { number_nodes(std::span(one).first(world_rank() == 0 ? 0 : 8), 3, 2, 0, 1, "box.test", MPI_COMM_WORLD); },
      gsr::ErrorCode::invalid_argument, {"not its block"});
}

}  // namespace
