// io/mesh_writer.cpp — the two writers of the mesh format: MeshWriter (one process,
// element slabs in order, chunked datasets; what gsr-mesh uses) and write_mesh (collective,
// each rank its own elements, MPI-IO). Both also write the XDMF sidecar and its sub-cells.
#include <gsr/mesh.hpp>

#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "mpi/threads.hpp"
#include "io/files.hpp"
#include "io/format.hpp"
#include "io/h5.hpp"
#include "io/xdmf.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <span>

namespace gsr {
namespace io {
namespace {

struct MeshDatasets {
  Id ids, coordinates, partition, cells, rank;
  Id boundary, boundary_kinds, groups, names, name_tags;
  Id kind_type, name_type;  // the fixed-length string types of boundary_kinds and names
};

/// A fixed-length, NUL-padded ASCII string type of `bytes` bytes.
Id string_type(std::size_t bytes) {
  Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), bytes);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  return type;
}

std::size_t longest_name(const MeshLayout& layout) {
  std::size_t longest = 1;
  for (const MeshName& name : layout.names) longest = std::max(longest, name.name.size());
  return longest;
}

bool draws_cells(const MeshLayout& layout) { return layout.coordinates; }
bool draws_rank(const MeshLayout& layout) { return layout.coordinates && layout.partition; }

void check_layout(const std::string& path, const MeshLayout& layout) {
  const FileContext file(path);
  if (layout.dim != 2 && layout.dim != 3) file.fail("cannot write a mesh of dim " + std::to_string(layout.dim));
  if (layout.order < 1 || layout.order > max_order)
    file.fail("cannot write a mesh of order " + std::to_string(layout.order));
  if (layout.elements < 1) file.fail("cannot write a mesh without elements (E = 0)");
  if (layout.partition && layout.partition_ranks < 1)
    file.fail("a partition needs its rank count (partition_ranks >= 1)");
  if (layout.boundary_fields < 0 || layout.boundary_fields > max_boundary_fields)
    file.fail("cannot write " + std::to_string(layout.boundary_fields) + " boundary fields (0 to " +
              std::to_string(max_boundary_fields) + ")");
  if (layout.boundary_kinds && layout.boundary_fields == 0)
    file.fail("boundary kinds need boundary fields (boundary_fields >= 1)");
  if (layout.fluid_elements < 0 || layout.fluid_elements > layout.elements)
    file.fail("fluid_elements " + std::to_string(layout.fluid_elements) + " is not in 0.." +
              std::to_string(layout.elements));
  // FILE.xmf is the sidecar's own name: written there, it would replace the mesh.
  if (layout.coordinates && same_file(path, xdmf_path(path)))
    file.fail("its XDMF sidecar '" + xdmf_path(path) +
              "' would be written over the mesh file itself; name the mesh FILE.h5");
}

/// A dataset of `shape` whose first dimension counts rows. Chunked (about 1 MiB per chunk)
/// for the slab writer when larger than a chunk; contiguous for collective MPI-IO writes.
Id create_dataset(const FileContext& file, hid_t handle, const char* path, hid_t type, std::vector<hsize_t> shape,
                  bool chunked) {
  Id space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr));
  Id properties(H5Pcreate(H5P_DATASET_CREATE));
  hsize_t row_bytes = H5Tget_size(type);
  for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= shape[d];
  const hsize_t chunk_rows = std::max<hsize_t>(1, (hsize_t{1} << 20) / row_bytes);
  // A dataset that fits one chunk stays contiguous: small files keep no chunk index.
  if (chunked && chunk_rows < shape[0]) {
    std::vector<hsize_t> chunk = shape;
    chunk[0] = chunk_rows;
    H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data());
  }
  Id dataset(H5Dcreate2(handle, path, type, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
  if (!dataset) file.fail_hdf5(dataset_name(path) + ": cannot be created");
  return dataset;
}

/// The optional boundary and group datasets the layout asks for.
void create_additions(const FileContext& file, hid_t handle, hid_t group, const MeshLayout& layout, MeshDatasets& sets,
                      bool chunked) {
  const auto elements = static_cast<hsize_t>(layout.elements);
  const auto fields = static_cast<hsize_t>(layout.boundary_fields);
  const auto faces = static_cast<hsize_t>(2 * layout.dim);
  if (layout.boundary_fields > 0)
    sets.boundary = create_dataset(file, handle, boundary_path, H5T_STD_I64LE, {elements, fields, faces}, chunked);
  if (layout.boundary_kinds) {
    sets.kind_type = string_type(boundary_kind_bytes);
    sets.boundary_kinds =
        create_dataset(file, handle, boundary_kinds_path, sets.kind_type.get(), {elements, fields, faces}, chunked);
  }
  if (layout.groups) sets.groups = create_dataset(file, handle, groups_path, H5T_STD_I64LE, {elements}, chunked);
  if (layout.fluid_elements > 0) write_int_attribute(file, group, "fluid_elements", layout.fluid_elements);
  if (!layout.names.empty()) {
    const auto count = static_cast<hsize_t>(layout.names.size());
    sets.name_type = string_type(longest_name(layout));
    sets.names = create_dataset(file, handle, names_path, sets.name_type.get(), {count}, false);
    sets.name_tags = create_dataset(file, handle, name_tags_path, H5T_STD_I64LE, {count, 2}, false);
  }
}

/// Writes the names (from the first rank only: `writes` false elsewhere, which still takes part).
void write_names(const FileContext& file, const MeshLayout& layout, MeshDatasets& sets, bool writes, hid_t transfer) {
  if (layout.names.empty()) return;
  const std::size_t width = longest_name(layout);
  std::vector<char> text(layout.names.size() * width, '\0');
  std::vector<std::int64_t> tags;
  for (std::size_t i = 0; i < layout.names.size(); ++i) {
    std::copy(layout.names[i].name.begin(), layout.names[i].name.end(),
              text.begin() + static_cast<std::ptrdiff_t>(i * width));
    tags.push_back(layout.names[i].dim);
    tags.push_back(layout.names[i].tag);
  }
  const std::vector<RowRun> runs =
      writes ? std::vector<RowRun>{{0, static_cast<hsize_t>(layout.names.size())}} : std::vector<RowRun>{};
  write_rows(file, sets.names.get(), dataset_name(names_path), sets.name_type.get(), runs, text.data(), transfer);
  write_rows(file, sets.name_tags.get(), dataset_name(name_tags_path), H5T_NATIVE_INT64, runs, tags.data(), transfer);
}

/// Writes the rows `runs` of the boundary and group datasets the layout has.
void write_addition_rows(const FileContext& file, const MeshLayout& layout, MeshDatasets& sets,
                         const std::vector<RowRun>& runs, const Mesh& mesh, hid_t transfer) {
  if (layout.boundary_fields > 0)
    write_rows(file, sets.boundary.get(), dataset_name(boundary_path), H5T_NATIVE_INT64, runs, mesh.boundary.data(),
               transfer);
  if (layout.boundary_kinds)
    write_rows(file, sets.boundary_kinds.get(), dataset_name(boundary_kinds_path), sets.kind_type.get(), runs,
               mesh.boundary_kinds.data(), transfer);
  if (layout.groups)
    write_rows(file, sets.groups.get(), dataset_name(groups_path), H5T_NATIVE_INT64, runs, mesh.groups.data(),
               transfer);
}

MeshDatasets create_mesh_objects(const FileContext& file, hid_t handle, const MeshLayout& layout, bool chunked) {
  Id root(H5Gopen2(handle, "/", H5P_DEFAULT));
  write_string_attribute(file, root.get(), "format", format_name);
  write_int_attribute(file, root.get(), "version", format_version);
  Id group(H5Gcreate2(handle, mesh_group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!group) file.fail_hdf5("group '/mesh': cannot be created");
  write_int_attribute(file, group.get(), "dim", layout.dim);
  write_int_attribute(file, group.get(), "order", layout.order);
  const auto dim = static_cast<std::size_t>(layout.dim);
  if (std::any_of(layout.periods.begin(), layout.periods.begin() + layout.dim, [](double p) { return p != 0; }))
    write_double_array_attribute(file, group.get(), "periods",
                                 std::vector<double>(layout.periods.begin(), layout.periods.begin() + layout.dim));

  const auto elements = static_cast<hsize_t>(layout.elements);
  const auto nodes = static_cast<hsize_t>(nodes_per_element(layout.dim, layout.order));
  MeshDatasets sets;
  sets.ids = create_dataset(file, handle, global_ids_path, H5T_STD_I64LE, {elements, nodes}, chunked);
  if (layout.coordinates)
    sets.coordinates = create_dataset(file, handle, coordinates_path, H5T_IEEE_F64LE, {elements, nodes, dim}, chunked);
  if (layout.partition) {
    sets.partition = create_dataset(file, handle, partition_path, H5T_STD_I32LE, {elements}, chunked);
    write_int_attribute(file, sets.partition.get(), "ranks", layout.partition_ranks);
  }
  create_additions(file, handle, group.get(), layout, sets, chunked);
  if (draws_cells(layout)) {
    Id visual(H5Gcreate2(handle, xdmf_group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!visual) file.fail_hdf5("group '/xdmf': cannot be created");
    write_string_attribute(file, visual.get(), "note",
                           "linear sub-cells and node views for the XDMF sidecar; not part of the mesh format");
    create_point_views(file, handle, layout);
    const auto cells = elements * static_cast<hsize_t>(subcells_per_element(layout.dim, layout.order));
    sets.cells =
        create_dataset(file, handle, xdmf_cells_path, subcells_need_int64(layout) ? H5T_STD_I64LE : H5T_STD_I32LE,
                       {cells, static_cast<hsize_t>(subcell_corners(layout.dim))}, chunked);
    if (draws_rank(layout)) sets.rank = create_dataset(file, handle, xdmf_rank_path, H5T_STD_I32LE, {cells}, chunked);
  }
  return sets;
}

/// Sub-cell rows of the element runs.
std::vector<RowRun> subcell_runs(const MeshLayout& layout, const std::vector<RowRun>& element_runs) {
  const auto per_element = static_cast<hsize_t>(subcells_per_element(layout.dim, layout.order));
  std::vector<RowRun> runs;
  for (const RowRun& run : element_runs) runs.push_back({run.first * per_element, run.count * per_element});
  return runs;
}

/// The sub-cell connectivity of the elements in `runs` (sub-cell rows `cell_runs`), with
/// node indices of type Index.
template <class Index>
void write_subcells(const FileContext& file, const MeshLayout& layout, hid_t cells, const std::vector<RowRun>& runs,
                    const std::vector<RowRun>& cell_runs, hid_t memory_type, hid_t transfer) {
  std::vector<Index> connectivity;
  for (const RowRun& run : runs)
    append_subcells(layout.dim, layout.order, static_cast<std::int64_t>(run.first),
                    static_cast<std::int64_t>(run.count), connectivity);
  write_rows(file, cells, dataset_name(xdmf_cells_path), memory_type, cell_runs, connectivity.data(), transfer);
}

/// Writes the sub-cells (and their rank field) of the elements in `runs`; `owners` has
/// one rank per element of the runs, in order.
void write_visual_rows(const FileContext& file, const MeshLayout& layout, MeshDatasets& sets,
                       const std::vector<RowRun>& runs, std::span<const std::int32_t> owners, hid_t transfer) {
  if (!draws_cells(layout)) return;
  const std::vector<RowRun> cell_runs = subcell_runs(layout, runs);
  if (subcells_need_int64(layout))
    write_subcells<std::int64_t>(file, layout, sets.cells.get(), runs, cell_runs, H5T_NATIVE_INT64, transfer);
  else
    write_subcells<std::int32_t>(file, layout, sets.cells.get(), runs, cell_runs, H5T_NATIVE_INT32, transfer);
  if (!draws_rank(layout)) return;
  const auto per_element = static_cast<std::size_t>(subcells_per_element(layout.dim, layout.order));
  std::vector<std::int32_t> rank;
  rank.reserve(owners.size() * per_element);
  for (const std::int32_t owner : owners) rank.insert(rank.end(), per_element, owner);
  write_rows(file, sets.rank.get(), dataset_name(xdmf_rank_path), H5T_NATIVE_INT32, cell_runs, rank.data(), transfer);
}

/// Writes the rows `runs` of every dataset the layout has: ids, coordinates (if any),
/// partition (`owners`, if any) and the XDMF sub-cells. Both writers end here.
void write_element_rows(const FileContext& file, const MeshLayout& layout, MeshDatasets& sets,
                        const std::vector<RowRun>& runs, const std::int64_t* ids, const double* coordinates,
                        std::span<const std::int32_t> owners, hid_t transfer) {
  write_rows(file, sets.ids.get(), dataset_name(global_ids_path), H5T_NATIVE_INT64, runs, ids, transfer);
  if (layout.coordinates)
    write_rows(file, sets.coordinates.get(), dataset_name(coordinates_path), H5T_NATIVE_DOUBLE, runs, coordinates,
               transfer);
  if (layout.partition)
    write_rows(file, sets.partition.get(), dataset_name(partition_path), H5T_NATIVE_INT32, runs, owners.data(),
               transfer);
  write_visual_rows(file, layout, sets, runs, owners, transfer);
}

/// Rank-local: what this rank holds fits the agreed layout.
void check_held_elements(const FileContext& file, const Mesh& mesh, const MeshLayout& layout, long long last_element) {
  const auto nodes = static_cast<std::size_t>(nodes_per_element(layout.dim, layout.order));
  if (last_element + 1 != layout.elements)
    file.fail("write_mesh: the ranks hold " + std::to_string(layout.elements) + " elements but the largest index is " +
              std::to_string(last_element) + "; every element 0..E-1 must be held exactly once");
  if (!std::is_sorted(mesh.elements.begin(), mesh.elements.end()) ||
      std::adjacent_find(mesh.elements.begin(), mesh.elements.end()) != mesh.elements.end() ||
      (!mesh.elements.empty() && mesh.elements.front() < 0))
    file.fail("write_mesh: this rank's element indices are not ascending and distinct");
  if (mesh.ids.size() != mesh.elements.size() * nodes)
    file.fail("write_mesh: " + std::to_string(mesh.ids.size()) + " ids for " + std::to_string(mesh.elements.size()) +
              " elements of " + std::to_string(nodes) + " nodes");
  if (layout.coordinates && mesh.coordinates.size() != mesh.ids.size() * static_cast<std::size_t>(layout.dim))
    file.fail("write_mesh: " + std::to_string(mesh.coordinates.size()) + " coordinates for " +
              std::to_string(mesh.ids.size()) + " nodes of dim " + std::to_string(layout.dim));
  const std::size_t face_values = mesh.elements.size() * static_cast<std::size_t>(layout.boundary_fields) *
                                  static_cast<std::size_t>(2 * layout.dim);
  if (layout.boundary_fields > 0 && mesh.boundary.size() != face_values)
    file.fail("write_mesh: " + std::to_string(mesh.boundary.size()) + " boundary tags for " +
              std::to_string(mesh.elements.size()) + " elements of " + std::to_string(layout.boundary_fields) +
              " fields and " + std::to_string(2 * layout.dim) + " faces");
  if (layout.boundary_kinds && mesh.boundary_kinds.size() != face_values)
    file.fail("write_mesh: " + std::to_string(mesh.boundary_kinds.size()) + " boundary kinds for " +
              std::to_string(face_values) + " faces");
  if (layout.groups && mesh.groups.size() != mesh.elements.size())
    file.fail("write_mesh: " + std::to_string(mesh.groups.size()) + " groups for " +
              std::to_string(mesh.elements.size()) + " elements");
}

/// The layout every rank writes: the same dim and order everywhere, E from the element
/// counts, coordinates only if every rank holding elements has them. Collective; checks
/// the layout and what each rank holds.
MeshLayout agree_on_layout(const std::string& path, const Mesh& mesh, MPI_Comm comm, const WriteOptions& options) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const MeshInfo& info = mesh.info;
  // The names size a dataset every rank creates: their count and a digest of their text too.
  std::size_t names_digest = info.names.size();
  for (const MeshName& name : info.names)
    names_digest = names_digest * 1000003 ^ std::hash<std::string>{}(std::to_string(name.dim) + ' ' +
                                                                     std::to_string(name.tag) + ' ' + name.name);
  constexpr int fields = 8;
  const long long described[fields] = {info.dim,
                                       info.order,
                                       info.boundary_fields,
                                       info.has_boundary_kinds,
                                       info.has_groups,
                                       info.fluid_elements,
                                       static_cast<long long>(info.names.size()),
                                       static_cast<long long>(names_digest >> 1)};
  const double timeout = detail::timeout_or_default({});  // every collective polled (mpi/polled.hpp)
  long long global[2 * fields];
  for (int i = 0; i < fields; ++i) {
    global[i] = described[i];
    global[fields + i] = -described[i];
  }
  detail::allreduce_polled(global, 2 * fields, MPI_LONG_LONG, MPI_MAX, comm, timeout);
  agreed(comm, [&] {
    for (int i = 0; i < fields; ++i)
      if (global[i] != -global[fields + i])
        throw Error(ErrorCode::mismatch, "file '" + path +
                                             "': write_mesh: ranks disagree about dim, order, the boundary fields, "
                                             "the groups, fluid_elements or the names");
  });
  MeshLayout layout;
  layout.dim = mesh.info.dim;
  layout.order = mesh.info.order;
  layout.periods = mesh.info.periods;
  layout.boundary_fields = info.boundary_fields;
  layout.boundary_kinds = info.has_boundary_kinds;
  layout.groups = info.has_groups;
  layout.fluid_elements = info.fluid_elements;
  layout.names = info.names;
  const auto local_elements = static_cast<long long>(mesh.elements.size());
  long long elements = local_elements, last_element = mesh.elements.empty() ? -1 : mesh.elements.back();
  detail::allreduce_polled(&elements, 1, MPI_LONG_LONG, MPI_SUM, comm, timeout);
  detail::allreduce_polled(&last_element, 1, MPI_LONG_LONG, MPI_MAX, comm, timeout);
  int without_coordinates = !mesh.elements.empty() && mesh.coordinates.empty();
  detail::allreduce_polled(&without_coordinates, 1, MPI_INT, MPI_MAX, comm, timeout);
  layout.elements = elements;
  layout.coordinates = !without_coordinates;
  layout.partition = options.partition;
  layout.partition_ranks = ranks;
  agreed(comm, [&] {
    check_layout(path, layout);
    check_held_elements(FileContext(path), mesh, layout, last_element);
  });
  return layout;
}

/// The XDMF sidecar beside `path`, for a layout with coordinates (the sidecar draws them).
void write_sidecar(const std::string& path, const MeshLayout& layout) {
  if (layout.coordinates)
    write_xdmf(xdmf_path(path), std::filesystem::path(path).filename().string(), layout, draws_rank(layout));
}

}  // namespace
}  // namespace io

