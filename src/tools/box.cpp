// tools/box.cpp — box meshes: GLL points, numbering, deformation, partition, streaming
// writer; and the two-element example.
#include "tools/box.hpp"

#include "io/import/geometry.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cmath>
#include <numbers>
#include <numeric>

namespace gsr::tools {
namespace {

/// Where element e sits in the element grid: (e mod NX, (e / NX) mod NY, e / (NX NY)).
std::array<std::int64_t, 3> grid_position(const BoxSpec& spec, std::int64_t e) {
  return {e % spec.elements[0], e / spec.elements[0] % spec.elements[1], e / (spec.elements[0] * spec.elements[1])};
}

/// The file layout of a box: its sizes, its periods, and a partition if it has one.
MeshLayout layout_of(const BoxSpec& spec) {
  MeshLayout layout;
  layout.dim = spec.dim;
  layout.order = spec.order;
  layout.elements = spec.element_count();
  layout.coordinates = spec.coordinates;
  layout.partition = spec.partition_ranks > 0;
  layout.partition_ranks = spec.partition_ranks;
  const std::array<double, 3> length = spec.lengths();
  for (int d = 0; d < spec.dim; ++d) layout.periods[d] = spec.periodic[d] ? length[d] : 0;
  return layout;
}

}  // namespace

void BoxSpec::validate() const {
  auto fail = [](const std::string& why) { throw Error(ErrorCode::invalid_argument, "box: " + why); };
  if (dim != 2 && dim != 3) fail("dim must be 2 or 3, not " + std::to_string(dim));
  if (order < 1 || order > max_order)
    fail("order must be 1 to " + std::to_string(max_order) + ", not " + std::to_string(order));
  for (int d = 0; d < 3; ++d) {
    if (d < dim && elements[d] < 1) fail("every axis needs at least one element");
    if (d >= dim && (elements[d] != 1 || periodic[d]))
      fail("axis " + std::string(1, "xyz"[d]) + " is not an axis of a " + std::to_string(dim) + "-D box");
    if (periodic[d] && elements[d] < 2)
      fail(std::string("a periodic axis needs at least 2 elements (") + "xyz"[d] +
           " has 1, so an element would meet itself)");
  }
  // Every size of the file is a product of the counts; each must fit the format's signed
  // 64-bit ids and indices (docs/mesh-format.md), or it would wrap to a small wrong number.
  std::string given;
  for (int d = 0; d < dim; ++d) given += (d ? "," : "") + std::to_string(elements[d]);
  auto too_large = [&](const char* what, long double value) {
    char amount[32];
    std::snprintf(amount, sizeof amount, "%.3Lg", value);
    fail("--elements " + given + " at order " + std::to_string(order) + " makes " + amount + " " + what +
         ", more than the mesh format's 64-bit ids and indices hold (2^63 - 1)");
  };
  // (The distinct ids are never more than the entries.)
  constexpr long double limit = static_cast<long double>(INT64_MAX);
  long double count = 1;
  for (int d = 0; d < dim; ++d) count *= static_cast<long double>(elements[d]);
  const long double entries = count * nodes_per_element();
  if (count > limit) too_large("elements", count);
  if (entries > limit) too_large("entries (ids of /mesh/global_ids)", entries);
  if (coordinates && entries * dim > limit) too_large("coordinate values", entries * dim);
  if (partition_ranks < 0) fail("a partition needs a positive rank count");
  if (partition_ranks > 0 && partition_ranks > element_count())
    fail("cannot partition " + std::to_string(element_count()) + " elements for " + std::to_string(partition_ranks) +
         " ranks");
}

std::int64_t BoxSpec::element_count() const { return elements[0] * elements[1] * elements[2]; }

int BoxSpec::nodes_per_element() const {
  int nodes = 1;
  for (int d = 0; d < dim; ++d) nodes *= order + 1;
  return nodes;
}

std::int64_t BoxSpec::node_count() const {
  std::int64_t count = 1;
  for (int d = 0; d < dim; ++d) count *= elements[d] * order + (periodic[d] ? 0 : 1);
  return count;
}

std::array<double, 3> BoxSpec::lengths() const {
  return {static_cast<double>(elements[0]), static_cast<double>(elements[1]), static_cast<double>(elements[2])};
}

Box::Box(const BoxSpec& spec) : spec_(spec), gll_(io::import::gll_points(spec.order)) {
  spec_.validate();
  for (int d = 0; d < spec_.dim; ++d) lattice_[d] = spec_.elements[d] * spec_.order + (spec_.periodic[d] ? 0 : 1);
}

void Box::element_ids(std::int64_t e, std::span<std::int64_t> out) const {
  const int n = spec_.order;
  const auto [ex, ey, ez] = grid_position(spec_, e);
  const int nz = spec_.dim == 3 ? n + 1 : 1;
  std::size_t node = 0;
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b <= n; ++b)
      for (int a = 0; a <= n; ++a) {
        // Position on the global node lattice; a periodic axis wraps its last layer to 0.
        const std::int64_t gx = (ex * n + a) % lattice_[0];
        const std::int64_t gy = (ey * n + b) % lattice_[1];
        const std::int64_t gz = (ez * n + c) % lattice_[2];
        out[node++] = 1 + gx + lattice_[0] * (gy + lattice_[1] * gz);
      }
}

