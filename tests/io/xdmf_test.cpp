// xdmf_test.cpp — the sidecar's sub-cells (serial): every linear sub-cell refers to nodes
// of its own element and is positively oriented in VTK's corner order (ParaView would
// otherwise draw inside-out cells), on straight and deformed boxes; the node views are
// virtual datasets that read as the mesh's coordinates (z = 0 in 2-D) and ids, one row per
// node, from both writers; and the sidecar's DataItem shapes equal the shapes of the
// datasets they point to.
#include "scratch_dir.hpp"
#include "tools/box.hpp"

#include <gsr/mesh.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <fstream>
#include <iterator>
#include <regex>

namespace {

using gsr::tools::BoxSpec;

struct Dataset {
  std::vector<hsize_t> shape;
  std::vector<double> values;
};

Dataset read_dataset(const std::string& file, const std::string& path) {
  Dataset data;
  hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(handle, 0) << file;
  hid_t set = H5Dopen2(handle, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(set, 0) << path;
  hid_t space = H5Dget_space(set);
  data.shape.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, data.shape.data(), nullptr);
  data.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.values.data());
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(handle);
  return data;
}

/// Signed area (2-D) or the corner-0 triple product (3-D) of sub-cell `c`.
double orientation(const Dataset& cells, const Dataset& xyz, int dim, std::size_t c) {
  const std::size_t corners = dim == 2 ? 4 : 8;
  auto point = [&](std::size_t corner) {
    const auto node = static_cast<std::size_t>(cells.values[c * corners + corner]);
    std::array<double, 3> p{};
    for (int d = 0; d < dim; ++d) p[d] = xyz.values[node * static_cast<std::size_t>(dim) + d];
    return p;
  };
  if (dim == 2) {
    double area = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const auto p = point(k), q = point((k + 1) % 4);
      area += p[0] * q[1] - q[0] * p[1];
    }
    return area / 2;
  }
  const auto p0 = point(0), p1 = point(1), p3 = point(3), p4 = point(4);
  const std::array<double, 3> a{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  const std::array<double, 3> b{p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]};
  const std::array<double, 3> h{p4[0] - p0[0], p4[1] - p0[1], p4[2] - p0[2]};
  return (a[1] * b[2] - a[2] * b[1]) * h[0] + (a[2] * b[0] - a[0] * b[2]) * h[1] + (a[0] * b[1] - a[1] * b[0]) * h[2];
}

TEST(XdmfSubcells, InsideTheirElementAndPositivelyOriented) {
  gsr::testing::ScratchDir dir("gsr-xdmf-cells", MPI_COMM_SELF);
  for (const int dim : {2, 3}) {
    for (const bool deform : {false, true}) {
      const BoxSpec spec{
          .dim = dim, .elements = {3, 2, dim == 3 ? 2 : 1}, .order = 3, .deform = deform, .partition_ranks = 2};
      const std::string path = dir.file("box" + std::to_string(dim) + (deform ? "d" : "") + ".h5");
      gsr::tools::write_box(spec, path);
      const Dataset cells = read_dataset(path, "/xdmf/cells");
      const Dataset xyz = read_dataset(path, "/mesh/coordinates");
      const Dataset rank = read_dataset(path, "/xdmf/rank");
      const auto nodes = static_cast<std::size_t>(spec.nodes_per_element());
      const std::size_t per_element = dim == 2 ? 9 : 27;  // N^dim
      ASSERT_EQ(cells.shape, (std::vector<hsize_t>{spec.element_count() * per_element, dim == 2 ? 4u : 8u}));
      ASSERT_EQ(rank.shape, (std::vector<hsize_t>{spec.element_count() * per_element}));
      const std::vector<std::int32_t> owner = gsr::tools::box_partition(spec, 2);
      for (std::size_t c = 0; c < cells.shape[0]; ++c) {
        const std::size_t element = c / per_element;
        for (std::size_t k = 0; k < cells.shape[1]; ++k) {
          const double node = cells.values[c * cells.shape[1] + k];
          EXPECT_GE(node, static_cast<double>(element * nodes));
          EXPECT_LT(node, static_cast<double>((element + 1) * nodes));
        }
        EXPECT_GT(orientation(cells, xyz, dim, c), 0.0) << dim << "-D sub-cell " << c << (deform ? " (deformed)" : "");
        EXPECT_EQ(rank.values[c], owner[element]);
      }
    }
  }
}

