// numbering_test.cpp — the generator's numbering against an independent count (serial):
// multiplicities 1/2/4 in 2-D and 1/2/4/8 in 3-D, periodic faces without singletons, the
// partition's balance and connectivity, and O(slab) writer memory. (Its GLL points are
// io::import::gll_points, tested in tests/import/geometry_test.cpp.)
#include "scratch_dir.hpp"
#include "tools/box.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cmath>
#include <map>
#include <queue>
#include <set>

namespace {

using gsr::tools::Box;
using gsr::tools::BoxSpec;

/// id -> number of entries holding it, over the whole mesh.
std::map<std::int64_t, int> count_ids(const BoxSpec& spec) {
  const Box box(spec);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(spec.nodes_per_element()));
  std::map<std::int64_t, int> count;
  for (std::int64_t e = 0; e < spec.element_count(); ++e) {
    box.element_ids(e, ids);
    for (const std::int64_t id : ids) ++count[id];
  }
  return count;
}

/// Multiplicity -> number of distinct ids with it.
std::map<int, std::int64_t> histogram(const std::map<std::int64_t, int>& count) {
  std::map<int, std::int64_t> h;
  for (const auto& [id, c] : count) ++h[c];
  return h;
}

TEST(BoxNumbering, TwoDimensionsHaveMultiplicities1_2_4) {
  const BoxSpec spec{.dim = 2, .elements = {4, 3, 1}, .order = 3};
  const auto count = count_ids(spec);
  const auto h = histogram(count);
  // Counted on the element grid: corners inside the box are shared by 4 elements; the
  // N-1 nodes inside each inner element edge, and the element corners on the box's sides
  // (not its corners), by 2; everything else belongs to one element.
  const std::int64_t interior_corners = (4 - 1) * (3 - 1);
  const std::int64_t interior_edges = ((4 - 1) * 3 + (3 - 1) * 4) * (3 - 1);  // per edge N-1 nodes
  const std::int64_t boundary_corner_edges = 2 * (4 - 1) + 2 * (3 - 1);       // shared by 2 on the outside
  EXPECT_EQ(h.at(4), interior_corners);
  EXPECT_EQ(h.at(2), interior_edges + boundary_corner_edges);
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(static_cast<std::int64_t>(count.size()), spec.node_count());
  EXPECT_EQ(count.begin()->first, 1);
  EXPECT_EQ(count.rbegin()->first, spec.node_count());  // compact 1..max
}

TEST(BoxNumbering, ThreeDimensionsHaveMultiplicities1_2_4_8) {
  const BoxSpec spec{.dim = 3, .elements = {3, 2, 2}, .order = 2};
  const auto h = histogram(count_ids(spec));
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(h.at(8), (3 - 1) * (2 - 1) * (2 - 1));  // inner element corners
  EXPECT_TRUE(h.count(1) && h.count(2) && h.count(4));
  std::int64_t entries = 0, distinct = 0;
  for (const auto& [m, n] : h) entries += m * n, distinct += n;
  EXPECT_EQ(entries, spec.element_count() * spec.nodes_per_element());
  EXPECT_EQ(distinct, spec.node_count());
}

TEST(BoxNumbering, PeriodicFacesHaveNoSingletons) {
  const BoxSpec spec{.dim = 3, .elements = {2, 2, 3}, .order = 2, .periodic = {false, false, true}};
  const Box box(spec);
  const auto count = count_ids(spec);
  // Every node on the z = 0 and z = NZ faces is shared, as if the box closed on itself.
  std::vector<std::int64_t> ids(27);
  std::vector<double> xyz(81);
  for (std::int64_t e = 0; e < spec.element_count(); ++e) {
    box.element_ids(e, ids);
    box.element_coordinates(e, xyz);
    for (int a = 0; a < 27; ++a) {
      const double z = xyz[static_cast<std::size_t>(a) * 3 + 2];
      if (z == 0.0 || z == 3.0) {
        EXPECT_GE(count.at(ids[static_cast<std::size_t>(a)]), 2) << "element " << e << " node " << a;
      }
    }
  }
  // Fully periodic: no id anywhere on an element face is a singleton; 2-D and 3-D.
  for (const int dim : {2, 3}) {
    const BoxSpec closed{
        .dim = dim, .elements = {2, 3, dim == 3 ? 2 : 1}, .order = 3, .periodic = {true, true, dim == 3}};
    const auto h = histogram(count_ids(closed));
    const std::int64_t interior_nodes = closed.element_count() * static_cast<std::int64_t>(std::pow(2, dim));
    EXPECT_EQ(h.at(1), interior_nodes) << dim << "-D";  // (N-1)^dim = 2^dim interior nodes per element
    EXPECT_EQ(h.rbegin()->first, dim == 2 ? 4 : 8);
  }
}