// ---- MeshWriter ----------------------------------------------------------------------

struct MeshWriter::Impl {
  io::FileContext file;
  MeshLayout layout;
  io::Id handle;
  io::MeshDatasets sets;
  std::int64_t next = 0;
  bool open = true;
  std::string temporary;  // the file being written; renamed to file.path() by a complete close()

  Impl(const std::string& path, const MeshLayout& mesh_layout)
      : file(path), layout(mesh_layout), temporary(io::temporary_name(path)) {}
};

MeshWriter::MeshWriter(const std::string& path, const MeshLayout& layout) {
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  io::check_layout(path, layout);
  if (layout.boundary_fields > 0 || layout.groups || !layout.names.empty())
    io::FileContext(path).fail("MeshWriter writes no boundary, groups or names; write_mesh does");
  io::QuietHdf5 quiet;
  auto impl = std::make_unique<Impl>(path, layout);
  impl->handle = io::Id(H5Fcreate(impl->temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!impl->handle) impl->file.fail_hdf5("cannot be created");
  try {
    impl->sets = io::create_mesh_objects(impl->file, impl->handle.get(), layout, /*chunked=*/true);
  } catch (...) {
    impl->sets = {};
    impl->handle.reset();
    io::discard(impl->temporary);
    throw;
  }
  impl_ = std::move(impl);
}

MeshWriter::~MeshWriter() {
  if (!impl_ || !impl_->open) return;
  // An unfinished writer releases and removes its temporary file: nothing appears at the
  // target's name, and what was there before stays. close() is where errors are reported.
  io::QuietHdf5 quiet;
  impl_->sets = {};
  impl_->handle.reset();
  io::discard(impl_->temporary);
}

MeshWriter::MeshWriter(MeshWriter&&) noexcept = default;
MeshWriter& MeshWriter::operator=(MeshWriter&&) noexcept = default;

std::int64_t MeshWriter::elements_written() const noexcept { return impl_ ? impl_->next : 0; }

void MeshWriter::write(std::span<const std::int64_t> ids, std::span<const double> coordinates,
                       std::span<const std::int32_t> partition) {
  if (!impl_ || !impl_->open) throw Error(ErrorCode::state, "gsr: MeshWriter::write after close()");
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  Impl& w = *impl_;
  const MeshLayout& layout = w.layout;
  const std::size_t nodes = static_cast<std::size_t>(io::nodes_per_element(layout.dim, layout.order));
  if (ids.size() % nodes != 0)
    w.file.fail("write: " + std::to_string(ids.size()) + " ids is not a whole number of elements of " +
                std::to_string(nodes) + " nodes");
  const auto count = static_cast<std::int64_t>(ids.size() / nodes);
  if (w.next + count > layout.elements)
    w.file.fail("write: elements " + std::to_string(w.next) + " to " + std::to_string(w.next + count - 1) +
                " exceed the " + std::to_string(layout.elements) + " elements of the layout");
  const std::size_t dim = static_cast<std::size_t>(layout.dim);
  if (coordinates.size() != (layout.coordinates ? ids.size() * dim : 0))
    w.file.fail("write: got " + std::to_string(coordinates.size()) + " coordinates for " + std::to_string(count) +
                " elements" + (layout.coordinates ? "" : " of a layout without coordinates"));
  if (partition.size() != (layout.partition ? static_cast<std::size_t>(count) : 0))
    w.file.fail("write: got " + std::to_string(partition.size()) + " partition values for " + std::to_string(count) +
                " elements");
  if (count == 0) return;

  io::QuietHdf5 quiet;
  const std::vector<io::RowRun> runs = {{static_cast<hsize_t>(w.next), static_cast<hsize_t>(count)}};
  io::write_element_rows(w.file, layout, w.sets, runs, ids.data(), coordinates.data(), partition, H5P_DEFAULT);
  w.next += count;
}

void MeshWriter::close() {
  if (!impl_ || !impl_->open) return;
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  Impl& w = *impl_;
  w.open = false;
  io::QuietHdf5 quiet;
  w.sets = {};
  const bool closed = H5Fclose(w.handle.release()) >= 0;
  if (!closed || w.next != w.layout.elements) io::discard(w.temporary);
  if (!closed) w.file.fail_hdf5("cannot be closed");
  if (w.next != w.layout.elements)
    w.file.fail("closed after " + std::to_string(w.next) + " of " + std::to_string(w.layout.elements) +
                " elements were written; the file is incomplete, so it was not written");
  io::publish(w.temporary, w.file.path());
  io::write_sidecar(w.file.path(), w.layout);
}

// ---- collective write ----------------------------------------------------------------

void write_mesh(const std::string& path, const Mesh& mesh, MPI_Comm comm, WriteOptions options) {
  using namespace io;
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const FileContext file(path);
  const MeshLayout layout = agree_on_layout(path, mesh, comm, options);

  // The ranks write a temporary file together; rank 0 renames it into place once it is
  // complete, or removes it if any step failed on any rank.
  const std::string temporary = temporary_name(path, comm);
  try {
    QuietHdf5 quiet;
    Id access = mpio_file_access(comm);
    Id handle(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()));
    agreed(comm, [&] {
      if (!handle) file.fail_hdf5("cannot be created");
    });
    Id transfer = collective_transfer();
    const std::vector<RowRun> runs = row_runs(mesh.elements);
    const std::vector<std::int32_t> owners(mesh.elements.size(), rank);
    // Every rank makes the same metadata calls and then writes its rows collectively.
    agreed(comm, [&] {
      MeshDatasets sets = create_mesh_objects(file, handle.get(), layout, /*chunked=*/false);
      write_element_rows(file, layout, sets, runs, mesh.ids.data(), mesh.coordinates.data(), owners, transfer.get());
      write_addition_rows(file, layout, sets, runs, mesh, transfer.get());
      write_names(file, layout, sets, rank == 0, transfer.get());
    });
    const bool closed = H5Fclose(handle.release()) >= 0;
    agreed(comm, [&] {
      if (!closed) file.fail_hdf5("cannot be closed");
      if (rank == 0) publish(temporary, path);
    });
  } catch (...) {
    if (rank == 0) discard(temporary);
    throw;
  }
  agreed(comm, [&] {
    if (rank == 0) write_sidecar(path, layout);
  });
}

}  // namespace gsr
