// gsr/mesh.hpp — gsr mesh files (HDF5, format version 1, docs/mesh-format.md): the
// parallel loader that gives each rank its elements' global ids (and coordinates), and the
// writers, serial (slab by slab, for generators) and collective (each rank its elements).
//
//   gsr::Mesh mesh = gsr::read_mesh("box.h5", MPI_COMM_WORLD);
//   gsr::Handle gs(mesh.ids, MPI_COMM_WORLD);
//
// Every file written also gets an XDMF sidecar (box.h5 -> box.xmf) for ParaView/VisIt.
// Errors throw gsr::Error with ErrorCode::io and a message naming the file and the object;
// the collective functions throw on every rank together.
#pragma once

#include <gsr/error.hpp>

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gsr {

/// A name the input mesh gave a tag (Gmsh's $PhysicalNames): of a boundary tag (dim - 1) or
/// of an element group (dim).
struct MeshName {
  int dim = 0;
  std::int64_t tag = 0;
  std::string name;
};

/// What the file says about a mesh, without its data.
struct MeshInfo {
  int dim = 0;                      // 2 or 3
  int order = 0;                    // polynomial order N >= 1
  std::int64_t elements = 0;        // E
  bool has_coordinates = false;     // /mesh/coordinates present (and, in a Mesh, read)
  bool has_partition = false;       // /mesh/partition present
  int partition_ranks = 0;          // its `ranks` attribute, 0 if it has none
  std::array<double, 3> periods{};  // /mesh `periods` attribute: period per axis, 0 = none
  // Optional additions that imported meshes carry (docs/mesh-format.md, "Boundary and groups"):
  int boundary_fields = 0;          // F: /mesh/boundary present with F fields (0: absent)
  bool has_boundary_kinds = false;  // /mesh/boundary_kinds present
  bool has_groups = false;          // /mesh/groups present
  std::int64_t fluid_elements = 0;  // its `fluid_elements` attribute (a .re2's nelgv), 0 if none
  std::vector<MeshName> names;      // /mesh/names and /mesh/name_tags, empty if absent

  /// (N+1)^dim: nodes of one element.
  int nodes_per_element() const noexcept;
};

/// One rank's part of a mesh: `elements` (ascending 0-based indices into the file) and,
/// element after element, their ids and coordinates.
struct Mesh {
  MeshInfo info;
  std::vector<std::int64_t> elements;  // local element k is file element elements[k]
  std::vector<std::int64_t> ids;       // [elements.size() * nodes_per_element()]
  std::vector<double> coordinates;     // [ids.size() * dim], or empty
  /// [elements.size() * boundary_fields * 2 dim], or empty: for element k, field f and face
  /// s (r-, r+, s-, s+, t-, t+) at (k * F + f) * 2 dim + s, the face's boundary tag (>= 0),
  /// -1 where the face has no boundary condition (shared with another element, or open), or
  /// -2 where it is shared with a periodic image (its nodes' copies lie a period apart).
  std::vector<std::int64_t> boundary;
  /// Same layout: Nek5000's boundary condition letters ("W", "v", ...; "" where none), when
  /// the file has them.
  std::vector<std::array<char, 4>> boundary_kinds;
  std::vector<std::int64_t> groups;  // [elements.size()]: element group, when the file has them

  int dim() const noexcept { return info.dim; }
  int order() const noexcept { return info.order; }
  int nodes_per_element() const noexcept { return info.nodes_per_element(); }
  std::size_t local_elements() const noexcept { return elements.size(); }
  bool has_coordinates() const noexcept { return info.has_coordinates; }
};

enum class Distribution {
  blocks,     // rank r gets the r-th of P contiguous blocks (sizes differ by at most one)
  partition,  // rank r gets the elements whose /mesh/partition value is r
};

struct ReadOptions {
  Distribution distribution = Distribution::blocks;
  bool coordinates = true;  // read /mesh/coordinates when the file has them
  bool boundary = true;     // read /mesh/boundary, /mesh/boundary_kinds and /mesh/groups when present
};

/// Collective over comm: every rank reads only its own elements, with MPI-IO.
Mesh read_mesh(const std::string& path, MPI_Comm comm, ReadOptions options = {});

/// Collective over comm: validates the file's structure and returns its description.
MeshInfo read_mesh_info(const std::string& path, MPI_Comm comm);

/// The element range [first, last) of rank `rank` of `ranks` under Distribution::blocks.
std::array<std::int64_t, 2> block_range(std::int64_t elements, int rank, int ranks) noexcept;

/// The rank whose block_range holds `element` (0 <= element < elements).
int block_owner(std::int64_t element, std::int64_t elements, int ranks) noexcept;

/// The XDMF sidecar path of a mesh file: "dir/box.h5" -> "dir/box.xmf".
std::string xdmf_path(const std::string& mesh_path);

/// Which datasets a new file holds. `periods` is written as a /mesh attribute when any
/// entry is non-zero (gsr-check then compares coordinates modulo the period).
struct MeshLayout {
  int dim = 0;
  int order = 0;
  std::int64_t elements = 0;
  bool coordinates = false;
  bool partition = false;
  int partition_ranks = 0;  // the `ranks` attribute of /mesh/partition
  std::array<double, 3> periods{};
  // The boundary and group additions (only write_mesh writes them, from a Mesh that has them;
  // MeshWriter refuses a layout with them).
  int boundary_fields = 0;
  bool boundary_kinds = false;
  bool groups = false;
  std::int64_t fluid_elements = 0;
  std::vector<MeshName> names;
};

/// Writes a mesh file from one process, a contiguous run of elements at a time, so a
/// generator never holds more than one slab. Elements must be written in order, each
/// exactly once; close() completes the file, reports what is wrong with it (fewer elements
/// than the layout says, an HDF5 failure) and writes the XDMF sidecar. The file is written
/// under a temporary name beside `path` and renamed to `path` only by a successful close():
/// an incomplete file never appears at `path`, and a file already there stays untouched
/// until then (a writer destroyed without close() removes its temporary). Uses no MPI.
class MeshWriter {
public:
  MeshWriter(const std::string& path, const MeshLayout& layout);
  ~MeshWriter();
  MeshWriter(MeshWriter&&) noexcept;
  MeshWriter& operator=(MeshWriter&&) noexcept;
  MeshWriter(const MeshWriter&) = delete;
  MeshWriter& operator=(const MeshWriter&) = delete;

  /// Writes elements [next, next + count): ids of count * nodes_per_element, coordinates
  /// of that times dim (if the layout has them), partition of count (if it has one).
  void write(std::span<const std::int64_t> ids, std::span<const double> coordinates = {},
             std::span<const std::int32_t> partition = {});
  std::int64_t elements_written() const noexcept;
  void close();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

struct WriteOptions {
  bool partition = true;  // store each element's writing rank as /mesh/partition
};

/// Collective over comm: each rank writes its own elements (mesh.elements, ascending; all
/// ranks together must hold each of 0..E-1 exactly once). mesh.info gives dim, order and
/// periods; coordinates are written if every rank with elements has them. The boundary
/// additions are written when mesh.info.boundary_fields > 0 (mesh.boundary, and
/// mesh.boundary_kinds if has_boundary_kinds), groups when has_groups, and info.names and
/// info.fluid_elements when given (the same on every rank). Like MeshWriter,
/// it writes a temporary file and renames it to `path` only once complete.
void write_mesh(const std::string& path, const Mesh& mesh, MPI_Comm comm, WriteOptions options = {});

}  // namespace gsr
