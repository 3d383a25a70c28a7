// io/mesh_reader.cpp — the parallel loader: opens a mesh file with MPI-IO, validates
// its structure (identically on every rank), decides which elements each rank owns
// (contiguous blocks, or the file's partition) and reads exactly those rows with
// collective hyperslab reads. Any problem is agreed on, so every rank throws together.
#include <gsr/mesh.hpp>

#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "mpi/threads.hpp"
#include "io/format.hpp"
#include "io/h5.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>

#include <unistd.h>

namespace gsr {

int MeshInfo::nodes_per_element() const noexcept { return static_cast<int>(io::nodes_per_element(dim, order)); }

std::array<std::int64_t, 2> block_range(std::int64_t elements, int rank, int ranks) noexcept {
  const std::int64_t base = elements / ranks, extra = elements % ranks;
  const std::int64_t first = rank * base + std::min<std::int64_t>(rank, extra);
  return {first, first + base + (rank < extra ? 1 : 0)};
}

int block_owner(std::int64_t element, std::int64_t elements, int ranks) noexcept {
  // The first `extra` ranks hold base + 1 elements, the others base.
  const std::int64_t base = elements / ranks, extra = elements % ranks;
  const std::int64_t boundary = extra * (base + 1);
  if (element < boundary) return static_cast<int>(element / (base + 1));
  return static_cast<int>(extra + (element - boundary) / base);
}

namespace io {
namespace {

const std::string root_object = "group '/'";
const std::string mesh_object = "group '/mesh'";

std::string ranks_text(std::int64_t count) { return std::to_string(count) + (count == 1 ? " rank" : " ranks"); }

/// An open mesh file and its validated description. Closing is collective (MPI-IO), and
/// happens on every rank together because errors are agreed before anyone throws.
struct OpenMesh {
  FileContext file;
  Id handle;
  Id ids, coordinates, partition;
  Id boundary, boundary_kinds, groups, names, name_tags;
  MeshInfo info;