void Box::element_coordinates(std::int64_t e, std::span<double> out) const {
  const int n = spec_.order, dim = spec_.dim;
  const std::array<std::int64_t, 3> index = grid_position(spec_, e);
  const std::array<double, 3> length = spec_.lengths();
  const int nz = dim == 3 ? n + 1 : 1;
  std::size_t node = 0;
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b <= n; ++b)
      for (int a = 0; a <= n; ++a, ++node) {
        const int local[3] = {a, b, c};
        double x[3] = {0, 0, 0};
        // Unit elements: shared faces get bitwise equal coordinates from both sides.
        for (int d = 0; d < dim; ++d) x[d] = static_cast<double>(index[d]) + gll_[local[d]];
        if (spec_.deform) {
          // A displacement that vanishes on every face of the box: the box, its periodic
          // faces and the agreement of shared nodes are kept; amplitude small enough that
          // the map stays one-to-one (Jacobian > 0).
          double bump = 1;
          for (int d = 0; d < dim; ++d) bump *= std::sin(2 * std::numbers::pi * x[d] / length[d]);
          for (int d = 0; d < dim; ++d) x[d] += 0.03 * length[d] * bump;
        }
        for (int d = 0; d < dim; ++d) out[node * static_cast<std::size_t>(dim) + d] = x[d];
      }
}

namespace {

void bisect(const BoxSpec& spec, std::span<std::int64_t> elements, int first_rank, int ranks,
            std::vector<std::int32_t>& owner) {
  if (ranks == 1) {
    for (const std::int64_t e : elements) owner[static_cast<std::size_t>(e)] = first_rank;
    return;
  }
  auto position = [&](std::int64_t e, int axis) { return grid_position(spec, e)[static_cast<std::size_t>(axis)]; };
  std::array<std::int64_t, 3> low{}, high{};
  low.fill(INT64_MAX);
  high.fill(INT64_MIN);
  for (const std::int64_t e : elements)
    for (int d = 0; d < spec.dim; ++d) {
      low[d] = std::min(low[d], position(e, d));
      high[d] = std::max(high[d], position(e, d));
    }
  int axis = 0;
  for (int d = 1; d < spec.dim; ++d)
    if (high[d] - low[d] > high[axis] - low[axis]) axis = d;
  // Along the cut axis first, then the others: the first k elements are whole layers plus
  // a staircase, so both sides stay connected.
  std::sort(elements.begin(), elements.end(), [&](std::int64_t a, std::int64_t b) {
    for (int step = 0; step < spec.dim; ++step) {
      const int d = (axis + step) % spec.dim;
      const std::int64_t pa = position(a, d), pb = position(b, d);
      if (pa != pb) return pa < pb;
    }
    return false;
  });
  const int left_ranks = ranks / 2;
  const auto left = static_cast<std::size_t>(static_cast<std::int64_t>(elements.size()) * left_ranks / ranks);
  bisect(spec, elements.first(left), first_rank, left_ranks, owner);
  bisect(spec, elements.subspan(left), first_rank + left_ranks, ranks - left_ranks, owner);
}

}  // namespace

