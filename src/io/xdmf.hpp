// io/xdmf.hpp — the XDMF sidecar that lets ParaView, VisIt and meshio open a gsr mesh
// file: each spectral element drawn as N^dim linear sub-cells over its GLL nodes, with the
// global id (per node) and the owning rank (per sub-cell) as fields, and the views of the
// mesh datasets in /xdmf that the sidecar draws from.
#pragma once

#include <gsr/mesh.hpp>

#include "io/h5.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::io {

// HDF5 virtual datasets over the mesh's own data (no copy), flattened to one row per node,
// because readers such as meshio take a dataset as it is and accept no XDMF hyperslab or
// function: [E (N+1)^dim, 3] coordinates (z = 0 in 2-D) and [E (N+1)^dim] global ids.
inline constexpr const char* xdmf_points_path = "/xdmf/points";
inline constexpr const char* xdmf_point_ids_path = "/xdmf/global_ids";

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

/// Creates the views xdmf_points_path and xdmf_point_ids_path in the open file `handle`
/// (whose /xdmf group and /mesh datasets exist). Metadata only: collective under MPI-IO.
void create_point_views(const FileContext& file, hid_t handle, const MeshLayout& layout);

/// Writes `xmf_path`, which refers to datasets of the mesh file `h5_name` (a path
/// relative to the sidecar's directory). `has_rank` adds the rank field.
void write_xdmf(const std::string& xmf_path, const std::string& h5_name, const MeshLayout& layout, bool has_rank);

}  // namespace gsr::io
