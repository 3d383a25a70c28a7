// io/import/import.cpp — the import as a whole (gsr/import.hpp): read the
// input's element blocks, decide which corners are one vertex, number the GLL
// nodes, build their coordinates, turn the boundary records into the mesh
// file's boundary tags (checking the .re2's internal and periodic records
// against the faces the numbering matched), and summarize, timing each step.
// Every collective step is polled (mpi/polled.hpp) or agreed (io/h5.hpp).
#include <gsr/handle.hpp>
#include <gsr/import.hpp>

#include "io/files.hpp"
#include "io/format.hpp"
#include "io/h5.hpp"
#include "io/import/element_block.hpp"
#include "io/import/geometry.hpp"
#include "io/import/msh.hpp"
#include "io/import/numbering.hpp"
#include "io/import/re2.hpp"
#include "io/import/vertices.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

namespace gsr {
namespace io::import {
namespace {

MeshFormat format_of(const std::string& path, MeshFormat asked) {
  if (asked != MeshFormat::automatic) return asked;
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".re2") return MeshFormat::re2;
  if (extension == ".msh") return MeshFormat::msh;
  throw Error(ErrorCode::invalid_argument, "gsr: import: cannot tell the format of '" + path +
                                               "' from its extension (neither .re2 nor .msh); give the format "
                                               "(gsr-mesh import --format re2|msh)");
}

void check_options(const std::string& input, const ImportOptions& options) {
  if (options.order < 1 || options.order > max_order)
    throw Error(ErrorCode::invalid_argument,
                "gsr: import: order " + std::to_string(options.order) + " is outside 1.." + std::to_string(max_order));
  if (!(options.tolerance > 0 && options.tolerance < 0.5))
    throw Error(ErrorCode::invalid_argument, "gsr: import: tolerance " + std::to_string(options.tolerance) +
                                                 " is outside (0, 0.5): it is a fraction of the shortest edge");
  if (input.empty()) throw Error(ErrorCode::invalid_argument, "gsr: import: no input file given");
}

/// The steps' times: each rank's own, the slowest reported.
class StepClock {
public:
  void done(const char* name) {
    const double now = MPI_Wtime();
    steps_.push_back({name, now - last_});
    last_ = now;
  }
  std::vector<ImportStep> slowest(MPI_Comm comm) {
    std::vector<double> seconds;
    for (const ImportStep& step : steps_) seconds.push_back(step.seconds);
    detail::allreduce_polled(seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX, comm,
                             detail::timeout_or_default({}));
    for (std::size_t i = 0; i < steps_.size(); ++i) steps_[i].seconds = seconds[i];
    return steps_;
  }

private:
  double last_ = MPI_Wtime();
  std::vector<ImportStep> steps_;
};

std::int64_t sum_over_ranks(std::int64_t value, MPI_Comm comm) {
  long long total = value;
  detail::allreduce_polled(&total, 1, MPI_LONG_LONG, MPI_SUM, comm, detail::timeout_or_default({}));
  return total;
}

/// Every rank's bytes, concatenated in rank order.
std::vector<char> gather_everywhere(const std::vector<char>& mine, MPI_Comm comm) {
  const double timeout = detail::timeout_or_default({});
  const int ranks = detail::comm_size(comm);
  const int size = static_cast<int>(mine.size());
  const std::vector<std::byte> sizes = detail::allgather_polled(&size, sizeof size, comm, timeout);
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  std::memcpy(counts.data(), sizes.data(), sizes.size());
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  detail::allgatherv_polled(mine.data(), size, MPI_CHAR, all.data(), counts.data(), offsets.data(), comm, timeout);
  return all;
}

std::string kind_text(const std::array<char, 4>& kind) { return std::string(kind.data(), strnlen(kind.data(), 4)); }

/// "element 17 face r+ (Nek5000 face 2)": how messages name a face.
std::string face_text(std::int64_t element, int face) {
  return "element " + std::to_string(element + 1) + " " + face_name(face);
}

/// Gmsh's $Periodic pairs join nodes, not faces: they match when every face whose corners are
/// all periodic nodes meets another face once the pairs are joined. A face of such corners
/// that no element shares means pairs that map it onto no face (a node paired with the wrong
/// master, a pair missing). Rank-local; throws Error(io).
void check_periodic_nodes(const ElementBlock& block, const Numbering& numbering) {
  if (block.periodic_nodes.empty() || block.vertices.empty()) return;
  std::vector<std::int64_t> periodic;
  for (const auto& pair : block.periodic_nodes) periodic.insert(periodic.end(), pair.begin(), pair.end());
  std::sort(periodic.begin(), periodic.end());
  const int corners = corners_per_element(block.dim), faces = faces_per_element(block.dim);
  for (std::size_t k = 0; k < static_cast<std::size_t>(block.count); ++k)
    for (int face = 0; face < faces; ++face) {
      if (numbering.neighbor_element[k * static_cast<std::size_t>(faces) + static_cast<std::size_t>(face)] >= 0)
        continue;
      const int axis = face / 2, side = face % 2;
      bool all = true;
      for (int c = 0; c < corners && all; ++c)
        if (((c >> axis) & 1) == side)
          all = std::binary_search(periodic.begin(), periodic.end(),
                                   block.vertices[k * static_cast<std::size_t>(corners) + static_cast<std::size_t>(c)]);
      if (all)
        throw Error(ErrorCode::io,
                    "gsr: file '" + block.source + "': " + face_text(block.first + static_cast<std::int64_t>(k), face) +
                        ": its corners are all nodes of $Periodic pairs, but once the pairs are joined no other face "
                        "meets it: the periodic pairs do not match (a node paired with the wrong master, or a pair "
                        "missing)");
    }
}

/// The mesh file's boundary tags and kinds from the input's records, field by
/// field, with the .re2's internal ("E", and faces without a record) and
/// periodic ("P") records checked against the faces the numbering matched.
/// Rank-local; throws Error(io).
void build_boundary(const ElementBlock& block, const Numbering& numbering, bool nek,
                    const std::vector<char>& fluid_only, Mesh& mesh) {
  const int faces = faces_per_element(block.dim);
  const int fields = std::max(block.fields, 1);
  const auto count = static_cast<std::size_t>(block.count);
  mesh.boundary.assign(count * static_cast<std::size_t>(fields * faces), -1);
  if (nek) mesh.boundary_kinds.assign(mesh.boundary.size(), std::array<char, 4>{});
  std::vector<char> has_record(mesh.boundary.size(), 0);
  const std::string file = "gsr: file '" + block.source + "': ";
  for (const FaceRecord& record : block.faces) {
    const std::int64_t local = record.element - block.first;
    if (local < 0 || local >= block.count || record.face < 0 || record.face >= faces || record.field < 0 ||
        record.field >= fields)
      throw Error(ErrorCode::internal, file + "a boundary record reached the wrong rank or names no face");
    const std::size_t at =
        (static_cast<std::size_t>(local) * static_cast<std::size_t>(fields) + static_cast<std::size_t>(record.field)) *
            static_cast<std::size_t>(faces) +
        static_cast<std::size_t>(record.face);
    // A Gmsh 2.2 file writes a boundary element once per physical group it is in:
    // the face keeps its first record (the smallest tag), as a 4.1 entity its
    // first physical tag.
    if (has_record[at] && !nek) continue;
    if (has_record[at])
      throw Error(ErrorCode::io, file + face_text(record.element, record.face) + ": two records in field " +
                                     std::to_string(record.field + 1));
    has_record[at] = 1;
    const std::string kind = kind_text(record.kind);
    const std::size_t neighbor_at =
        static_cast<std::size_t>(local) * static_cast<std::size_t>(faces) + static_cast<std::size_t>(record.face);
    const std::int64_t neighbor = numbering.neighbor_element[neighbor_at];
    const int neighbor_face = numbering.neighbor_face[neighbor_at];
    if (nek) mesh.boundary_kinds[at] = record.kind;
    if (nek && (kind == "E" || kind == "P")) {
      const std::string what = kind == "E" ? "internal (E)" : "periodic (P)";
      if (neighbor < 0)
        throw Error(ErrorCode::io, file + face_text(record.element, record.face) + " is " + what + " in field " +
                                       std::to_string(record.field + 1) + ", but no other element shares it" +
                                       (kind == "P" ? " (its periodic partner's corners did not match)" : ""));
      if (record.other_element >= 0 && (record.other_element != neighbor || record.other_face != neighbor_face))
        throw Error(ErrorCode::io, file + face_text(record.element, record.face) + " is " + what + " with " +
                                       face_text(record.other_element, std::max(record.other_face, 0)) + " in field " +
                                       std::to_string(record.field + 1) + ", but the face it shares is " +
                                       face_text(neighbor, neighbor_face));
      continue;  // shared: no boundary tag
    }
    mesh.boundary[at] = std::max<std::int64_t>(record.tag, 0);
  }
  if (!nek) return;
  // A .re2 face without a record is internal (E), an error where no other
  // element shares it, in field 1 (velocity) on the fluid elements [0, nelgv)
  // and in the other fields on all elements; but a field whose records all name
  // fluid elements (genbox writes a passive scalar's section so: Nek5000's
  // conj_ht) leaves the solid elements' faces without a record open (blank in
  // Nek5000: a natural condition), counted as open faces.
  for (std::size_t k = 0; k < count; ++k) {
    const std::int64_t element = block.first + static_cast<std::int64_t>(k);
    for (int field = 0; field < fields; ++field) {
      if (fluid_only[static_cast<std::size_t>(field)] && element >= block.fluid_elements) continue;
      for (int face = 0; face < faces; ++face) {
        const std::size_t at =
            (k * static_cast<std::size_t>(fields) + static_cast<std::size_t>(field)) * static_cast<std::size_t>(faces) +
            static_cast<std::size_t>(face);
        if (has_record[at] ||
            numbering.neighbor_element[k * static_cast<std::size_t>(faces) + static_cast<std::size_t>(face)] >= 0)
          continue;
        throw Error(ErrorCode::io, file + face_text(element, face) + " has no boundary condition in field " +
                                       std::to_string(field + 1) +
                                       " and no other element shares it (a "
                                       "face without a record is internal, E)");
      }
    }
  }
}

/// Boundary faces per (field, tag, kind) over all ranks, and the faces that are
/// neither shared nor tagged, once per field (field 1 over the fluid elements
/// only, which the velocity mesh is).
void count_boundary(const ElementBlock& block, const Numbering& numbering, const Mesh& mesh, MPI_Comm comm,
                    ImportSummary& summary) {
  const int faces = faces_per_element(block.dim);
  const int fields = std::max(block.fields, 1);
  struct Count {
    std::int32_t field;
    char kind[4];
    std::int64_t tag;
    std::int64_t faces;
  };
  std::map<std::tuple<int, std::int64_t, std::string>, std::int64_t> counts;
  std::int64_t open = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(block.count); ++k)
    for (int field = 0; field < fields; ++field)
      for (int face = 0; face < faces; ++face) {
        const std::size_t at =
            (k * static_cast<std::size_t>(fields) + static_cast<std::size_t>(field)) * static_cast<std::size_t>(faces) +
            static_cast<std::size_t>(face);
        if (mesh.boundary[at] >= 0) {
          ++counts[{field, mesh.boundary[at], mesh.boundary_kinds.empty() ? "" : kind_text(mesh.boundary_kinds[at])}];
        } else if ((field > 0 || block.first + static_cast<std::int64_t>(k) < block.fluid_elements) &&
                   numbering.neighbor_element[k * static_cast<std::size_t>(faces) + static_cast<std::size_t>(face)] <
                       0) {
          ++open;
        }
      }
  std::vector<char> mine(counts.size() * sizeof(Count));
  std::size_t i = 0;
  for (const auto& [key, n] : counts) {
    Count c{};
    c.field = std::get<0>(key);
    std::strncpy(c.kind, std::get<2>(key).c_str(), 3);
    c.tag = std::get<1>(key);
    c.faces = n;
    std::memcpy(mine.data() + i++ * sizeof(Count), &c, sizeof c);
  }
  const std::vector<char> all = gather_everywhere(mine, comm);
  std::map<std::tuple<int, std::int64_t, std::string>, std::int64_t> total;
  for (std::size_t at = 0; at + sizeof(Count) <= all.size(); at += sizeof(Count)) {
    Count c{};
    std::memcpy(&c, all.data() + at, sizeof c);
    total[{c.field, c.tag, std::string(c.kind, strnlen(c.kind, 4))}] += c.faces;
  }
  for (const auto& [key, n] : total) {
    BoundaryCount count;
    count.field = std::get<0>(key);
    count.tag = std::get<1>(key);
    count.kind = std::get<2>(key);
    count.faces = n;
    for (const ElementBlock::Name& name : block.names)
      if (name.dim == block.dim - 1 && name.tag == count.tag) count.name = name.name;
    summary.boundary.push_back(count);
  }
  summary.open_faces = sum_over_ranks(open, comm);
}

/// Marks with -2, in every field, the shared faces whose corners all have copies elsewhere
/// (a spread of their coordinates over the copies): faces joined to a periodic image. A tag
/// such a face carries (a Gmsh periodic surface in a physical group) gives way: the face is
/// no boundary, and gsr-check and solvers take -2 faces as periodic.
void mark_periodic_faces(const ElementBlock& block, const Numbering& numbering, const std::vector<double>& high,
                         const std::vector<double>& low, double noise, Mesh& mesh) {
  const int dim = block.dim, corners = corners_per_element(dim), faces = faces_per_element(dim);
  const auto fields = static_cast<std::size_t>(std::max(block.fields, 1));
  const auto per_element = static_cast<std::size_t>(faces);
  for (std::size_t k = 0; k < static_cast<std::size_t>(block.count); ++k)
    for (int face = 0; face < faces; ++face) {
      const auto f = static_cast<std::size_t>(face);
      if (numbering.neighbor_element[k * per_element + f] < 0) continue;
      const int axis = face / 2, side = face % 2;
      bool image = true;
      for (int c = 0; c < corners && image; ++c) {
        if (((c >> axis) & 1) != side) continue;
        bool spread = false;
        for (int d = 0; d < dim; ++d) {
          const std::size_t at =
              (k * static_cast<std::size_t>(corners) + static_cast<std::size_t>(c)) * static_cast<std::size_t>(dim) +
              static_cast<std::size_t>(d);
          spread = spread || high[at] - low[at] > noise;
        }
        image = spread;
      }
      if (!image) continue;
      for (std::size_t field = 0; field < fields; ++field) {
        std::int64_t& tag = mesh.boundary[(k * fields + field) * per_element + f];
        tag = -2;
      }
    }
}

/// Axis-aligned periods: the spread of each coordinate over the copies of every
/// corner id (gather-scatter max and min). An axis gets a period when every
/// non-zero spread along it is the same; periodic images that are not
/// translations along the axes get none (the summary says so, and gsr-check
/// names the copies it cannot compare).
std::array<double, 3> find_periods(const ElementBlock& block, const Numbering& numbering,
                                   const std::vector<double>& coordinates, int order, MPI_Comm comm, Mesh& mesh,
                                   std::vector<std::string>& warnings) {
  const int dim = block.dim, corners = corners_per_element(dim);
  const std::int64_t n1 = order + 1;
  const std::int64_t nodes = dim == 3 ? n1 * n1 * n1 : n1 * n1;
  std::vector<std::int64_t> ids;
  std::vector<double> high, low;
  double lowest[3] = {1e300, 1e300, 1e300}, highest[3] = {-1e300, -1e300, -1e300};
  for (std::int64_t k = 0; k < block.count; ++k)
    for (int c = 0; c < corners; ++c) {
      const std::int64_t node =
          k * nodes + (c & 1) * order + ((c >> 1) & 1) * order * n1 + ((c >> 2) & 1) * order * n1 * n1;
      ids.push_back(numbering.ids[static_cast<std::size_t>(node)]);
      for (int d = 0; d < dim; ++d) {
        const double x = coordinates[static_cast<std::size_t>(node * dim + d)];
        high.push_back(x);
        low.push_back(x);
        lowest[d] = std::min(lowest[d], x);
        highest[d] = std::max(highest[d], x);
      }
    }
  Handle corners_handle(ids, comm);
  corners_handle.apply_vec(std::span<double>(high), static_cast<std::size_t>(dim), Op::max);
  corners_handle.apply_vec(std::span<double>(low), static_cast<std::size_t>(dim), Op::min);
  // Per axis: the smallest and largest non-zero spread, and the extent of the
  // mesh.
  double bounds[12];
  for (int d = 0; d < 3; ++d) {
    bounds[d] = -lowest[d];
    bounds[3 + d] = highest[d];
    bounds[6 + d] = -1e300;  // -(smallest spread)
    bounds[9 + d] = -1e300;  // largest spread
  }
  detail::allreduce_polled(bounds, 6, MPI_DOUBLE, MPI_MAX, comm, detail::timeout_or_default({}));
  double extent = 0;
  for (int d = 0; d < dim; ++d) extent = std::max(extent, bounds[3 + d] + bounds[d]);
  const double noise = 1e-9 * std::max(extent, 1e-300);
  for (std::size_t i = 0; i < high.size(); ++i) {
    const int d = static_cast<int>(i % static_cast<std::size_t>(dim));
    const double spread = high[i] - low[i];
    if (spread <= noise) continue;
    bounds[6 + d] = std::max(bounds[6 + d], -spread);
    bounds[9 + d] = std::max(bounds[9 + d], spread);
  }
  detail::allreduce_polled(bounds + 6, 6, MPI_DOUBLE, MPI_MAX, comm, detail::timeout_or_default({}));
  mark_periodic_faces(block, numbering, high, low, noise, mesh);
  std::array<double, 3> periods{};
  static const char* axis[] = {"x", "y", "z"};
  for (int d = 0; d < dim; ++d) {
    const double smallest = -bounds[6 + d], largest = bounds[9 + d];
    if (largest < 0) continue;  // no spread: not periodic along d
    if (largest - smallest <= 1e-8 * std::max(extent, 1e-300))
      periods[static_cast<std::size_t>(d)] = largest;
    else
      warnings.push_back(std::string("periodic images differ along ") + axis[d] + " by " + std::to_string(smallest) +
                         " to " + std::to_string(largest) + ": not one period, so the file records no period along " +
                         axis[d] + " (gsr-check reports the copies it cannot compare)");
  }
  return periods;
}

}  // namespace
}  // namespace io::import

