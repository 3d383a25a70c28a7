// tools/box.hpp — structured boxes of spectral elements, as gsr-mesh generates them:
// GLL nodes, global numbering in which shared nodes (and periodic faces) share ids, an
// optional smooth deformation, and a geometric partition. Every quantity is computed per
// element from its index, so a writer can stream the mesh slab by slab.
#pragma once

#include <gsr/mesh.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace gsr::tools {

struct BoxSpec {
  static constexpr int max_order = 64;  // the mesh format's limit (docs/mesh-format.md)

  int dim = 2;
  std::array<std::int64_t, 3> elements{1, 1, 1};  // per axis; unused axes stay 1
  int order = 1;
  std::array<bool, 3> periodic{};
  bool deform = false;  // smooth curvilinear map that keeps the box and its periods
  bool coordinates = true;
  int partition_ranks = 0;  // > 0: write a partition for this many ranks

  /// Checks the spec; throws gsr::Error(invalid_argument) with the reason.
  void validate() const;
  std::int64_t element_count() const;
  int nodes_per_element() const;
  /// Distinct node ids of the whole box (ids are exactly 1..this).
  std::int64_t node_count() const;
  /// Box length per axis: each element is a unit cube, so the box is [0, NX] x [0, NY] ...
  std::array<double, 3> lengths() const;
};

class Box {
public:
  explicit Box(const BoxSpec& spec);
  const BoxSpec& spec() const noexcept { return spec_; }

  /// Ids of element e, x fastest, then y, then z: out.size() == nodes_per_element().
  void element_ids(std::int64_t e, std::span<std::int64_t> out) const;
  /// Coordinates of element e's nodes: out[node * dim + c].
  void element_coordinates(std::int64_t e, std::span<double> out) const;

private:
  BoxSpec spec_;
  std::vector<double> gll_;                       // io::import::gll_points: on [0, 1]
  std::array<std::int64_t, 3> lattice_{1, 1, 1};  // distinct node positions per axis
};

/// Recursive coordinate bisection of the element grid into `ranks` pieces: each cut
/// splits the longest side of a piece in proportion to the ranks on either side, so
/// pieces differ by at most one element and stay contiguous. O(E) memory.
std::vector<std::int32_t> box_partition(const BoxSpec& spec, int ranks);

/// Called after each slab: elements written so far, out of the total.
using Progress = std::function<void(std::int64_t done, std::int64_t total)>;

/// Writes the box to `path` (and its XDMF sidecar), one slab of about `slab_values` ids at
/// a time: memory is O(slab), plus O(E) when partitioning (12 bytes per element while the
/// partition is computed, then its 4-byte owners).
void write_box(const BoxSpec& spec, const std::string& path, const Progress& progress = {},
               std::int64_t slab_values = std::int64_t{1} << 20);

/// The two order-2 elements of docs/concepts.md on [0,2] x [0,1], with exactly its ids
/// (rank 0: 1..9; rank 1: 3,10,11,6,12,13,9,14,15) and a partition for 2.
void write_two_element(const std::string& path);

}  // namespace gsr::tools
