// io/mesh_reader.cpp — the parallel loader: opens a mesh file with MPI-IO, validates
// its structure (identically on every rank), decides which elements each rank owns
// (contiguous blocks, or the file's partition) and reads exactly those rows with
// collective hyperslab reads. Any problem is agreed on, so every rank throws together.
#include <gsr/mesh.hpp>

#include "mpi/checked.hpp"
#include "io/format.hpp"
#include "io/h5.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

namespace gsr {

int MeshInfo::nodes_per_element() const noexcept {
  return static_cast<int>(io::nodes_per_element(dim, order));
}

std::array<std::int64_t, 2> block_range(std::int64_t elements, int rank, int ranks) noexcept {
  const std::int64_t base = elements / ranks, extra = elements % ranks;
  const std::int64_t first = rank * base + std::min<std::int64_t>(rank, extra);
  return {first, first + base + (rank < extra ? 1 : 0)};
}

namespace io {
namespace {

const std::string root_object = "group '/'";
const std::string mesh_object = "group '/mesh'";

std::string dataset_name(const char* path) { return "dataset '" + std::string(path) + "'"; }

std::string ranks_text(std::int64_t count) { return std::to_string(count) + (count == 1 ? " rank" : " ranks"); }

/// An open mesh file and its validated description. Closing is collective (MPI-IO), and
/// happens on every rank together because errors are agreed before anyone throws.
struct OpenMesh {
  FileContext file;
  Id handle;
  Id ids, coordinates, partition;
  MeshInfo info;

