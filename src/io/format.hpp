// io/format.hpp — the names and limits of the gsr mesh format, version 1
// (docs/mesh-format.md), shared by the reader, the writers and the XDMF sidecar.
#pragma once

#include <cstdint>

namespace gsr::io {

inline constexpr const char* format_name = "gsr-mesh";
inline constexpr int format_version = 1;

inline constexpr const char* mesh_group = "/mesh";
inline constexpr const char* global_ids_path = "/mesh/global_ids";
inline constexpr const char* coordinates_path = "/mesh/coordinates";
inline constexpr const char* partition_path = "/mesh/partition";

// Optional additions of imported meshes (docs/mesh-format.md, "Boundary and groups"); readers
// that do not know them ignore them.
inline constexpr const char* boundary_path = "/mesh/boundary";              // int64 [E, F, 2 dim]
inline constexpr const char* boundary_kinds_path = "/mesh/boundary_kinds";  // string(4) [E, F, 2 dim]
inline constexpr const char* groups_path = "/mesh/groups";                  // int64 [E]
inline constexpr const char* names_path = "/mesh/names";                    // string [T]
inline constexpr const char* name_tags_path = "/mesh/name_tags";            // int64 [T, 2]: dim, tag
inline constexpr int boundary_kind_bytes = 4;                               // Nek5000's cbc: 3 characters, NUL-padded
inline constexpr int max_boundary_fields = 64;                              // more is surely a damaged file

// Visualization aid for the XDMF sidecar; not part of the format, ignored by the reader.
inline constexpr const char* xdmf_group = "/xdmf";
inline constexpr const char* xdmf_cells_path = "/xdmf/cells";  // linear sub-cells
inline constexpr const char* xdmf_rank_path = "/xdmf/rank";    // rank of each sub-cell

// An order beyond this is surely a corrupted attribute: (N+1)^3 nodes per element must
// stay far below what fits one element's ids in memory.
inline constexpr int max_order = 64;

/// (N+1)^dim.
constexpr std::int64_t nodes_per_element(int dim, int order) {
  std::int64_t nodes = 1;
  for (int d = 0; d < dim; ++d) nodes *= order + 1;
  return nodes;
}

/// N^dim: the linear sub-cells (quadrilaterals or hexahedra) of one element.
constexpr std::int64_t subcells_per_element(int dim, int order) {
  std::int64_t cells = 1;
  for (int d = 0; d < dim; ++d) cells *= order;
  return cells;
}

}  // namespace gsr::io