  explicit OpenMesh(const std::string& path) : file(path) {}
};

/// The element type a dataset of the format must have.
struct ElementType {
  H5T_class_t type_class;
  std::size_t size;
  const char* name;  // for messages
};
const ElementType int64_type{H5T_INTEGER, 8, "64-bit signed integer"};
const ElementType int32_type{H5T_INTEGER, 4, "32-bit signed integer"};
const ElementType float64_type{H5T_FLOAT, 8, "64-bit float"};
const ElementType kind_type{H5T_STRING, boundary_kind_bytes, "fixed-length strings of 4 bytes"};
const ElementType name_type{H5T_STRING, 0, "fixed-length strings of at most 4096 bytes"};

void check_type(const FileContext& file, hid_t dataset, const char* path, const ElementType& expected) {
  Id type(H5Dget_type(dataset));
  if (expected.type_class == H5T_STRING) {
    // Fixed-length strings of the expected size (0: any size up to 4096), never variable-length.
    const bool ok = H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) == 0 &&
                    (expected.size == 0 ? H5Tget_size(type.get()) <= 4096 : H5Tget_size(type.get()) == expected.size);
    if (!ok)
      file.fail(dataset_name(path) + ": has type " + type_info(type.get()).describe() + ", expected " + expected.name);
    return;
  }
  const TypeInfo info = type_info(type.get());
  const bool ok = info.type_class == expected.type_class && info.size == expected.size && info.standard &&
                  (expected.type_class != H5T_INTEGER || info.is_signed);
  if (!ok) file.fail(dataset_name(path) + ": has type " + info.describe() + ", expected " + expected.name);
}

/// Opens the dataset at `path`, which must exist, be a dataset and have element `type`.
Id open_dataset(const FileContext& file, hid_t handle, const char* path, const ElementType& type) {
  if (!link_exists(handle, path)) file.fail(dataset_name(path) + ": missing");
  if (!is_dataset(handle, path)) file.fail(dataset_name(path) + ": is not a dataset");
  Id dataset(H5Dopen2(handle, path, H5P_DEFAULT));
  if (!dataset) file.fail_hdf5(dataset_name(path) + ": cannot be opened");
  check_type(file, dataset.get(), path, type);
  return dataset;
}

std::vector<hsize_t> dataset_shape(const FileContext& file, hid_t dataset, const char* path) {
  Id space(H5Dget_space(dataset));
  if (!space) file.fail_hdf5(dataset_name(path) + ": cannot read its dataspace");
  return shape_of(space.get());
}

/// An optional dataset: none (an empty Id) if `path` is absent; otherwise opened, with its
/// type and its shape checked (`meaning` explains the shape in messages).
Id open_optional_dataset(const FileContext& file, hid_t handle, const char* path, const ElementType& type,
                         const std::vector<hsize_t>& shape, const std::string& meaning) {
  if (!link_exists(handle, path)) return Id();
  Id dataset = open_dataset(file, handle, path, type);
  const std::vector<hsize_t> actual = dataset_shape(file, dataset.get(), path);
  if (actual != shape)
    file.fail(dataset_name(path) + ": has shape " + describe_shape(actual) + ", expected " + describe_shape(shape) +
              " (" + meaning + ")");
  return dataset;
}

void check_format_attributes(const FileContext& file, hid_t handle) {
  Id root(H5Gopen2(handle, "/", H5P_DEFAULT));
  if (!root) file.fail_hdf5(root_object + ": cannot be opened");
  const std::string format = read_string_attribute(file, root.get(), root_object, "format");
  if (format != format_name)
    file.fail("attribute 'format' of group '/': is '" + format + "', expected '" + format_name + "'");
  const std::int64_t version = read_int_attribute(file, root.get(), root_object, "version");
  if (version != format_version)
    file.fail("attribute 'version' of group '/': is " + std::to_string(version) + ", but this gsr reads version " +
              std::to_string(format_version));
}

/// The attributes of group '/mesh': dim, order and the optional periods.
void read_mesh_attributes(const FileContext& file, hid_t handle, MeshInfo& info) {
  if (!link_exists(handle, mesh_group)) file.fail(mesh_object + ": missing");
  if (!is_group(handle, mesh_group)) file.fail("'/mesh' is not a group");
  Id group(H5Gopen2(handle, mesh_group, H5P_DEFAULT));
  if (!group) file.fail_hdf5(mesh_object + ": cannot be opened");
  const std::int64_t dim = read_int_attribute(file, group.get(), mesh_object, "dim");
  if (dim != 2 && dim != 3)
    file.fail("attribute 'dim' of group '/mesh': is " + std::to_string(dim) + ", expected 2 or 3");
  const std::int64_t order = read_int_attribute(file, group.get(), mesh_object, "order");
  if (order < 1 || order > max_order)
    file.fail("attribute 'order' of group '/mesh': is " + std::to_string(order) + ", expected 1 to " +
              std::to_string(max_order));
  info.dim = static_cast<int>(dim);
  info.order = static_cast<int>(order);

  if (attribute_exists(group.get(), "periods")) {
    const std::vector<double> periods = read_double_array_attribute(file, group.get(), mesh_object, "periods", 3);
    if (periods.size() != static_cast<std::size_t>(dim))
      file.fail("attribute 'periods' of group '/mesh': has " + std::to_string(periods.size()) +
                " values, expected dim = " + std::to_string(dim));
    for (std::size_t d = 0; d < periods.size(); ++d) {
      if (!std::isfinite(periods[d]) || periods[d] < 0)
        file.fail("attribute 'periods' of group '/mesh': value " + std::to_string(periods[d]) +
                  " is not a period (finite, >= 0; 0 means not periodic)");
      info.periods[d] = periods[d];
    }
  }
}

/// Opens /mesh/global_ids, whose shape [E, (N+1)^dim] gives the element count.
void open_global_ids(OpenMesh& mesh) {
  const FileContext& file = mesh.file;
  MeshInfo& info = mesh.info;
  const auto nodes = static_cast<hsize_t>(nodes_per_element(info.dim, info.order));
  mesh.ids = open_dataset(file, mesh.handle.get(), global_ids_path, int64_type);
  const std::vector<hsize_t> id_shape = dataset_shape(file, mesh.ids.get(), global_ids_path);
  if (id_shape.size() != 2)
    file.fail(dataset_name(global_ids_path) + ": has shape " + describe_shape(id_shape) +
              ", expected 2 dimensions [E, (N+1)^dim]");
  if (id_shape[1] != nodes)
    file.fail(dataset_name(global_ids_path) + ": has shape " + describe_shape(id_shape) + ", expected [E, " +
              std::to_string(nodes) + "] for dim " + std::to_string(info.dim) + " and order " +
              std::to_string(info.order));
  if (id_shape[0] == 0) file.fail(dataset_name(global_ids_path) + ": has no elements (E = 0)");
  if (id_shape[0] > static_cast<hsize_t>(std::numeric_limits<std::int64_t>::max() / id_shape[1]))
    file.fail(dataset_name(global_ids_path) + ": is impossibly large");
  info.elements = static_cast<std::int64_t>(id_shape[0]);
}

/// Opens /mesh/coordinates and /mesh/partition where the file has them.
void open_optional_datasets(OpenMesh& mesh) {
  const FileContext& file = mesh.file;
  const hid_t handle = mesh.handle.get();
  MeshInfo& info = mesh.info;
  const auto elements = static_cast<hsize_t>(info.elements);
  const auto nodes = static_cast<hsize_t>(nodes_per_element(info.dim, info.order));
  mesh.coordinates = open_optional_dataset(file, handle, coordinates_path, float64_type,
                                           {elements, nodes, static_cast<hsize_t>(info.dim)}, "[E, (N+1)^dim, dim]");
  info.has_coordinates = static_cast<bool>(mesh.coordinates);
  mesh.partition =
      open_optional_dataset(file, handle, partition_path, int32_type, {elements}, "[E], one rank per element");
  info.has_partition = static_cast<bool>(mesh.partition);
  if (info.has_partition && attribute_exists(mesh.partition.get(), "ranks")) {
    const std::int64_t ranks = read_int_attribute(file, mesh.partition.get(), dataset_name(partition_path), "ranks");
    if (ranks < 1 || ranks > std::numeric_limits<int>::max())
      file.fail("attribute 'ranks' of " + dataset_name(partition_path) + ": is " + std::to_string(ranks) +
                ", expected a rank count >= 1");
    info.partition_ranks = static_cast<int>(ranks);
  }
}

/// The first dimension of an optional dataset of any length, or 0 if it is absent.
hsize_t optional_rows(const FileContext& file, hid_t handle, const char* path, const ElementType& type,
                      std::size_t rank, Id& dataset) {
  if (!link_exists(handle, path)) return 0;
  dataset = open_dataset(file, handle, path, type);
  const std::vector<hsize_t> shape = dataset_shape(file, dataset.get(), path);
  if (shape.size() != rank || shape[0] == 0 || shape[0] > 1000000 || (rank == 2 && shape[1] != 2))
    file.fail(dataset_name(path) + ": has shape " + describe_shape(shape) + ", expected " +
              (rank == 2 ? "[T, 2] (dim, tag)" : "[T]") + " with 1 <= T <= 1000000");
  return shape[0];
}

/// Opens the boundary, group and name additions of imported meshes where the file has them.
void open_additions(OpenMesh& mesh) {
  const FileContext& file = mesh.file;
  const hid_t handle = mesh.handle.get();
  MeshInfo& info = mesh.info;
  const auto elements = static_cast<hsize_t>(info.elements);
  const auto faces = static_cast<hsize_t>(2 * info.dim);
  if (link_exists(handle, boundary_path)) {
    mesh.boundary = open_dataset(file, handle, boundary_path, int64_type);
    const std::vector<hsize_t> shape = dataset_shape(file, mesh.boundary.get(), boundary_path);
    if (shape.size() != 3 || shape[0] != elements || shape[1] < 1 || shape[1] > max_boundary_fields ||
        shape[2] != faces)
      file.fail(dataset_name(boundary_path) + ": has shape " + describe_shape(shape) + ", expected [" +
                std::to_string(elements) + ", F, " + std::to_string(faces) +
                "] with 1 <= F <= " + std::to_string(max_boundary_fields) + " (E, fields, faces)");
    info.boundary_fields = static_cast<int>(shape[1]);
    const std::vector<hsize_t> tags_shape = shape;
    mesh.boundary_kinds =
        open_optional_dataset(file, handle, boundary_kinds_path, kind_type, tags_shape, "the shape of /mesh/boundary");
    info.has_boundary_kinds = static_cast<bool>(mesh.boundary_kinds);
  } else if (link_exists(handle, boundary_kinds_path)) {
    file.fail(dataset_name(boundary_kinds_path) + ": present without dataset '/mesh/boundary'");
  }
  mesh.groups = open_optional_dataset(file, handle, groups_path, int64_type, {elements}, "[E], one group per element");
  info.has_groups = static_cast<bool>(mesh.groups);
  Id group(H5Gopen2(handle, mesh_group, H5P_DEFAULT));
  if (group && attribute_exists(group.get(), "fluid_elements")) {
    const std::int64_t fluid = read_int_attribute(file, group.get(), mesh_object, "fluid_elements");
    if (fluid < 0 || fluid > info.elements)
      file.fail("attribute 'fluid_elements' of group '/mesh': is " + std::to_string(fluid) +
                ", expected 0 to E = " + std::to_string(info.elements));
    info.fluid_elements = fluid;
  }
  const hsize_t names = optional_rows(file, handle, names_path, name_type, 1, mesh.names);
  const hsize_t tags = optional_rows(file, handle, name_tags_path, int64_type, 2, mesh.name_tags);
  if (names != tags)
    file.fail(dataset_name(names_path) + " and " + dataset_name(name_tags_path) + ": have " + std::to_string(names) +
              " and " + std::to_string(tags) + " rows; both must be there with one row per name");
}

// Everything but the data: attributes, presence, types and shapes. Rank-local.
void validate(OpenMesh& mesh) {
  check_format_attributes(mesh.file, mesh.handle.get());
  read_mesh_attributes(mesh.file, mesh.handle.get(), mesh.info);
  open_global_ids(mesh);
  open_optional_datasets(mesh);
  open_additions(mesh);
}

/// Reads the names (every rank all of them; they are few).
void read_names(OpenMesh& mesh, hid_t transfer) {
  if (!mesh.names) return;
  const FileContext& file = mesh.file;
  Id type(H5Dget_type(mesh.names.get()));
  const std::size_t width = H5Tget_size(type.get());
  const std::size_t count = static_cast<std::size_t>(dataset_shape(file, mesh.names.get(), names_path)[0]);
  std::vector<char> text(count * width);
  std::vector<std::int64_t> tags(2 * count);
  const std::vector<RowRun> all{{0, static_cast<hsize_t>(count)}};
  read_rows(file, mesh.names.get(), dataset_name(names_path), type.get(), all, text.data(), transfer);
  read_rows(file, mesh.name_tags.get(), dataset_name(name_tags_path), H5T_NATIVE_INT64, all, tags.data(), transfer);
  for (std::size_t i = 0; i < count; ++i) {
    const char* begin = text.data() + i * width;
    mesh.info.names.push_back(
        {static_cast<int>(tags[2 * i]), tags[2 * i + 1], std::string(begin, std::find(begin, begin + width, '\0'))});
  }
}

// Collective open of different files (or reads by different distributions) would leave
// ranks waiting in different HDF5 calls: compare a digest of the arguments first.
void check_same_arguments(const std::string& path, int distribution, MPI_Comm comm) {
  const auto digest = static_cast<long long>(std::hash<std::string>{}(path + '\n' + std::to_string(distribution)) >> 1);
  long long bounds[2] = {digest, -digest};
  detail::allreduce_polled(bounds, 2, MPI_LONG_LONG, MPI_MAX, comm, detail::timeout_or_default({}));
  if (bounds[0] != -bounds[1])
    throw Error(ErrorCode::mismatch, "file '" + path + "': the ranks disagree about the file to read or the " +
                                         "distribution (every rank must pass the same)");
}

/// The last byte a read may touch: the smaller of the file's size and HDF5's end of
/// allocated space (a read beyond either fails, on the reading rank alone).
haddr_t readable_end(const OpenMesh& mesh) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(mesh.file.path(), ec);
  haddr_t end = ec ? 0 : static_cast<haddr_t>(size);
  haddr_t allocated = HADDR_UNDEF;
  if (H5Fget_eoa(mesh.handle.get(), &allocated) >= 0 && allocated != HADDR_UNDEF) end = std::min(end, allocated);
  return end;
}

void check_extent(const FileContext& file, const char* path, haddr_t address, hsize_t bytes, haddr_t end,
                  const std::string& part) {
  if (address == HADDR_UNDEF) return;  // never written: reads give the fill value
  if (address > end || bytes > end - address)
    file.fail(dataset_name(path) + ": " + part + " lies at bytes " + std::to_string(address) + " to " +
              std::to_string(address + bytes) + ", beyond the end of the file (" + std::to_string(end) +
              " bytes): damaged or truncated");
}

/// a * b, or the largest hsize_t if that overflows (a claimed shape may be anything).
hsize_t saturating_product(hsize_t a, hsize_t b) {
  return b != 0 && a > std::numeric_limits<hsize_t>::max() / b ? std::numeric_limits<hsize_t>::max() : a * b;
}

/// The file stores values for the dataset's whole shape. HDF5 reads a part that was never
/// written (an unallocated contiguous dataset, a missing chunk) as the fill value, so a
/// shape alone can claim any number of elements in a tiny file; the reader sizes its
/// buffers by the shape, so the claim is checked against what is stored before anything is
/// allocated for it.
void check_stored_extent(const FileContext& file, hid_t dataset, const char* path, hid_t properties,
                         H5D_layout_t layout, hsize_t stored_chunks) {
  const std::vector<hsize_t> shape = dataset_shape(file, dataset, path);
  const std::string claim = dataset_name(path) + ": has shape " + describe_shape(shape);
  const std::string consequence = " (the rest would read as fill values): damaged or incompletely written";
  if (layout == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(shape.size(), 0);
    if (H5Pget_chunk(properties, static_cast<int>(chunk.size()), chunk.data()) != static_cast<int>(chunk.size()))
      file.fail_hdf5(dataset_name(path) + ": its chunk shape cannot be read");
    hsize_t needed = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (chunk[d] == 0) file.fail(dataset_name(path) + ": has a chunk shape with an empty dimension");
      needed = saturating_product(needed, shape[d] / chunk[d] + (shape[d] % chunk[d] != 0));
    }
    if (stored_chunks < needed)
      file.fail(claim + ", " + std::to_string(needed) + " chunks of " + describe_shape(chunk) +
                ", but the file stores only " + std::to_string(stored_chunks) + " of them" + consequence);
    return;
  }
  Id type(H5Dget_type(dataset));
  hsize_t bytes = type ? H5Tget_size(type.get()) : 0;
  for (const hsize_t extent : shape) bytes = saturating_product(bytes, extent);
  const hsize_t stored = H5Dget_storage_size(dataset);
  if (stored < bytes)
    file.fail(claim + ", " + std::to_string(bytes) + " bytes, but the file stores only " + std::to_string(stored) +
              " bytes of it" + consequence);
}