  explicit OpenMesh(const std::string& path) : file(path) {}
};

Id open_dataset(const FileContext& file, hid_t handle, const char* path) {
  if (!link_exists(handle, path)) file.fail(dataset_name(path) + ": missing");
  if (!is_dataset(handle, path)) file.fail(dataset_name(path) + ": is not a dataset");
  Id dataset(H5Dopen2(handle, path, H5P_DEFAULT));
  if (!dataset) file.fail_hdf5(dataset_name(path) + ": cannot be opened");
  return dataset;
}

void check_type(const FileContext& file, hid_t dataset, const char* path, H5T_class_t type_class,
                std::size_t size, const char* expected) {
  Id type(H5Dget_type(dataset));
  const TypeInfo info = type_info(type.get());
  const bool ok = info.type_class == type_class && info.size == size &&
                  (type_class != H5T_INTEGER || info.is_signed);
  if (!ok) file.fail(dataset_name(path) + ": has type " + info.describe() + ", expected " + expected);
}

std::vector<hsize_t> dataset_shape(const FileContext& file, hid_t dataset, const char* path) {
  Id space(H5Dget_space(dataset));
  if (!space) file.fail_hdf5(dataset_name(path) + ": cannot read its dataspace");
  return shape_of(space.get());
}

void check_shape(const FileContext& file, const char* path, const std::vector<hsize_t>& actual,
                 const std::vector<hsize_t>& expected, const std::string& meaning) {
  if (actual != expected)
    file.fail(dataset_name(path) + ": has shape " + describe_shape(actual) + ", expected " +
              describe_shape(expected) + " (" + meaning + ")");
}

// Everything but the data: attributes, presence, types and shapes. Rank-local.
void validate(OpenMesh& mesh) {
  const FileContext& file = mesh.file;
  const hid_t handle = mesh.handle.get();
  Id root(H5Gopen2(handle, "/", H5P_DEFAULT));
  const std::string format = read_string_attribute(file, root.get(), root_object, "format");
  if (format != format_name)
    file.fail("attribute 'format' of group '/': is '" + format + "', expected '" + format_name + "'");
  const std::int64_t version = read_int_attribute(file, root.get(), root_object, "version");
  if (version != format_version)
    file.fail("attribute 'version' of group '/': is " + std::to_string(version) +
              ", but this gsr reads version " + std::to_string(format_version));

  if (!link_exists(handle, mesh_group)) file.fail(mesh_object + ": missing");
  if (!is_group(handle, mesh_group)) file.fail("'/mesh' is not a group");
  Id group(H5Gopen2(handle, mesh_group, H5P_DEFAULT));
  MeshInfo& info = mesh.info;
  const std::int64_t dim = read_int_attribute(file, group.get(), mesh_object, "dim");
  if (dim != 2 && dim != 3)
    file.fail("attribute 'dim' of group '/mesh': is " + std::to_string(dim) + ", expected 2 or 3");
  const std::int64_t order = read_int_attribute(file, group.get(), mesh_object, "order");
  if (order < 1 || order > max_order)
    file.fail("attribute 'order' of group '/mesh': is " + std::to_string(order) +
              ", expected 1 to " + std::to_string(max_order));
  info.dim = static_cast<int>(dim);
  info.order = static_cast<int>(order);
  const auto nodes = static_cast<hsize_t>(nodes_per_element(info.dim, info.order));

  if (H5Aexists(group.get(), "periods") > 0) {
    const std::vector<double> periods = read_double_array_attribute(file, group.get(), mesh_object, "periods");
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

  mesh.ids = open_dataset(file, handle, global_ids_path);
  check_type(file, mesh.ids.get(), global_ids_path, H5T_INTEGER, 8, "64-bit signed integer");
  const std::vector<hsize_t> id_shape = dataset_shape(file, mesh.ids.get(), global_ids_path);
  if (id_shape.size() != 2)
    file.fail(dataset_name(global_ids_path) + ": has shape " + describe_shape(id_shape) +
              ", expected 2 dimensions [E, (N+1)^dim]");
  if (id_shape[1] != nodes)
    file.fail(dataset_name(global_ids_path) + ": has shape " + describe_shape(id_shape) +
              ", expected [E, " + std::to_string(nodes) + "] for dim " + std::to_string(dim) +
              " and order " + std::to_string(order));
  if (id_shape[0] == 0) file.fail(dataset_name(global_ids_path) + ": has no elements (E = 0)");
  if (id_shape[0] > static_cast<hsize_t>(std::numeric_limits<std::int64_t>::max() / id_shape[1]))
    file.fail(dataset_name(global_ids_path) + ": is impossibly large");
  info.elements = static_cast<std::int64_t>(id_shape[0]);
  const auto elements = static_cast<hsize_t>(info.elements);

  if (link_exists(handle, coordinates_path)) {
    mesh.coordinates = open_dataset(file, handle, coordinates_path);
    check_type(file, mesh.coordinates.get(), coordinates_path, H5T_FLOAT, 8, "64-bit float");
    check_shape(file, coordinates_path, dataset_shape(file, mesh.coordinates.get(), coordinates_path),
                {elements, nodes, static_cast<hsize_t>(dim)}, "[E, (N+1)^dim, dim]");
    info.has_coordinates = true;
  }

  if (link_exists(handle, partition_path)) {
    mesh.partition = open_dataset(file, handle, partition_path);
    check_type(file, mesh.partition.get(), partition_path, H5T_INTEGER, 4, "32-bit signed integer");
    check_shape(file, partition_path, dataset_shape(file, mesh.partition.get(), partition_path),
                {elements}, "[E], one rank per element");
    info.has_partition = true;
    if (H5Aexists(mesh.partition.get(), "ranks") > 0) {
      const std::int64_t ranks = read_int_attribute(file, mesh.partition.get(),
                                                    dataset_name(partition_path), "ranks");
      if (ranks < 1 || ranks > std::numeric_limits<int>::max())
        file.fail("attribute 'ranks' of " + dataset_name(partition_path) + ": is " +
                  std::to_string(ranks) + ", expected a rank count >= 1");
      info.partition_ranks = static_cast<int>(ranks);
    }
  }
}

// Collective open of different files (or reads by different distributions) would leave
// ranks waiting in different HDF5 calls: compare a digest of the arguments first.
void check_same_arguments(const std::string& path, int distribution, MPI_Comm comm) {
  const auto digest = static_cast<long long>(std::hash<std::string>{}(path + '\n' + std::to_string(distribution)) >> 1);
  long long bounds[2] = {digest, -digest};
  MPI_Allreduce(MPI_IN_PLACE, bounds, 2, MPI_LONG_LONG, MPI_MAX, comm);
  if (bounds[0] != -bounds[1])
    throw Error(ErrorCode::mismatch, "file '" + path + "': the ranks disagree about the file to read or the " +
                                         "distribution (every rank must pass the same)");
}

OpenMesh open_mesh(const std::string& path, MPI_Comm comm, int distribution) {
  check_same_arguments(path, distribution, comm);
  OpenMesh mesh(path);
  QuietHdf5 quiet;
  agreed(comm, [&] {
    if (!std::filesystem::exists(path)) mesh.file.fail(diagnose_unopenable(path));
  });
  Id access(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL);
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

Id collective_transfer() {
  Id transfer(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
  return transfer;
}

std::vector<RowRun> runs_of(const std::vector<std::int64_t>& elements) {
  std::vector<RowRun> runs;
  for (const std::int64_t e : elements) {
    const auto row = static_cast<hsize_t>(e);
    if (!runs.empty() && runs.back().first + runs.back().count == row)
      ++runs.back().count;
    else
      runs.push_back({row, 1});
  }
  return runs;
}

// The elements the partition dataset gives this rank. Each rank reads one block of the
// dataset, checks it, and sends every element index to its owner (one all-to-all), so no
// rank reads the whole partition.
std::vector<std::int64_t> partitioned_elements(OpenMesh& mesh, MPI_Comm comm, hid_t transfer) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const FileContext& file = mesh.file;
  const std::string name = dataset_name(partition_path);
  const MeshInfo& info = mesh.info;
  agreed(comm, [&] {
    if (!info.has_partition)
      file.fail(name + ": missing (needed to read the mesh by partition)");
    if (info.partition_ranks != 0 && info.partition_ranks != ranks)
      file.fail(name + ": made for " + ranks_text(info.partition_ranks) + " (its attribute 'ranks'), but read by " +
                ranks_text(ranks));
  });

  const auto [first, last] = block_range(info.elements, rank, ranks);
  std::vector<std::int32_t> owners(static_cast<std::size_t>(last - first));
  agreed(comm, [&] {
    read_rows(file, mesh.partition.get(), name, H5T_NATIVE_INT32,
              {{static_cast<hsize_t>(first), static_cast<hsize_t>(last - first)}}, owners.data(), transfer);
  });

  int largest = -1;
  agreed(comm, [&] {
    for (std::size_t i = 0; i < owners.size(); ++i) {
      if (owners[i] < 0 || owners[i] >= ranks)
        file.fail(name + ": element " + std::to_string(first + static_cast<std::int64_t>(i)) +
                  " is assigned to rank " + std::to_string(owners[i]) + ", outside [0, " +
                  std::to_string(ranks) + ") for " + ranks_text(ranks));
      largest = std::max(largest, static_cast<int>(owners[i]));
    }
  });
  int global_largest = -1;
  MPI_Allreduce(&largest, &global_largest, 1, MPI_INT, MPI_MAX, comm);
  if (info.partition_ranks == 0 && global_largest + 1 != ranks)
    file.fail(name + ": uses ranks 0 to " + std::to_string(global_largest) + ", so it was made for " +
              ranks_text(global_largest + 1) + ", but read by " + ranks_text(ranks));

  // Element indices to their owners. The blocks arrive in rank order and each block is
  // ascending, so what a rank receives is already sorted.
  std::vector<int> send_counts(ranks, 0), send_offsets(ranks, 0), receive_counts(ranks, 0),
      receive_offsets(ranks, 0);
  for (const std::int32_t owner : owners) ++send_counts[owner];
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < ranks; ++r) {
    send_offsets[r] = send_offsets[r - 1] + send_counts[r - 1];
    receive_offsets[r] = receive_offsets[r - 1] + receive_counts[r - 1];
  }
  std::vector<std::int64_t> outgoing(owners.size());
  std::vector<int> cursor = send_offsets;
  for (std::size_t i = 0; i < owners.size(); ++i)
    outgoing[static_cast<std::size_t>(cursor[owners[i]]++)] = first + static_cast<std::int64_t>(i);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(receive_offsets[ranks - 1] + receive_counts[ranks - 1]));
  MPI_Alltoallv(outgoing.data(), send_counts.data(), send_offsets.data(), MPI_INT64_T, mine.data(),
                receive_counts.data(), receive_offsets.data(), MPI_INT64_T, comm);
  return mine;
}

}  // namespace
}  // namespace io

MeshInfo read_mesh_info(const std::string& path, MPI_Comm comm) {
  return io::open_mesh(path, comm, -1).info;
}

Mesh read_mesh(const std::string& path, MPI_Comm comm, ReadOptions options) {
  using namespace io;
  OpenMesh file_mesh = open_mesh(path, comm, static_cast<int>(options.distribution));
  QuietHdf5 quiet;
  Id transfer = collective_transfer();
  Mesh mesh;
  mesh.info = file_mesh.info;

  if (options.distribution == Distribution::partition) {
    mesh.elements = partitioned_elements(file_mesh, comm, transfer.get());
  } else {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    const auto [first, last] = block_range(mesh.info.elements, rank, ranks);
    mesh.elements.resize(static_cast<std::size_t>(last - first));
    for (std::size_t k = 0; k < mesh.elements.size(); ++k) mesh.elements[k] = first + static_cast<std::int64_t>(k);
  }

  const std::vector<RowRun> runs = runs_of(mesh.elements);
  const std::size_t nodes = mesh.elements.size() * static_cast<std::size_t>(mesh.nodes_per_element());
  agreed(comm, [&] {
    mesh.ids.resize(nodes);
    read_rows(file_mesh.file, file_mesh.ids.get(), dataset_name(global_ids_path), H5T_NATIVE_INT64, runs,
              mesh.ids.data(), transfer.get());
  });
  mesh.info.has_coordinates = options.coordinates && mesh.info.has_coordinates;
  if (mesh.info.has_coordinates) {
    agreed(comm, [&] {
      mesh.coordinates.resize(nodes * static_cast<std::size_t>(mesh.dim()));
      read_rows(file_mesh.file, file_mesh.coordinates.get(), dataset_name(coordinates_path),
                H5T_NATIVE_DOUBLE, runs, mesh.coordinates.data(), transfer.get());
    });
  }
  return mesh;
}

}  // namespace gsr
