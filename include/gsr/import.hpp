// gsr/import.hpp — meshes from elsewhere: a Nek5000 .re2 (with its .co2 or .ma2 where given)
// or a Gmsh .msh (2.2 or 4.1) becomes a gsr mesh at order N, its GLL nodes numbered so that
// two nodes share an id exactly when they are one point of the mesh (docs/mesh-import.md).
//
//   gsr::ImportOptions options;
//   options.order = 7;
//   gsr::ImportedMesh imported = gsr::import_mesh("ethier.re2", MPI_COMM_WORLD, options);
//   gsr::Handle gs(imported.mesh.ids, MPI_COMM_WORLD);
//
// Collective over comm; every rank gets its block of elements (gsr::block_range), and the
// same ids and coordinates come out at any rank count. Errors throw gsr::Error on every rank
// together, naming the file and the element (ErrorCode::io for the input's problems,
// invalid_argument for the options'). Part of the io library (gsr::io).
#pragma once

#include <gsr/mesh.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gsr {

enum class MeshFormat {
  automatic,  // from the extension: .re2 or .msh
  re2,        // Nek5000's binary mesh, #v001 to #v004
  msh,        // Gmsh 2.2 or 4.1, ASCII or binary
};

struct ImportOptions {
  int order = 0;  // polynomial order N, 1 to 64 (required)
  MeshFormat format = MeshFormat::automatic;
  /// .re2 only: the .co2 or .ma2 with the corners' vertex ids; empty: CASE.co2 or CASE.ma2
  /// beside CASE.re2 when there is one.
  std::string vertex_file;
  /// .re2 only: ignore any vertex file and match corners by coordinates.
  bool ignore_vertex_file = false;
  /// Corners closer than this fraction of the shortest edge of their elements are one vertex
  /// (when corners are matched by coordinates, and for pairing periodic faces).
  double tolerance = 0.1;
};

/// How long one step took: the slowest rank's time.
struct ImportStep {
  std::string name;
  double seconds = 0;
};

/// Boundary faces of one field with one tag (and, for a .re2, one boundary condition).
struct BoundaryCount {
  int field = 0;
  std::int64_t tag = 0;
  std::string kind;  // Nek5000's boundary condition ("W", "v", "MSH", ...), "" for Gmsh
  std::string name;  // the tag's name, when the input names it
  std::int64_t faces = 0;
};

/// What the import read, found and did, over all ranks (the same on every rank).
struct ImportSummary {
  std::string input;
  std::string format;         // e.g. "Nek5000 .re2 #v003, little-endian" or "Gmsh 2.2 binary"
  std::string vertex_source;  // where the vertex ids came from (a file, node tags, coordinates)
  int dim = 0;
  int order = 0;
  std::int64_t elements = 0;
  std::int64_t fluid_elements = 0;  // a .re2's nelgv (elements [0, nelgv) are fluid); = elements otherwise
  std::int64_t vertices = 0, edges = 0, faces = 0;
  std::int64_t ids = 0;                  // M: distinct global ids (1..M)
  std::int64_t periodic_face_pairs = 0;  // pairs of faces joined as periodic images
  std::int64_t curved_sides = 0;
  int fields = 0;
  std::vector<BoundaryCount> boundary;  // sorted by field, tag, kind
  std::int64_t open_faces =
      0;  // faces neither shared nor with a boundary tag (counted per field; field 1 on the fluid elements)
  std::vector<ImportStep> steps;
  std::vector<std::string> warnings;
};

struct ImportedMesh {
  Mesh mesh;  // this rank's block, with coordinates, boundary, groups and names
  ImportSummary summary;
};

/// Collective over comm: reads `input` and numbers it (docs/mesh-import.md).
ImportedMesh import_mesh(const std::string& input, MPI_Comm comm, const ImportOptions& options);

/// Collective over comm: import_mesh, then write_mesh to `output` (and its XDMF sidecar).
/// Refuses an output that is the input. Nothing is written when any step fails.
ImportSummary import_mesh_file(const std::string& input, const std::string& output, MPI_Comm comm,
                               const ImportOptions& options);

}  // namespace gsr