/// Where a dataset's values are stored lies inside the file and covers its whole shape:
/// the whole of a contiguous dataset, every chunk of a chunked one (this walks the whole
/// chunk index, so a damaged index fails here rather than in one rank's part of a
/// collective read).
void check_storage(const OpenMesh& mesh, hid_t dataset, const char* path) {
  const FileContext& file = mesh.file;
  const haddr_t end = readable_end(mesh);
  Id properties(H5Dget_create_plist(dataset));
  const H5D_layout_t layout = properties ? H5Pget_layout(properties.get()) : H5D_LAYOUT_ERROR;
  if (layout == H5D_CONTIGUOUS) {
    check_extent(file, path, H5Dget_offset(dataset), H5Dget_storage_size(dataset), end, "its data");
    check_stored_extent(file, dataset, path, properties.get(), layout, 0);
  } else if (layout == H5D_COMPACT) {
    check_stored_extent(file, dataset, path, properties.get(), layout, 0);
  } else if (layout == H5D_CHUNKED) {
    Id space(H5Dget_space(dataset));
    hsize_t chunks = 0;
    if (!space || H5Dget_num_chunks(dataset, space.get(), &chunks) < 0)
      file.fail_hdf5(dataset_name(path) + ": its chunk index cannot be read");
    check_stored_extent(file, dataset, path, properties.get(), layout, chunks);
    for (hsize_t k = 0; k < chunks; ++k) {
      haddr_t address = HADDR_UNDEF;
      hsize_t bytes = 0;
      if (H5Dget_chunk_info(dataset, space.get(), k, nullptr, nullptr, &address, &bytes) < 0)
        file.fail_hdf5(dataset_name(path) + ": its chunk index cannot be read");
      check_extent(file, path, address, bytes, end, "chunk " + std::to_string(k));
    }
  } else {
    file.fail(dataset_name(path) + ": has a storage layout other than contiguous, chunked or compact");
  }
}

