// io/xdmf.hpp — the XDMF sidecar that lets ParaView and VisIt open a gsr mesh file: each
// spectral element drawn as N^dim linear sub-cells over its GLL nodes, with the global id
// (per node) and the owning rank (per sub-cell) as fields.
#pragma once

#include <gsr/mesh.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::io {

/// Corners of a linear sub-cell: 4 (quadrilateral) or 8 (hexahedron).
constexpr int subcell_corners(int dim) { return dim == 2 ? 4 : 8; }

/// Whether the sub-cell connectivity needs 64-bit node indices.
bool subcells_need_int64(const MeshLayout& layout);

/// Appends the sub-cell connectivity of `count` elements starting at file element `first`,
/// as indices into the flattened [E * (N+1)^dim] node list: each sub-cell's corners
/// counter-clockwise in (x, y), for hexahedra the lower face and then the upper (the corner
/// order of XDMF's Quadrilateral and Hexahedron).
template <class Index>
void append_subcells(int dim, int order, std::int64_t first, std::int64_t count, std::vector<Index>& out);

/// Writes `xmf_path`, which refers to datasets of the mesh file `h5_name` (a path
/// relative to the sidecar's directory). `has_rank` adds the rank field.
void write_xdmf(const std::string& xmf_path, const std::string& h5_name, const MeshLayout& layout,
                bool has_rank);

}  // namespace gsr::io