ImportedMesh import_mesh(const std::string& input, MPI_Comm comm, const ImportOptions& options) {
  using namespace io::import;
  check_options(input, options);
  const MeshFormat format = format_of(input, options.format);
  const bool nek = format == MeshFormat::re2;
  StepClock clock;
  ImportedMesh out;
  ImportSummary& summary = out.summary;

  Re2Options re2;
  re2.vertex_file = options.vertex_file;
  re2.ignore_vertex_file = options.ignore_vertex_file;
  const ElementBlock block = nek ? read_re2(input, comm, re2) : read_msh(input, comm);
  clock.done("read");

  MatchOptions match;
  match.tolerance = options.tolerance;
  const Vertices vertices = match_vertices(block, comm, match);
  clock.done("match corners");

  const Numbering numbering =
      number_nodes(vertices.ids, block.dim, options.order, block.first, block.elements, block.source, comm);
  io::agreed(comm, [&] { check_periodic_nodes(block, numbering); });
  clock.done("number");

  Geometry geometry;
  io::agreed(comm, [&] { geometry = node_coordinates(block, options.order); });
  clock.done("coordinates");

  Mesh& mesh = out.mesh;
  // Which fields cover the fluid elements only: field 1, and any whose records
  // (on every rank) all name fluid elements, when there are solid ones.
  std::vector<char> fluid_only(static_cast<std::size_t>(std::max(block.fields, 1)), 0);
  fluid_only[0] = 1;
  if (nek && block.fluid_elements < block.elements) {
    std::vector<int> reaches_solid(fluid_only.size(), 0);
    for (const FaceRecord& record : block.faces)
      if (record.field >= 0 && record.field < static_cast<int>(reaches_solid.size()) &&
          record.element >= block.fluid_elements)
        reaches_solid[static_cast<std::size_t>(record.field)] = 1;
    detail::allreduce_polled(reaches_solid.data(), static_cast<int>(reaches_solid.size()), MPI_INT, MPI_MAX, comm,
                             detail::timeout_or_default({}));
    for (std::size_t f = 0; f < fluid_only.size(); ++f) fluid_only[f] = f == 0 || reaches_solid[f] == 0;
  }
  io::agreed(comm, [&] { build_boundary(block, numbering, nek, fluid_only, mesh); });
  // Warnings from every rank, in element order (each rank's are its elements').
  std::string local_warnings;
  for (const std::string& line : geometry.warnings) local_warnings += line + '\n';
  const std::vector<char> all_warnings =
      gather_everywhere(std::vector<char>(local_warnings.begin(), local_warnings.end()), comm);
  std::string text(all_warnings.begin(), all_warnings.end());
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    summary.warnings.push_back(text.substr(start, end - start));
  const std::array<double, 3> periods =
      find_periods(block, numbering, geometry.coordinates, options.order, comm, mesh, summary.warnings);
  count_boundary(block, numbering, mesh, comm, summary);  // after the periodic faces are marked
  clock.done("boundary");

  mesh.info.dim = block.dim;
  mesh.info.order = options.order;
  mesh.info.elements = block.elements;
  mesh.info.has_coordinates = true;
  mesh.info.periods = periods;
  mesh.info.boundary_fields = std::max(block.fields, 1);
  mesh.info.has_boundary_kinds = nek;
  mesh.info.has_groups = true;
  mesh.info.fluid_elements = nek ? block.fluid_elements : 0;
  for (const ElementBlock::Name& name : block.names) mesh.info.names.push_back({name.dim, name.tag, name.name});
  mesh.elements.resize(static_cast<std::size_t>(block.count));
  for (std::size_t k = 0; k < mesh.elements.size(); ++k) mesh.elements[k] = block.first + static_cast<std::int64_t>(k);
  mesh.ids = numbering.ids;
  mesh.coordinates = std::move(geometry.coordinates);
  mesh.groups = block.groups;

  summary.input = input;
  summary.format = block.format;
  std::ostringstream matched;
  matched << "corners matched by coordinates, within " << options.tolerance << " x the shortest edge";
  summary.vertex_source = block.vertex_source.empty() ? matched.str() : block.vertex_source;
  summary.dim = block.dim;
  summary.order = options.order;
  summary.elements = block.elements;
  summary.fluid_elements = block.fluid_elements;
  summary.vertices = numbering.vertices;
  summary.edges = numbering.edges;
  summary.faces = numbering.faces;
  summary.ids = numbering.total;
  summary.periodic_face_pairs = vertices.periodic_face_pairs;
  summary.curved_sides = sum_over_ranks(static_cast<std::int64_t>(block.curves.size()), comm);
  summary.fields = mesh.info.boundary_fields;
  summary.steps = clock.slowest(comm);
  return out;
}

ImportSummary import_mesh_file(const std::string& input, const std::string& output, MPI_Comm comm,
                               const ImportOptions& options) {
  if (io::same_file(input, output))
    throw Error(ErrorCode::invalid_argument,
                "gsr: import: the output '" + output + "' is the input file '" + input + "'; write to another path");
  ImportedMesh imported = import_mesh(input, comm, options);
  const double start = MPI_Wtime();
  write_mesh(output, imported.mesh, comm);
  double seconds = MPI_Wtime() - start;
  detail::allreduce_polled(&seconds, 1, MPI_DOUBLE, MPI_MAX, comm, detail::timeout_or_default({}));
  imported.summary.steps.push_back({"write", seconds});
  return imported.summary;
}

}  // namespace gsr