/// Opens `path` with the serial (sec2) driver and validates everything a parallel read
/// relies on: attributes, datasets, types, shapes and where the data lies. One rank does
/// this before the collective open: on a damaged file, HDF5's parallel open and reads can
/// fail on one rank while the others wait inside a collective call of HDF5's own.
void check_structure_serially(const std::string& path) {
  OpenMesh mesh(path);
  if (!std::filesystem::exists(path)) mesh.file.fail(diagnose_unopenable(path));
  mesh.handle = Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!mesh.handle) {
    const std::string detail = last_hdf5_message();
    mesh.file.fail(diagnose_unopenable(path) + (detail.empty() ? "" : " (HDF5: " + detail + ")"));
  }
  validate(mesh);
  for (const auto& [dataset, dataset_path] :
       {std::pair{mesh.ids.get(), global_ids_path}, std::pair{mesh.coordinates.get(), coordinates_path},
        std::pair{mesh.partition.get(), partition_path}, std::pair{mesh.boundary.get(), boundary_path},
        std::pair{mesh.boundary_kinds.get(), boundary_kinds_path}, std::pair{mesh.groups.get(), groups_path},
        std::pair{mesh.names.get(), names_path}, std::pair{mesh.name_tags.get(), name_tags_path}})
    if (dataset >= 0) check_storage(mesh, dataset, dataset_path);
}