TEST(BoxNumbering, DeformationKeepsSharedNodesAndTheBox) {
  const BoxSpec spec{.dim = 2, .elements = {3, 3, 1}, .order = 4, .periodic = {true, false, false}, .deform = true};
  const Box box(spec);
  std::map<std::int64_t, std::pair<double, double>> first_seen;
  std::vector<std::int64_t> ids(25);
  std::vector<double> xy(50);
  bool moved = false;
  for (std::int64_t e = 0; e < spec.element_count(); ++e) {
    box.element_ids(e, ids);
    box.element_coordinates(e, xy);
    for (std::size_t a = 0; a < 25; ++a) {
      const double x = xy[2 * a], y = xy[2 * a + 1];
      EXPECT_GE(x, 0.0);
      EXPECT_LE(x, 3.0);
      EXPECT_GE(y, 0.0);
      EXPECT_LE(y, 3.0);
      if (a == 12 && std::abs(x - (e % 3 + 0.5)) > 1e-3) moved = true;  // element centres move
      const auto [it, fresh] = first_seen.emplace(ids[a], std::make_pair(x, y));
      if (!fresh) {
        const double dx = std::abs(it->second.first - x);
        EXPECT_TRUE(dx == 0.0 || dx == 3.0) << "id " << ids[a];  // the same point, or its periodic image
        EXPECT_EQ(it->second.second, y) << "id " << ids[a];
      }
    }
  }
  EXPECT_TRUE(moved);
}

TEST(BoxPartition, BalancedAndConnected) {
  const BoxSpec spec{.dim = 3, .elements = {5, 4, 3}, .order = 1};
  for (const int ranks : {1, 2, 3, 4, 7, 60}) {
    const auto owner = gsr::tools::box_partition(spec, ranks);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks), 0);
    for (const auto r : owner) ++sizes[static_cast<std::size_t>(r)];
    const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
    EXPECT_LE(*largest - *smallest, 1) << ranks << " ranks";
    EXPECT_GT(*smallest, 0) << ranks << " ranks";
    // Each piece is face-connected: a flood fill from one element reaches all of it.
    for (int r = 0; r < ranks; ++r) {
      std::set<std::int64_t> piece;
      for (std::size_t e = 0; e < owner.size(); ++e)
        if (owner[e] == r) piece.insert(static_cast<std::int64_t>(e));
      std::set<std::int64_t> reached{*piece.begin()};
      std::queue<std::int64_t> frontier;
      frontier.push(*piece.begin());
      while (!frontier.empty()) {
        const std::int64_t e = frontier.front();
        frontier.pop();
        const std::int64_t x = e % 5, y = e / 5 % 4, z = e / 20;
        const std::int64_t neighbours[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                                               {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
        for (const auto& n : neighbours) {
          if (n[0] < 0 || n[0] >= 5 || n[1] < 0 || n[1] >= 4 || n[2] < 0 || n[2] >= 3) continue;
          const std::int64_t f = n[0] + 5 * (n[1] + 4 * n[2]);
          if (piece.count(f) && reached.insert(f).second) frontier.push(f);
        }
      }
      EXPECT_EQ(reached.size(), piece.size()) << "piece " << r << " of " << ranks;
    }
  }
}

TEST(BoxSpecValidation, RejectsImpossibleBoxes) {
  // Periodic in x with one element in x: the element would meet itself.
  BoxSpec spec{.dim = 2, .elements = {1, 2, 1}, .order = 2, .periodic = {true, false, false}};
  EXPECT_THROW(spec.validate(), gsr::Error);
  spec.periodic = {};
  spec.partition_ranks = 3;  // more ranks than elements
  EXPECT_THROW(spec.validate(), gsr::Error);
  spec.partition_ranks = 0;
  spec.elements = {1, 2, 2};  // a 2-D box with 2 layers in z
  EXPECT_THROW(spec.validate(), gsr::Error);
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(BoxWriter, MemoryStaysAtOneSlab) {
  // 16384 elements of order 7 in 3-D: 64 MiB of ids, written in 1 MiB slabs. The peak
  // resident size may grow by a few MiB (slab buffers, HDF5's chunk cache and library
  // state), never by the size of the mesh.
  gsr::testing::ScratchDir dir("gsr-writer-memory", MPI_COMM_SELF);
  const BoxSpec spec{.dim = 3, .elements = {32, 32, 16}, .order = 7, .coordinates = false};
  const long before = peak_rss_kib();
  gsr::tools::write_box(spec, dir.file("big.h5"), {}, /*slab_values=*/std::int64_t{1} << 17);
  const long growth_kib = peak_rss_kib() - before;
  const long mesh_kib = static_cast<long>(spec.element_count() * spec.nodes_per_element() * 8 / 1024);
  EXPECT_LT(growth_kib, mesh_kib / 4) << "peak grew by " << growth_kib << " KiB for a " << mesh_kib << " KiB mesh";
  EXPECT_EQ(std::filesystem::file_size(dir.file("big.h5")) / 1024 >= static_cast<std::uintmax_t>(mesh_kib), true);
}

}  // namespace
