// model/box.cpp — see box.hpp. box_sharing works axis by axis: along one axis a block
// touches the node layers [first element * N, end element * N]; its inner layers are its
// own, and each of its two boundary layers is held by the blocks whose elements touch it.
// A node's holders are the product of its three layers' block sets, so a rank's row
// classes are the products of its per-axis (block set, layer count) lists.
#include "model/box.hpp"

#include <gsr/error.hpp>

#include <algorithm>
#include <map>

namespace gsr::model {

namespace {

/// Distinct node layers along an axis.
std::int64_t lattice(const BoxModel& box, int axis) {
  return box.elements[axis] * box.order + (box.periodic[axis] ? 0 : 1);
}

std::int64_t block_begin(std::int64_t n, int p, int i) { return n * i / p; }

/// The block of an axis with n elements and p blocks that holds element e.
int block_of(std::int64_t n, int p, std::int64_t e) {
  int i = static_cast<int>(e * p / n);
  while (block_begin(n, p, i + 1) <= e) ++i;
  while (block_begin(n, p, i) > e) --i;
  return i;
}

struct Layers {
  std::vector<int> blocks;  // ascending
  std::int64_t count = 0;   // distinct node layers held by exactly these blocks
};

/// Block i's node layers along one axis, grouped by the blocks holding them.
std::vector<Layers> axis_layers(const BoxModel& box, const BlockGrid& grid, int axis, int i) {
  const std::int64_t n = box.elements[axis], N = box.order, L = lattice(box, axis);
  const int p = grid.blocks[axis];
  const std::int64_t first = block_begin(n, p, i), end = block_begin(n, p, i + 1);
  std::map<std::vector<int>, std::int64_t> by_blocks;
  by_blocks[{i}] += (end - first) * N - 1;  // inner layers
  std::vector<std::int64_t> boundary{first * N % L, end * N % L};
  if (boundary[0] == boundary[1]) boundary.pop_back();
  for (std::int64_t g : boundary) {
    std::vector<int> blocks;
    for (std::int64_t e : {g / N - 1, g / N}) {  // the elements on either side of layer g
      if (box.periodic[axis])
        e = (e + n) % n;
      else if (e < 0 || e >= n)
        continue;
      blocks.push_back(block_of(n, p, e));
    }
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    ++by_blocks[blocks];
  }
  std::vector<Layers> out;
  for (auto& [blocks, count] : by_blocks)
    if (count > 0) out.push_back(Layers{blocks, count});
  return out;
}

}  // namespace

std::int64_t BoxModel::element_count() const { return elements[0] * elements[1] * elements[2]; }

int BoxModel::nodes_per_element() const {
  int nodes = 1;
  for (int d = 0; d < dim; ++d) nodes *= order + 1;
  return nodes;
}

void BoxModel::element_ids(std::int64_t e, std::span<std::int64_t> out) const {
  const std::int64_t ex = e % elements[0], ey = e / elements[0] % elements[1], ez = e / (elements[0] * elements[1]);
  const std::int64_t lx = lattice(*this, 0), ly = dim >= 2 ? lattice(*this, 1) : 1,
                     lz = dim == 3 ? lattice(*this, 2) : 1;
  const int nz = dim == 3 ? order + 1 : 1;
  std::size_t node = 0;
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b <= order; ++b)
      for (int a = 0; a <= order; ++a) {
        const std::int64_t gx = (ex * order + a) % lx, gy = (ey * order + b) % ly, gz = (ez * order + c) % lz;
        out[node++] = 1 + gx + lx * (gy + ly * gz);
      }
}

std::array<std::int64_t, 3> near_cube_factors(std::int64_t n, int dim) {
  std::array<std::int64_t, 3> best{n, 1, 1};
  if (dim == 2) {
    for (std::int64_t a = 1; a * a <= n; ++a)
      if (n % a == 0) best = {n / a, a, 1};
    return best;
  }
  std::int64_t spread = n;
  for (std::int64_t a = 1; a * a * a <= n; ++a) {  // a <= b <= c
    if (n % a) continue;
    for (std::int64_t b = a; a * b * b <= n; ++b) {
      if ((n / a) % b) continue;
      const std::int64_t c = n / a / b;
      if (c - a < spread) {
        spread = c - a;
        best = {c, b, a};
      }
    }
  }
  return best;
}