OpenMesh open_mesh(const std::string& path, MPI_Comm comm, int distribution) {
  check_same_arguments(path, distribution, comm);
  OpenMesh mesh(path);
  QuietHdf5 quiet;
  agreed(comm, [&] {
    if (detail::comm_rank(comm) == 0) check_structure_serially(path);
  });
  Id access = mpio_file_access(comm);
  mesh.handle = Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get()));
  agreed(comm, [&] {
    if (!mesh.handle) {
      const std::string detail = last_hdf5_message();
      mesh.file.fail(diagnose_unopenable(path) + (detail.empty() ? "" : " (HDF5: " + detail + ")"));
    }
  });
  agreed(comm, [&] { validate(mesh); });
  return mesh;
}

/// The machine's physical memory in bytes (the largest size_t if unknown).
std::size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<std::size_t>::max();
  const auto p = static_cast<std::size_t>(pages), size = static_cast<std::size_t>(page_size);
  return p > std::numeric_limits<std::size_t>::max() / size ? std::numeric_limits<std::size_t>::max() : p * size;
}

/// `count` values for `what` on this rank. Running out of memory is an io error naming the
/// file and the size: a file can declare more than a machine holds. A request larger than
/// the machine's memory is refused before it is made (a sanitizer's allocator aborts on
/// such a size instead of failing it).
template <class T>
std::vector<T> allocate(const FileContext& file, const std::string& what, std::size_t count) {
  const std::string need = what + ": out of memory: this rank needs " + std::to_string(count) + " values of " +
                           std::to_string(sizeof(T)) + " bytes";
  const std::size_t memory = physical_memory();
  if (count > memory / sizeof(T))
    file.fail(need + ", more than this machine's " + std::to_string(memory) + " bytes of memory");
  try {
    return std::vector<T>(count);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  file.fail(need);
}

/// Every rank: the partition exists and, if it says for how many ranks, is for this many.
void check_partition_is_for(const OpenMesh& mesh, MPI_Comm comm, int ranks) {
  const std::string name = dataset_name(partition_path);
  const MeshInfo& info = mesh.info;
  agreed(comm, [&] {
    if (!info.has_partition) mesh.file.fail(name + ": missing (needed to read the mesh by partition)");
    if (info.partition_ranks != 0 && info.partition_ranks != ranks)
      mesh.file.fail(name + ": made for " + ranks_text(info.partition_ranks) +
                     " (its attribute 'ranks'), but read by " + ranks_text(ranks));
  });
}

/// Reads the owners of elements [first, last) and checks that each is a rank of `comm` and,
/// without a 'ranks' attribute, that the ranks used over all blocks are exactly 0..P-1.
std::vector<std::int32_t> read_owners(const OpenMesh& mesh, MPI_Comm comm, int ranks, std::int64_t first,
                                      std::int64_t last, hid_t transfer) {
  const FileContext& file = mesh.file;
  const std::string name = dataset_name(partition_path);
  std::vector<std::int32_t> owners;
  agreed(comm, [&] {
    owners = allocate<std::int32_t>(file, name, static_cast<std::size_t>(last - first));
    read_rows(file, mesh.partition.get(), name, H5T_NATIVE_INT32,
              {{static_cast<hsize_t>(first), static_cast<hsize_t>(last - first)}}, owners.data(), transfer);
  });

  int largest = -1;
  agreed(comm, [&] {
    for (std::size_t i = 0; i < owners.size(); ++i) {
      if (owners[i] < 0 || owners[i] >= ranks)
        file.fail(name + ": element " + std::to_string(first + static_cast<std::int64_t>(i)) + " is assigned to rank " +
                  std::to_string(owners[i]) + ", outside [0, " + std::to_string(ranks) + ") for " + ranks_text(ranks));
      largest = std::max(largest, static_cast<int>(owners[i]));
    }
  });
  int global_largest = largest;
  detail::allreduce_polled(&global_largest, 1, MPI_INT, MPI_MAX, comm, detail::timeout_or_default({}));
  // The same on every rank, so every rank throws it without an agreement.
  if (mesh.info.partition_ranks == 0 && global_largest + 1 != ranks)
    file.fail(name + ": uses ranks 0 to " + std::to_string(global_largest) + ", so it was made for " +
              ranks_text(global_largest + 1) + ", but read by " + ranks_text(ranks));
  return owners;
}

/// Sends the indices of elements first, first + 1, ... to their `owners` (one all-to-all);
/// returns the indices this rank owns. The blocks arrive in rank order and each block is
/// ascending, so what a rank receives is already sorted.
std::vector<std::int64_t> send_to_owners(const std::vector<std::int32_t>& owners, std::int64_t first, MPI_Comm comm,
                                         int ranks) {
  std::vector<int> send_counts(ranks, 0), send_offsets(ranks, 0), receive_counts(ranks, 0), receive_offsets(ranks, 0);
  for (const std::int32_t owner : owners) ++send_counts[owner];
  const double timeout = detail::timeout_or_default({});  // polled (mpi/polled.hpp)
  detail::alltoall_polled(send_counts.data(), receive_counts.data(), 1, MPI_INT, comm, timeout);
  for (int r = 1; r < ranks; ++r) {
    send_offsets[r] = send_offsets[r - 1] + send_counts[r - 1];
    receive_offsets[r] = receive_offsets[r - 1] + receive_counts[r - 1];
  }
  std::vector<std::int64_t> outgoing(owners.size());
  std::vector<int> cursor = send_offsets;
  for (std::size_t i = 0; i < owners.size(); ++i)
    outgoing[static_cast<std::size_t>(cursor[owners[i]]++)] = first + static_cast<std::int64_t>(i);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(receive_offsets[ranks - 1] + receive_counts[ranks - 1]));
  detail::alltoallv_polled(outgoing.data(), send_counts.data(), send_offsets.data(), mine.data(), receive_counts.data(),
                           receive_offsets.data(), MPI_INT64_T, comm, timeout);
  return mine;
}