bool is_virtual(const std::string& file, const std::string& path) {
  hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t set = H5Dopen2(handle, path.c_str(), H5P_DEFAULT);
  hid_t properties = H5Dget_create_plist(set);
  const bool virtual_layout = H5Pget_layout(properties) == H5D_VIRTUAL;
  H5Pclose(properties);
  H5Dclose(set);
  H5Fclose(handle);
  return virtual_layout;
}

/// The node views of `path` against its /mesh datasets.
void expect_views_of_the_mesh(const std::string& path, int dim) {
  SCOPED_TRACE(path);
  const Dataset points = read_dataset(path, "/xdmf/points");
  const Dataset ids = read_dataset(path, "/xdmf/global_ids");
  const Dataset xyz = read_dataset(path, "/mesh/coordinates");
  const Dataset mesh_ids = read_dataset(path, "/mesh/global_ids");
  const hsize_t count = mesh_ids.shape[0] * mesh_ids.shape[1];
  ASSERT_EQ(points.shape, (std::vector<hsize_t>{count, 3}));
  ASSERT_EQ(ids.shape, (std::vector<hsize_t>{count}));
  EXPECT_TRUE(is_virtual(path, "/xdmf/points"));
  EXPECT_TRUE(is_virtual(path, "/xdmf/global_ids"));
  const auto d = static_cast<std::size_t>(dim);
  for (std::size_t p = 0; p < count; ++p) {
    for (std::size_t c = 0; c < 3; ++c)
      ASSERT_EQ(points.values[p * 3 + c], c < d ? xyz.values[p * d + c] : 0.0) << "node " << p << ", axis " << c;
    ASSERT_EQ(ids.values[p], mesh_ids.values[p]) << "node " << p;
  }
}

TEST(XdmfViews, ReadAsTheMeshNodesFromBothWriters) {
  gsr::testing::ScratchDir dir("gsr-xdmf-views", MPI_COMM_SELF);
  for (const int dim : {2, 3}) {
    const BoxSpec spec{
        .dim = dim, .elements = {3, 2, dim == 3 ? 2 : 1}, .order = 2, .deform = true, .partition_ranks = 2};
    const std::string streamed = dir.file("streamed" + std::to_string(dim) + ".h5");
    gsr::tools::write_box(spec, streamed);
    expect_views_of_the_mesh(streamed, dim);
    // The collective writer (MPI-IO) makes the same views.
    const std::string collective = dir.file("collective" + std::to_string(dim) + ".h5");
    gsr::write_mesh(collective, gsr::read_mesh(streamed, MPI_COMM_SELF), MPI_COMM_SELF);
    expect_views_of_the_mesh(collective, dim);
  }
}

TEST(XdmfSidecar, ShapesMatchTheDatasets) {
  gsr::testing::ScratchDir dir("gsr-xdmf-shapes", MPI_COMM_SELF);
  const BoxSpec spec{.dim = 3, .elements = {2, 1, 3}, .order = 2, .periodic = {true, false, false}};
  const std::string path = dir.file("shapes.h5");
  gsr::tools::write_box(spec, path);  // no partition: no rank field
  std::ifstream in(gsr::xdmf_path(path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex item(R"re(<DataItem Dimensions="([0-9 ]+)"[^>]*>shapes\.h5:([^<]+)</DataItem>)re");
  int items = 0;
  for (auto match = std::sregex_iterator(text.begin(), text.end(), item); match != std::sregex_iterator(); ++match) {
    ++items;
    const Dataset data = read_dataset(path, (*match)[2].str());
    std::string shape;
    for (const hsize_t s : data.shape) shape += (shape.empty() ? "" : " ") + std::to_string(s);
    EXPECT_EQ((*match)[1].str(), shape) << (*match)[2].str();
  }
  EXPECT_EQ(items, 3);  // cells, points, global ids
  EXPECT_NE(text.find("shapes.h5:/xdmf/points"), std::string::npos);
  EXPECT_NE(text.find("GeometryType=\"XYZ\""), std::string::npos);
  EXPECT_EQ(text.find("Name=\"rank\""), std::string::npos);
}

}  // namespace