BlockGrid slab_grid(const BoxModel& box, int ranks) {
  BlockGrid grid;
  grid.blocks[box.dim - 1] = ranks;
  return grid;
}

BlockGrid cube_grid(const BoxModel& box, int ranks) {
  const std::array<std::int64_t, 3> factors = near_cube_factors(ranks, box.dim);
  std::array<int, 3> axes{0, 1, 2};  // by elements, descending (stable: x first on ties)
  std::stable_sort(axes.begin(), axes.begin() + box.dim,
                   [&](int a, int b) { return box.elements[a] > box.elements[b]; });
  BlockGrid grid;
  for (int k = 0; k < box.dim; ++k) grid.blocks[axes[k]] = static_cast<int>(factors[k]);
  return grid;
}

std::string grid_problem(const BoxModel& box, const BlockGrid& grid) {
  for (int d = 0; d < 3; ++d)
    if (grid.blocks[d] > box.elements[d])
      return std::to_string(grid.blocks[d]) + " blocks along " + "xyz"[d] + " but only " +
             std::to_string(box.elements[d]) + " elements";
  return {};
}

std::vector<std::int32_t> element_owners(const BoxModel& box, const BlockGrid& grid) {
  std::vector<std::int32_t> owner(static_cast<std::size_t>(box.element_count()));
  const auto& [px, py, pz] = grid.blocks;
  for (std::int64_t e = 0; e < box.element_count(); ++e) {
    const std::int64_t ex = e % box.elements[0], ey = e / box.elements[0] % box.elements[1],
                       ez = e / (box.elements[0] * box.elements[1]);
    owner[static_cast<std::size_t>(e)] =
        block_of(box.elements[0], px, ex) +
        px * (block_of(box.elements[1], py, ey) + py * block_of(box.elements[2], pz, ez));
  }
  return owner;
}

Sharing box_sharing(const BoxModel& box, const BlockGrid& grid) {
  if (const std::string problem = grid_problem(box, grid); !problem.empty())
    throw Error(ErrorCode::invalid_argument, "gsr-model: cannot partition the box: " + problem);
  const auto& [px, py, pz] = grid.blocks;
  Sharing sharing;
  sharing.ranks = grid.ranks();
  sharing.rank.resize(static_cast<std::size_t>(sharing.ranks));
  // Per axis and block, computed once: the layers depend on the block's index along that axis only.
  std::array<std::vector<std::vector<Layers>>, 3> layers;
  for (int d = 0; d < 3; ++d)
    for (int i = 0; i < grid.blocks[d]; ++i)
      layers[d].push_back(d < box.dim ? axis_layers(box, grid, d, i) : std::vector<Layers>{Layers{{0}, 1}});
  for (int iz = 0; iz < pz; ++iz)
    for (int iy = 0; iy < py; ++iy)
      for (int ix = 0; ix < px; ++ix) {
        std::vector<RowClass>& classes = sharing.rank[static_cast<std::size_t>(ix + px * (iy + py * iz))].classes;
        for (const Layers& x : layers[0][ix])
          for (const Layers& y : layers[1][iy])
            for (const Layers& z : layers[2][iz]) {
              RowClass c;
              for (int bz : z.blocks)
                for (int by : y.blocks)
                  for (int bx : x.blocks) c.holders.push_back(bx + px * (by + py * bz));
              if (c.holders.size() < 2) continue;
              std::sort(c.holders.begin(), c.holders.end());
              c.count = static_cast<std::uint64_t>(x.count * y.count * z.count);
              classes.push_back(std::move(c));
            }
        std::sort(classes.begin(), classes.end(),
                  [](const RowClass& a, const RowClass& b) { return a.holders < b.holders; });
      }
  finish_sharing(sharing);
  return sharing;
}

}  // namespace gsr::model