// The elements the partition dataset gives this rank. Each rank reads and checks one block
// of the dataset and sends every element index to its owner, so no rank reads the whole
// partition.
std::vector<std::int64_t> partitioned_elements(const OpenMesh& mesh, MPI_Comm comm, hid_t transfer) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  check_partition_is_for(mesh, comm, ranks);
  const auto [first, last] = block_range(mesh.info.elements, rank, ranks);
  const std::vector<std::int32_t> owners = read_owners(mesh, comm, ranks, first, last, transfer);
  return send_to_owners(owners, first, comm, ranks);
}

/// This rank's contiguous block of elements.
std::vector<std::int64_t> block_elements(const OpenMesh& mesh, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Not structured bindings: a lambda may capture those only from C++20 compilers on, which
  // clang-tidy 14's front end is not.
  const std::array<std::int64_t, 2> range = block_range(mesh.info.elements, rank, ranks);
  const std::int64_t first = range[0], last = range[1];
  std::vector<std::int64_t> mine;
  agreed(comm, [&] {
    mine = allocate<std::int64_t>(mesh.file, dataset_name(global_ids_path) + " (element list)",
                                  static_cast<std::size_t>(last - first));
  });
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = first + static_cast<std::int64_t>(k);
  return mine;
}

}  // namespace
}  // namespace io

