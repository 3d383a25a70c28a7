// io/xdmf.cpp — XDMF (version 2) sidecar text, the linear sub-cells it draws and the
// virtual datasets that present the mesh's nodes one row each.
#include "io/xdmf.hpp"

#include "io/files.hpp"
#include "io/format.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace gsr {

std::string xdmf_path(const std::string& mesh_path) {
  std::filesystem::path path(mesh_path);
  path.replace_extension(".xmf");
  return path.string();
}

namespace io {

bool subcells_need_int64(const MeshLayout& layout) {
  return layout.elements * nodes_per_element(layout.dim, layout.order) > std::numeric_limits<std::int32_t>::max();
}

template <class Index>
void append_subcells(int dim, int order, std::int64_t first, std::int64_t count, std::vector<Index>& out) {
  const std::int64_t n1 = order + 1;
  const std::int64_t nodes = nodes_per_element(dim, order);
  const int layers = dim == 3 ? order : 1;
  for (std::int64_t e = first; e < first + count; ++e) {
    const std::int64_t base = e * nodes;
    for (int k = 0; k < layers; ++k)
      for (int j = 0; j < order; ++j)
        for (int i = 0; i < order; ++i) {
          const std::int64_t corner = base + i + n1 * (j + n1 * k);
          // Counter-clockwise in the (x, y) plane; for hexahedra the upper face follows.
          const std::int64_t quad[4] = {corner, corner + 1, corner + 1 + n1, corner + n1};
          for (const std::int64_t node : quad) out.push_back(static_cast<Index>(node));
          if (dim == 3)
            for (const std::int64_t node : quad) out.push_back(static_cast<Index>(node + n1 * n1));
        }
  }
}

template void append_subcells<std::int32_t>(int, int, std::int64_t, std::int64_t, std::vector<std::int32_t>&);
template void append_subcells<std::int64_t>(int, int, std::int64_t, std::int64_t, std::vector<std::int64_t>&);

namespace {

/// A virtual dataset at `path` of `type` and `shape` whose leading block of shape `mapped`
/// is `source` (a dataset of this file) read in row-major order; the rest reads as 0.
void create_view(const FileContext& file, hid_t handle, const char* path, hid_t type, const std::vector<hsize_t>& shape,
                 const std::vector<hsize_t>& mapped, const char* source) {
  Id source_set(H5Dopen2(handle, source, H5P_DEFAULT));
  if (!source_set) file.fail_hdf5(dataset_name(source) + ": cannot be opened for the XDMF views");
  Id source_space(H5Dget_space(source_set.get()));
  Id view_space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr));
  const std::vector<hsize_t> start(shape.size(), 0);
  Id properties(H5Pcreate(H5P_DATASET_CREATE));
  const double zero[1] = {0};
  bool made =
      source_space && view_space && properties &&
      H5Sselect_hyperslab(view_space.get(), H5S_SELECT_SET, start.data(), nullptr, mapped.data(), nullptr) >= 0 &&
      H5Sselect_all(source_space.get()) >= 0 && H5Pset_fill_value(properties.get(), H5T_NATIVE_DOUBLE, zero) >= 0 &&
      // "." is HDF5's name for the file holding the view, so renaming the file keeps it whole.
      H5Pset_virtual(properties.get(), view_space.get(), ".", source, source_space.get()) >= 0 &&
      H5Sselect_all(view_space.get()) >= 0;
  if (made) {
    Id view(H5Dcreate2(handle, path, type, view_space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT));
    made = static_cast<bool>(view);
  }
  if (!made) file.fail_hdf5(dataset_name(path) + ": cannot be created (a view of " + dataset_name(source) + ")");
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string data_item(const std::string& dimensions, const char* number_type, int precision, const std::string& h5_name,
                      const char* dataset) {
  std::ostringstream item;
  item << "<DataItem Dimensions=\"" << dimensions << "\" NumberType=\"" << number_type << "\" Precision=\"" << precision
       << "\" Format=\"HDF\">" << xml_escape(h5_name) << ':' << dataset << "</DataItem>";
  return item.str();
}

}  // namespace

void create_point_views(const FileContext& file, hid_t handle, const MeshLayout& layout) {
  const auto points = static_cast<hsize_t>(layout.elements * nodes_per_element(layout.dim, layout.order));
  create_view(file, handle, xdmf_points_path, H5T_IEEE_F64LE, {points, 3}, {points, static_cast<hsize_t>(layout.dim)},
              coordinates_path);
  create_view(file, handle, xdmf_point_ids_path, H5T_STD_I64LE, {points}, {points}, global_ids_path);
}

void write_xdmf(const std::string& xmf_path, const std::string& h5_name, const MeshLayout& layout, bool has_rank) {
  const std::int64_t points = layout.elements * nodes_per_element(layout.dim, layout.order);
  const std::int64_t cells = layout.elements * subcells_per_element(layout.dim, layout.order);
  const int corners = subcell_corners(layout.dim);
  const int index_bytes = subcells_need_int64(layout) ? 8 : 4;
  const std::string p = std::to_string(points), c = std::to_string(cells);

  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<!-- gsr mesh: order " << layout.order << ", " << layout.elements << " elements, each drawn as "
      << subcells_per_element(layout.dim, layout.order) << " linear sub-cells over its own "
      << nodes_per_element(layout.dim, layout.order) << " nodes -->\n"
      << "<Xdmf Version=\"2.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"" << (layout.dim == 2 ? "Quadrilateral" : "Hexahedron")
      << "\" NumberOfElements=\"" << c << "\">\n"
      << "        " << data_item(c + " " + std::to_string(corners), "Int", index_bytes, h5_name, xdmf_cells_path)
      << "\n"
      << "      </Topology>\n"
      << "      <Geometry GeometryType=\"XYZ\">\n"
      << "        " << data_item(p + " 3", "Float", 8, h5_name, xdmf_points_path) << "\n"
      << "      </Geometry>\n"
      << "      <Attribute Name=\"global_id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "        " << data_item(p, "Int", 8, h5_name, xdmf_point_ids_path) << "\n"
      << "      </Attribute>\n";
  if (has_rank)
    xml << "      <Attribute Name=\"rank\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "        " << data_item(c, "Int", 4, h5_name, xdmf_rank_path) << "\n"
        << "      </Attribute>\n";
  xml << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";

  write_text_file(xmf_path, xml.str(), "the XDMF sidecar");
}

}  // namespace io
}  // namespace gsr
