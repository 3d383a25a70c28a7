// poisson/solution_file.cpp — the solution file: gsr mesh + /solution fields + XDMF.
#include "solution_file.hpp"

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace poisson {

namespace {

// Closes an HDF5 id of any kind when it goes out of scope.
class H5Id {
public:
  explicit H5Id(hid_t id) : id_(id) {}
  ~H5Id() {
    if (id_ >= 0) H5Idec_ref(id_);
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

private:
  hid_t id_;
};

// This rank's rows ([element, node]) of a [E, nodes] dataspace: runs of consecutive
// elements, so a block distribution is one hyperslab.
void select_elements(hid_t space, const std::vector<std::int64_t>& elements, hsize_t nodes) {
  H5Sselect_none(space);
  std::size_t i = 0;
  while (i < elements.size()) {
    std::size_t j = i + 1;
    while (j < elements.size() && elements[j] == elements[j - 1] + 1) ++j;
    const hsize_t start[2] = {static_cast<hsize_t>(elements[i]), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(j - i), nodes};
    H5Sselect_hyperslab(space, H5S_SELECT_OR, start, nullptr, count, nullptr);
    i = j;
  }
}

// The element-local node numbers of the linear sub-cells (quadrilaterals or hexahedra),
// offset into the flattened [E * nodes] coordinate array, for elements [0, E).
std::vector<std::int64_t> subcells(int dim, int order, std::int64_t elements) {
  const std::int64_t n1 = order + 1, nodes = dim == 2 ? n1 * n1 : n1 * n1 * n1;
  std::vector<std::int64_t> cells;
  for (std::int64_t e = 0; e < elements; ++e)
    for (int k = 0; k < (dim == 3 ? order : 1); ++k)
      for (int j = 0; j < order; ++j)
        for (int i = 0; i < order; ++i) {
          const std::int64_t c = e * nodes + i + n1 * (j + n1 * k);
          const std::int64_t quad[4] = {c, c + 1, c + 1 + n1, c + n1};
          for (std::int64_t v : quad) cells.push_back(v);
          if (dim == 3)
            for (std::int64_t v : quad) cells.push_back(v + n1 * n1);
        }
  return cells;
}

void write_xdmf(const std::string& path, const gsr::MeshInfo& info, const std::vector<NodalField>& fields) {
  const std::string h5 = std::filesystem::path(path).filename().string();
  const std::int64_t nodes = info.nodes_per_element();
  std::int64_t cells_per_element = 1;
  for (int a = 0; a < info.dim; ++a) cells_per_element *= info.order;
  const std::int64_t cells = info.elements * cells_per_element;
  const std::string shape = std::to_string(info.elements) + " " + std::to_string(nodes);

  std::ofstream out(gsr::xdmf_path(path), std::ios::trunc);
  out << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<!-- gsr-poisson solution: order " << info.order << " elements drawn as linear sub-cells -->\n"
      << "<Xdmf Version=\"2.0\">\n  <Domain>\n    <Grid Name=\"solution\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"" << (info.dim == 2 ? "Quadrilateral" : "Hexahedron")
      << "\" NumberOfElements=\"" << cells << "\">\n"
      << "        <DataItem Dimensions=\"" << cells << ' ' << (info.dim == 2 ? 4 : 8)
      << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << h5 << ":/solution/cells</DataItem>\n"
      << "      </Topology>\n"
      << "      <Geometry GeometryType=\"" << (info.dim == 2 ? "XY" : "XYZ") << "\">\n"
      << "        <DataItem Dimensions=\"" << shape << ' ' << info.dim
      << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5 << ":/mesh/coordinates</DataItem>\n"
      << "      </Geometry>\n";
  for (const NodalField& field : fields)
    out << "      <Attribute Name=\"" << field.name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        << "        <DataItem Dimensions=\"" << shape << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5
        << ":/solution/" << field.name << "</DataItem>\n"
        << "      </Attribute>\n";
  out << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  out.close();
  if (!out) throw std::runtime_error("file '" + gsr::xdmf_path(path) + "': cannot write the XDMF sidecar");
}

// Adds /solution to the file gsr::write_mesh made; returns "" or what went wrong here.
std::string append_fields(const std::string& path, const gsr::Mesh& mesh, const std::vector<NodalField>& fields,
                          MPI_Comm comm) {
  const hsize_t elements = static_cast<hsize_t>(mesh.info.elements);
  const hsize_t nodes = static_cast<hsize_t>(mesh.nodes_per_element());
  H5Id access(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL);
  H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, access.get()));
  if (!file.ok()) return "cannot reopen the file to add /solution";
  H5Id group(H5Gcreate2(file.get(), "/solution", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!group.ok()) return "cannot create group /solution";
  H5Id transfer(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);

  for (const NodalField& field : fields) {
    const hsize_t shape[2] = {elements, nodes};
    H5Id space(H5Screate_simple(2, shape, nullptr));
    H5Id dataset(H5Dcreate2(group.get(), field.name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT));
    if (!dataset.ok()) return "cannot create dataset /solution/" + field.name;
    select_elements(space.get(), mesh.elements, nodes);
    const hsize_t local = field.values.size();
    H5Id memory(H5Screate_simple(1, &local, nullptr));
    if (local == 0) H5Sselect_none(memory.get());
    if (H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), transfer.get(), field.values.data()) < 0)
      return "cannot write dataset /solution/" + field.name;
  }

  // The sub-cell connectivity is global (it indexes the flattened coordinates), so it
  // does not depend on the distribution; rank 0 writes it all, the others nothing.
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::vector<std::int64_t> cells =
      rank == 0 ? subcells(mesh.dim(), mesh.order(), mesh.info.elements) : std::vector<std::int64_t>{};
  std::int64_t total = static_cast<std::int64_t>(cells.size());
  MPI_Bcast(&total, 1, MPI_INT64_T, 0, comm);
  const int corners = mesh.dim() == 2 ? 4 : 8;
  const hsize_t cell_shape[2] = {static_cast<hsize_t>(total / corners), static_cast<hsize_t>(corners)};
  H5Id cell_space(H5Screate_simple(2, cell_shape, nullptr));
  H5Id cell_set(
      H5Dcreate2(group.get(), "cells", H5T_STD_I64LE, cell_space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!cell_set.ok()) return "cannot create dataset /solution/cells";
  const hsize_t mine = cells.size();
  H5Id cell_memory(H5Screate_simple(1, &mine, nullptr));
  if (rank != 0) {
    H5Sselect_none(cell_space.get());
    H5Sselect_none(cell_memory.get());
  }
  if (H5Dwrite(cell_set.get(), H5T_NATIVE_INT64, cell_memory.get(), cell_space.get(), transfer.get(), cells.data()) < 0)
    return "cannot write dataset /solution/cells";
  return "";
}

}  // namespace

void write_solution(const std::string& path, const gsr::Mesh& mesh, const std::vector<NodalField>& fields,
                    MPI_Comm comm) {
  gsr::write_mesh(path, mesh, comm);  // throws gsr::Error on every rank on failure

  std::string problem = append_fields(path, mesh, fields, comm);
  int failed = problem.empty() ? 0 : 1, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
  if (any_failed)
    throw std::runtime_error("file '" + path + "': " + (failed ? problem : "another rank failed to write"));

  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  failed = 0;
  if (rank == 0) {
    try {
      write_xdmf(path, mesh.info, fields);
    } catch (const std::exception& e) {
      problem = e.what();
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) throw std::runtime_error(rank == 0 ? problem : "rank 0 failed to write the XDMF sidecar");
}

}  // namespace poisson