std::vector<std::int32_t> box_partition(const BoxSpec& spec, int ranks) {
  const std::int64_t count = spec.element_count();
  std::vector<std::int32_t> owner(static_cast<std::size_t>(count), 0);
  std::vector<std::int64_t> elements(static_cast<std::size_t>(count));
  std::iota(elements.begin(), elements.end(), std::int64_t{0});
  bisect(spec, elements, 0, ranks, owner);
  return owner;
}

void write_box(const BoxSpec& spec, const std::string& path, const Progress& progress, std::int64_t slab_values) {
  const Box box(spec);
  const MeshLayout layout = layout_of(spec);

  const std::vector<std::int32_t> owner =
      layout.partition ? box_partition(spec, spec.partition_ranks) : std::vector<std::int32_t>{};
  const std::size_t nodes = static_cast<std::size_t>(spec.nodes_per_element());
  const std::int64_t slab = std::max<std::int64_t>(1, slab_values / static_cast<std::int64_t>(nodes));
  std::vector<std::int64_t> ids;
  std::vector<double> coordinates;
  MeshWriter writer(path, layout);
  for (std::int64_t first = 0; first < layout.elements; first += slab) {
    const std::int64_t count = std::min(slab, layout.elements - first);
    ids.resize(static_cast<std::size_t>(count) * nodes);
    coordinates.resize(spec.coordinates ? ids.size() * static_cast<std::size_t>(spec.dim) : 0);
    for (std::int64_t k = 0; k < count; ++k) {
      const auto offset = static_cast<std::size_t>(k) * nodes;
      box.element_ids(first + k, std::span(ids).subspan(offset, nodes));
      if (spec.coordinates)
        box.element_coordinates(first + k, std::span(coordinates)
                                               .subspan(offset * static_cast<std::size_t>(spec.dim),
                                                        nodes * static_cast<std::size_t>(spec.dim)));
    }
    std::span<const std::int32_t> owners;
    if (layout.partition)
      owners = std::span(owner).subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count));
    writer.write(ids, coordinates, owners);
    if (progress) progress(first + count, layout.elements);
  }
  writer.close();
}

void write_two_element(const std::string& path) {
  // The two elements of docs/concepts.md ("Local and global numbering"): [0,1]^2 and
  // [1,2] x [0,1], order 2, sharing the column of nodes 3, 6, 9.
  const std::vector<std::int64_t> ids = {1, 2,  3,  4, 5,  6,  7, 8,  9,  //
                                         3, 10, 11, 6, 12, 13, 9, 14, 15};
  std::vector<double> coordinates;
  for (int e = 0; e < 2; ++e)
    for (int b = 0; b <= 2; ++b)
      for (int a = 0; a <= 2; ++a) {
        coordinates.push_back(e + 0.5 * a);
        coordinates.push_back(0.5 * b);
      }
  // The geometry and file layout of a 2 x 1 box of order 2; only the numbering differs.
  BoxSpec spec;
  spec.elements = {2, 1, 1};
  spec.order = 2;
  spec.partition_ranks = 2;
  const MeshLayout layout = layout_of(spec);
  const std::vector<std::int32_t> partition = {0, 1};
  MeshWriter writer(path, layout);
  writer.write(ids, coordinates, partition);
  writer.close();
}

}  // namespace gsr::tools
