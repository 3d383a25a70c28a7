// io/xdmf.cpp — XDMF (version 2) sidecar text and the linear sub-cells it draws.
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
  return layout.elements * nodes_per_element(layout.dim, layout.order) >
         std::numeric_limits<std::int32_t>::max();
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

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string data_item(const std::string& dimensions, const char* number_type, int precision,
                      const std::string& h5_name, const char* dataset) {
  std::ostringstream item;
  item << "<DataItem Dimensions=\"" << dimensions << "\" NumberType=\"" << number_type
       << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << xml_escape(h5_name) << ':'
       << dataset << "</DataItem>";
  return item.str();
}

}  // namespace

void write_xdmf(const std::string& xmf_path, const std::string& h5_name, const MeshLayout& layout,
                bool has_rank) {
  const std::int64_t nodes = nodes_per_element(layout.dim, layout.order);
  const std::int64_t cells = layout.elements * subcells_per_element(layout.dim, layout.order);
  const int corners = subcell_corners(layout.dim);
  const int index_bytes = subcells_need_int64(layout) ? 8 : 4;
  const std::string e = std::to_string(layout.elements), n = std::to_string(nodes);

  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<!-- gsr mesh: order " << layout.order << ", " << layout.elements << " elements, each drawn as "
      << subcells_per_element(layout.dim, layout.order) << " linear sub-cells -->\n"
      << "<Xdmf Version=\"2.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"" << (layout.dim == 2 ? "Quadrilateral" : "Hexahedron")
      << "\" NumberOfElements=\"" << cells << "\">\n"
      << "        " << data_item(std::to_string(cells) + " " + std::to_string(corners), "Int", index_bytes, h5_name, xdmf_cells_path) << "\n"
      << "      </Topology>\n"
      << "      <Geometry GeometryType=\"" << (layout.dim == 2 ? "XY" : "XYZ") << "\">\n"
      << "        " << data_item(e + " " + n + " " + std::to_string(layout.dim), "Float", 8, h5_name, coordinates_path) << "\n"
      << "      </Geometry>\n"
      << "      <Attribute Name=\"global_id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "        " << data_item(e + " " + n, "Int", 8, h5_name, global_ids_path) << "\n"
      << "      </Attribute>\n";
  if (has_rank)
    xml << "      <Attribute Name=\"rank\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "        " << data_item(std::to_string(cells), "Int", 4, h5_name, xdmf_rank_path) << "\n"
        << "      </Attribute>\n";
  xml << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";

  write_text_file(xmf_path, xml.str(), "the XDMF sidecar");
}

}  // namespace io
}  // namespace gsr
