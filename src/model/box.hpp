// model/box.hpp — boxes of spectral elements as gsr-mesh numbers them (tools/box.hpp: GLL
// node lattice, x fastest, a periodic axis wraps its last layer onto its first), split into
// a grid of rectangular blocks of elements, one per virtual rank. The sharing of such a
// partition is computed per rank from the block grid alone (box_sharing), never node by
// node, so 10^5 ranks of 10^9 entries cost microseconds per rank.
#pragma once

#include "model/sharing.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::model {

struct BoxModel {
  int dim = 3;
  std::array<std::int64_t, 3> elements{1, 1, 1};  // per axis; unused axes stay 1
  int order = 1;
  std::array<bool, 3> periodic{};

  std::int64_t element_count() const;
  int nodes_per_element() const;
  /// Ids of element e exactly as gsr-mesh writes them (1-based global node numbers).
  void element_ids(std::int64_t e, std::span<std::int64_t> out) const;
};

/// Blocks per axis; virtual rank ix + px (iy + py iz) holds block (ix, iy, iz), and block i
/// of an axis with n elements and p blocks holds elements [i n / p, (i + 1) n / p).
struct BlockGrid {
  std::array<int, 3> blocks{1, 1, 1};
  int ranks() const { return blocks[0] * blocks[1] * blocks[2]; }
};

/// The `dim` factors of n (descending) closest to a cube: least spread between the largest
/// and the smallest.
std::array<std::int64_t, 3> near_cube_factors(std::int64_t n, int dim);

/// `ranks` slabs along the last axis of the box.
BlockGrid slab_grid(const BoxModel& box, int ranks);
/// A near-cubic factorisation of `ranks`, its largest factor on the axis with most elements.
BlockGrid cube_grid(const BoxModel& box, int ranks);
/// Empty if every block gets at least one element, else why not.
std::string grid_problem(const BoxModel& box, const BlockGrid& grid);

/// The virtual rank of every element (for explicit ids and for tests).
std::vector<std::int32_t> element_owners(const BoxModel& box, const BlockGrid& grid);

/// Exact sharing of the partition, from the block grid (no ids are generated).
Sharing box_sharing(const BoxModel& box, const BlockGrid& grid);

}  // namespace gsr::model