MeshInfo read_mesh_info(const std::string& path, MPI_Comm comm) {
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  io::OpenMesh mesh = io::open_mesh(path, comm, -1);
  io::QuietHdf5 quiet;
  io::Id transfer = io::collective_transfer();
  io::agreed(comm, [&] { io::read_names(mesh, transfer.get()); });
  return mesh.info;
}

Mesh read_mesh(const std::string& path, MPI_Comm comm, ReadOptions options) {
  using namespace io;
  const detail::ThreadEntry entry(&detail::hdf5_in_use);
  OpenMesh file_mesh = open_mesh(path, comm, static_cast<int>(options.distribution));
  QuietHdf5 quiet;
  Id transfer = collective_transfer();
  Mesh mesh;
  mesh.info = file_mesh.info;

  mesh.elements = options.distribution == Distribution::partition
                      ? partitioned_elements(file_mesh, comm, transfer.get())
                      : block_elements(file_mesh, comm);

  const std::vector<RowRun> runs = row_runs(mesh.elements);
  const std::size_t nodes = mesh.elements.size() * static_cast<std::size_t>(mesh.nodes_per_element());
  agreed(comm, [&] {
    mesh.ids = allocate<std::int64_t>(file_mesh.file, dataset_name(global_ids_path), nodes);
    read_rows(file_mesh.file, file_mesh.ids.get(), dataset_name(global_ids_path), H5T_NATIVE_INT64, runs,
              mesh.ids.data(), transfer.get());
  });
  mesh.info.has_coordinates = options.coordinates && mesh.info.has_coordinates;
  if (mesh.info.has_coordinates) {
    agreed(comm, [&] {
      mesh.coordinates = allocate<double>(file_mesh.file, dataset_name(coordinates_path),
                                          nodes * static_cast<std::size_t>(mesh.dim()));
      read_rows(file_mesh.file, file_mesh.coordinates.get(), dataset_name(coordinates_path), H5T_NATIVE_DOUBLE, runs,
                mesh.coordinates.data(), transfer.get());
    });
  }
  agreed(comm, [&] { read_names(file_mesh, transfer.get()); });
  mesh.info.names = file_mesh.info.names;
  if (!options.boundary) {
    mesh.info.boundary_fields = 0;
    mesh.info.has_boundary_kinds = mesh.info.has_groups = false;
    return mesh;
  }
  const std::size_t faces = mesh.elements.size() * static_cast<std::size_t>(mesh.info.boundary_fields) *
                            static_cast<std::size_t>(2 * mesh.dim());
  if (mesh.info.boundary_fields > 0) {
    agreed(comm, [&] {
      mesh.boundary = allocate<std::int64_t>(file_mesh.file, dataset_name(boundary_path), faces);
      read_rows(file_mesh.file, file_mesh.boundary.get(), dataset_name(boundary_path), H5T_NATIVE_INT64, runs,
                mesh.boundary.data(), transfer.get());
    });
  }
  if (mesh.info.has_boundary_kinds) {
    agreed(comm, [&] {
      mesh.boundary_kinds = allocate<std::array<char, 4>>(file_mesh.file, dataset_name(boundary_kinds_path), faces);
      Id type(H5Dget_type(file_mesh.boundary_kinds.get()));
      read_rows(file_mesh.file, file_mesh.boundary_kinds.get(), dataset_name(boundary_kinds_path), type.get(), runs,
                mesh.boundary_kinds.data(), transfer.get());
      for (auto& kind : mesh.boundary_kinds) kind[3] = '\0';  // at most 3 letters, whatever the file holds
    });
  }
  if (mesh.info.has_groups) {
    agreed(comm, [&] {
      mesh.groups = allocate<std::int64_t>(file_mesh.file, dataset_name(groups_path), mesh.elements.size());
      read_rows(file_mesh.file, file_mesh.groups.get(), dataset_name(groups_path), H5T_NATIVE_INT64, runs,
                mesh.groups.data(), transfer.get());
    });
  }
  return mesh;
}

}  // namespace gsr
