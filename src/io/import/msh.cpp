// io/import/msh.cpp — Gmsh's .msh reader (versions 2.2 and 4.1, ASCII and binary).
//
// How the file is read. Rank 0 reads the whole file (ASCII or binary alike), checks it,
// resolves every volume element's nodes to coordinates and builds one fixed-size record per
// volume element (index, group, corner tags, geometry points); the records are then dealt to
// their block owners with gsr::transfer. Rank 0 so holds the file plus about 0.75 KB per
// volume element at once: meant for meshes up to about a million elements (under 1 GB on
// rank 0); larger meshes want a reader that reads its own part of the file on every rank.
// Boundary elements (dimension dim - 1 with a physical tag) are matched to the volume faces
// on the rank a hash of their sorted corner tags names, so no rank needs every face.
#include "io/import/msh.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>
#include <gsr/transfer.hpp>

#include "io/h5.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"

#include <algorithm>
#include <bit>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gsr::io::import {
namespace {

// ---- element types ------------------------------------------------------------------------------

struct TypeInfo {
  int dim = -1;  // -1: a type this reader does not know
  int nodes = 0;
  const char* plural = "";
};

TypeInfo type_info(int type) {
  switch (type) {
    case 1:
      return {1, 2, "lines"};
    case 2:
      return {2, 3, "triangles"};
    case 3:
      return {2, 4, "quadrilaterals"};
    case 4:
      return {3, 4, "tetrahedra"};
    case 5:
      return {3, 8, "hexahedra"};
    case 6:
      return {3, 6, "prisms"};
    case 7:
      return {3, 5, "pyramids"};
    case 8:
      return {1, 3, "lines"};
    case 9:
      return {2, 6, "triangles"};
    case 10:
      return {2, 9, "quadrilaterals"};
    case 11:
      return {3, 10, "tetrahedra"};
    case 12:
      return {3, 27, "hexahedra"};
    case 13:
      return {3, 18, "prisms"};
    case 14:
      return {3, 14, "pyramids"};
    case 15:
      return {0, 1, "points"};
    case 16:
      return {2, 8, "quadrilaterals"};
    case 17:
      return {3, 20, "hexahedra"};
    case 18:
      return {3, 15, "prisms"};
    case 19:
      return {3, 13, "pyramids"};
    case 20:
      return {2, 9, "triangles"};
    case 21:
      return {2, 10, "triangles"};
    case 22:
      return {2, 12, "triangles"};
    case 23:
      return {2, 15, "triangles"};
    case 24:
      return {2, 15, "triangles"};
    case 25:
      return {2, 21, "triangles"};
    case 26:
      return {1, 4, "lines"};
    case 27:
      return {1, 5, "lines"};
    case 28:
      return {1, 6, "lines"};
    case 29:
      return {3, 20, "tetrahedra"};
    case 30:
      return {3, 35, "tetrahedra"};
    case 31:
      return {3, 56, "tetrahedra"};
    case 92:
      return {3, 64, "hexahedra"};
    case 93:
      return {3, 125, "hexahedra"};
    default:
      return {};
  }
}

bool importable(int type) { return type == 3 || type == 10 || type == 16 || type == 5 || type == 12 || type == 17; }
bool first_order(int type) { return type == 3 || type == 5; }

// Gmsh's node k of a quadrilateral or hexahedron as the Gmsh corners it is the centroid of.
// Quad: corners 0-3 counter-clockwise, edges 4-7 (0,1) (1,2) (2,3) (3,0), centre 8. Hex:
// corners 0-3 bottom and 4-7 top, edges 8-19, faces 20-25, centre 26 (the MSH manual's order).
const std::vector<std::vector<int>>& gmsh_nodes(int dim) {
  static const std::vector<std::vector<int>> quad = {{0}, {1}, {2}, {3}, {0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 1, 2, 3}};
  // clang-format off
  static const std::vector<std::vector<int>> hex = {
      {0}, {1}, {2}, {3}, {4}, {5}, {6}, {7},
      {0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7},
      {0, 1, 2, 3}, {0, 1, 5, 4}, {0, 3, 7, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7},
      {0, 1, 2, 3, 4, 5, 6, 7}};
  // clang-format on
  return dim == 3 ? hex : quad;
}

// Lexicographic corner c -> Gmsh corner (Gmsh's corners are prenek's).
constexpr std::array<int, 8> gmsh_corner = {0, 1, 3, 2, 4, 5, 7, 6};

// Gmsh node k -> lexicographic index of the 3^dim grid (position a + 3 b + 9 c, each in 0..2).
std::vector<int> gmsh_to_grid(int dim) {
  std::array<std::array<int, 3>, 8> corner{};  // Gmsh corner -> position in 0..2
  for (int c = 0; c < 8; ++c) corner[gmsh_corner[c]] = {2 * (c & 1), 2 * ((c >> 1) & 1), 2 * ((c >> 2) & 1)};
  std::vector<int> map;
  for (const auto& of : gmsh_nodes(dim)) {
    std::array<int, 3> sum{};
    for (int c : of)
      for (int a = 0; a < 3; ++a) sum[a] += corner[c][a];
    const int n = static_cast<int>(of.size());
    map.push_back(sum[0] / n + 3 * (sum[1] / n) + 9 * (sum[2] / n));
  }
  return map;
}

// Completes a serendipity (quad8/hex20) 3^dim grid: the face centres and the centre from the
// serendipity interpolant there (face centre: -1/4 its corners + 1/2 its edge midpoints;
// hex centre: -1/4 the corners + 1/4 the edge midpoints).
void complete_serendipity(int dim, double* grid) {
  auto at = [&](int a, int b, int c) { return grid + 3 * (a + 3 * b + 9 * c); };
  auto fill = [&](int a, int b, int c) {
    const std::array<int, 3> p = {a, b, c};
    double* out = at(a, b, c);
    std::fill(out, out + 3, 0.0);
    const int free = static_cast<int>(std::count(p.begin(), p.begin() + dim, 1));
    // Points of the grid sharing p's fixed coordinates, each free one 0, 1 or 2.
    for (int q = 0; q < 27; ++q) {
      std::array<int, 3> r = {q % 3, (q / 3) % 3, q / 9};
      bool on = true;
      int centres = 0;
      for (int x = 0; x < 3; ++x) {
        if (x >= dim)
          on = on && r[x] == 0;
        else if (p[x] != 1)
          on = on && r[x] == p[x];
        else
          centres += r[x] == 1;
      }
      if (!on || centres == free) continue;  // not on p's face/cell, or p itself
      double w = 0.0;
      if (centres == 0)
        w = -0.25;  // a corner
      else if (centres == 1)
        w = free == 2 ? 0.5 : 0.25;  // an edge midpoint
      else
        continue;  // a face centre (for the hex centre)
      for (int x = 0; x < 3; ++x) out[x] += w * at(r[0], r[1], r[2])[x];
    }
  };
  if (dim == 2) {
    fill(1, 1, 0);
    return;
  }
  fill(1, 1, 0), fill(1, 1, 2), fill(1, 0, 1), fill(1, 2, 1), fill(0, 1, 1), fill(2, 1, 1);
  fill(1, 1, 1);
}

template <class T>
T swapped(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

// ---- the parser (rank 0) ------------------------------------------------------------------------

struct Parsed {
  bool v4 = false;
  bool binary = false, swapped = false;                       // for the summary's description of the file
  std::unordered_map<std::int64_t, std::int64_t> node_index;  // tag -> index into xyz
  std::vector<double> xyz;
  struct Element {
    std::int64_t tag = 0;
    int type = 0;
    std::int64_t physical = 0;
    std::size_t first_node = 0;  // into nodes
  };
  std::vector<Element> elements;
  std::vector<std::int64_t> nodes;
  std::map<std::pair<int, std::int64_t>, std::int64_t> entity_physical;  // 4.1: (dim, tag) -> first physical
  std::vector<std::pair<int, std::int64_t>> element_entity;              // 4.1: per element
  std::vector<std::array<std::int64_t, 2>> periodic;
  std::vector<ElementBlock::Name> names;
};

class Parser {
public:
  Parser(const std::string& path, std::string data) : path_(path), data_(std::move(data)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::io, "gsr: file '" + path_ + "': " + what);
  }
  [[noreturn]] void corrupt(const std::string& what) const {
    fail((section_.empty() ? std::string() : "section $" + section_ + ": ") + what + " (truncated or corrupt file)");
  }

  Parsed parse() {
    Parsed out;
    std::string name;
    skip_space();
    if (pos_ < data_.size() && data_[pos_] != '$') corrupt("not a Gmsh .msh file: it does not start with $MeshFormat");
    if (!next_section(name) || name != "MeshFormat") {
      if (name == "NOD" || name == "NOE") fail("MSH version 1.0: gsr reads Gmsh's MSH versions 2.2 and 4.1");
      corrupt("not a Gmsh .msh file: it does not start with $MeshFormat");
    }
    section_ = name;
    const std::string version(token());
    const std::int64_t file_type = ascii_int();
    data_size_ = ascii_int();
    if (version == "2.2" || version == "2.1" || version == "2" || version == "2.0")
      out.v4 = false;
    else if (version == "4.1")
      out.v4 = true;
    else
      fail("MSH version " + version + ": gsr reads Gmsh's MSH versions 2.2 and 4.1 (save as 4.1 or 2.2)");
    if (file_type != 0 && file_type != 1) corrupt("file type " + std::to_string(file_type) + " is neither 0 nor 1");
    if (data_size_ != 4 && data_size_ != 8) corrupt("data size " + std::to_string(data_size_) + " is neither 4 nor 8");
    binary_ = file_type == 1;
    if (binary_) {
      skip_line();
      std::int32_t one = 0;
      need(4);
      std::memcpy(&one, data_.data() + pos_, 4);
      if (one == 1)
        swap_ = false;
      else if (swapped(one) == 1)
        swap_ = true;
      else
        corrupt("the binary check integer is not 1 in either byte order");
      pos_ += 4;
    }
    end_section();
    v4_ = out.v4;
    out.binary = binary_;
    out.swapped = swap_;
    bool have_nodes = false, have_elements = false;
    while (next_section(name)) {
      section_ = name;
      if (name == "PhysicalNames")
        read_names(out);
      else if (name == "Entities" && v4_)
        read_entities(out);
      else if (name == "Nodes")
        read_nodes(out), have_nodes = true;
      else if (name == "Elements")
        read_elements(out), have_elements = true;
      else if (name == "Periodic")
        read_periodic(out);
      else {
        skip_section();
        continue;
      }
      end_section();
    }
    section_.clear();
    if (!have_nodes) corrupt("no $Nodes section");
    if (!have_elements) corrupt("no $Elements section");
    if (v4_) {
      for (std::size_t i = 0; i < out.elements.size(); ++i) {
        const auto it = out.entity_physical.find(out.element_entity[i]);
        out.elements[i].physical = it == out.entity_physical.end() ? 0 : it->second;
      }
    }
    return out;
  }

private:
  // -- low level --
  void need(std::size_t bytes) const {
    if (pos_ + bytes > data_.size()) corrupt("the file ends early");
  }
  void skip_space() {
    while (pos_ < data_.size() && std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
  }
  void skip_line() {
    while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
    if (pos_ < data_.size()) ++pos_;
  }
  std::string_view token() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < data_.size() && !std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
    if (pos_ == start) corrupt("the file ends early");
    return std::string_view(data_).substr(start, pos_ - start);
  }
  std::int64_t ascii_int() {
    const std::string_view t = token();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      corrupt("'" + std::string(t.substr(0, 40)) + "' is not an integer");
    return v;
  }
  double ascii_double() {
    const std::string_view t = token();
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      corrupt("'" + std::string(t.substr(0, 40)) + "' is not a number");
    return v;
  }
  template <class T>
  T raw() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return swap_ ? swapped(v) : v;
  }
  // 4.1's int (int32 in binary) and size_t (data-size bytes in binary); 2.2's binary int.
  std::int64_t get_int() { return binary_ ? raw<std::int32_t>() : ascii_int(); }
  std::int64_t get_size() {
    if (!binary_) return ascii_int();
    return data_size_ == 8 ? static_cast<std::int64_t>(raw<std::uint64_t>()) : raw<std::uint32_t>();
  }
  double get_double() { return binary_ ? raw<double>() : ascii_double(); }
  // A count read from the file: every item it counts takes at least a byte of what is left, so
  // a corrupt count fails here instead of reserving memory for it.
  std::int64_t count(std::int64_t n, const char* what) {
    if (n < 0 || n > static_cast<std::int64_t>(data_.size() - std::min(pos_, data_.size())))
      corrupt(std::string("impossible count of ") + what + ": " + std::to_string(n));
    return n;
  }

  bool next_section(std::string& name) {
    skip_space();
    if (pos_ >= data_.size()) return false;
    if (data_[pos_] != '$') corrupt("expected a section ($Name), found '" + std::string(token().substr(0, 40)) + "'");
    const std::size_t start = ++pos_;
    while (pos_ < data_.size() && data_[pos_] != '\n' && data_[pos_] != '\r') ++pos_;
    name = data_.substr(start, pos_ - start);
    skip_line();
    return true;
  }
  void end_section() {
    skip_space();
    const std::string end = "$End" + section_;
    if (data_.compare(pos_, end.size(), end) != 0) corrupt("no " + end + " where the section should end");
    pos_ += end.size();
    skip_line();
  }
  void skip_section() {
    const std::string end = "\n$End" + section_;
    const std::size_t at = data_.find(end, pos_ == 0 ? 0 : pos_ - 1);
    if (at == std::string::npos) corrupt("no $End" + section_);
    pos_ = at + 1;
    skip_line();
  }

  // -- sections --
  void read_names(Parsed& out) {
    const std::int64_t n = count(ascii_int(), "names");
    for (std::int64_t i = 0; i < n; ++i) {
      ElementBlock::Name name;
      name.dim = static_cast<int>(ascii_int());
      name.tag = ascii_int();
      skip_space();
      if (pos_ >= data_.size() || data_[pos_] != '"') corrupt("a physical name is not in quotes");
      const std::size_t close = data_.find('"', pos_ + 1);
      if (close == std::string::npos) corrupt("a physical name has no closing quote");
      name.name = data_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
      out.names.push_back(std::move(name));
    }
  }

  void read_entities(Parsed& out) {
    std::array<std::int64_t, 4> n{};
    for (auto& x : n) x = count(get_size(), "entities");
    for (int dim = 0; dim < 4; ++dim) {
      for (std::int64_t i = 0; i < n[dim]; ++i) {
        const std::int64_t tag = get_int();
        for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) (void)get_double();
        const std::int64_t phys = count(get_size(), "physical tags");
        std::int64_t first = 0;
        for (std::int64_t k = 0; k < phys; ++k) {
          const std::int64_t p = get_int();
          if (k == 0) first = p;
        }
        out.entity_physical[{dim, tag}] = first;
        if (dim > 0) {
          const std::int64_t bounds = count(get_size(), "bounding entities");
          for (std::int64_t k = 0; k < bounds; ++k) (void)get_int();
        }
      }
    }
  }

  void add_node(Parsed& out, std::int64_t tag, double x, double y, double z) {
    if (!out.node_index.emplace(tag, static_cast<std::int64_t>(out.xyz.size() / 3)).second)
      corrupt("node " + std::to_string(tag) + " is defined twice");
    out.xyz.insert(out.xyz.end(), {x, y, z});
  }

  void read_nodes(Parsed& out) {
    if (!v4_) {
      const std::int64_t n = count(ascii_int(), "nodes");
      if (binary_) skip_line();
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t tag = binary_ ? raw<std::int32_t>() : ascii_int();
        const double x = get_double(), y = get_double(), z = get_double();
        add_node(out, tag, x, y, z);
      }
      return;
    }
    const std::int64_t blocks = count(get_size(), "node blocks");
    (void)get_size(), (void)get_size(), (void)get_size();
    std::vector<std::int64_t> tags;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t dim = get_int();
      (void)get_int();
      const std::int64_t parametric = get_int();
      const std::int64_t n = count(get_size(), "nodes");
      tags.resize(static_cast<std::size_t>(n));
      for (auto& t : tags) t = get_size();
      const int extra = parametric ? static_cast<int>(std::clamp<std::int64_t>(dim, 0, 2)) : 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double x = get_double(), y = get_double(), z = get_double();
        for (int k = 0; k < extra; ++k) (void)get_double();
        add_node(out, tags[static_cast<std::size_t>(i)], x, y, z);
      }
    }
  }

  void add_element(Parsed& out, std::int64_t tag, int type, std::int64_t physical) {
    out.elements.push_back({tag, type, physical, out.nodes.size()});
  }
  TypeInfo known(int type, std::int64_t tag) const {
    const TypeInfo info = type_info(type);
    if (info.dim < 0)
      corrupt((tag > 0 ? "element " + std::to_string(tag) : std::string("an element block")) +
              ": unknown element type " + std::to_string(type));
    return info;
  }

  void read_elements(Parsed& out) {
    if (!v4_) {
      const std::int64_t n = count(ascii_int(), "elements");
      if (!binary_) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t tag = ascii_int();
          const int type = static_cast<int>(ascii_int());
          const TypeInfo info = known(type, tag);
          const std::int64_t ntags = count(ascii_int(), "tags");
          std::int64_t physical = 0;
          for (std::int64_t k = 0; k < ntags; ++k) {
            const std::int64_t t = ascii_int();
            if (k == 0) physical = t;
          }
          add_element(out, tag, type, physical);
          for (int k = 0; k < info.nodes; ++k) out.nodes.push_back(ascii_int());
        }
        return;
      }
      skip_line();
      std::int64_t done = 0;
      while (done < n) {
        const int type = raw<std::int32_t>();
        const std::int64_t m = count(raw<std::int32_t>(), "elements");
        const std::int64_t ntags = count(raw<std::int32_t>(), "tags");
        const TypeInfo info = known(type, 0);
        if (m == 0) corrupt("an element block of 0 elements");
        for (std::int64_t i = 0; i < m; ++i) {
          const std::int64_t tag = raw<std::int32_t>();
          std::int64_t physical = 0;
          for (std::int64_t k = 0; k < ntags; ++k) {
            const std::int64_t t = raw<std::int32_t>();
            if (k == 0) physical = t;
          }
          add_element(out, tag, type, physical);
          for (int k = 0; k < info.nodes; ++k) out.nodes.push_back(raw<std::int32_t>());
        }
        done += m;
      }
      if (done != n) corrupt("the element blocks hold more elements than announced");
      return;
    }
    const std::int64_t blocks = count(get_size(), "element blocks");
    (void)get_size(), (void)get_size(), (void)get_size();
    for (std::int64_t b = 0; b < blocks; ++b) {
      const int dim = static_cast<int>(get_int());
      const std::int64_t entity = get_int();
      const int type = static_cast<int>(get_int());
      const std::int64_t m = count(get_size(), "elements");
      const TypeInfo info = known(type, 0);
      for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t tag = get_size();
        add_element(out, tag, type, 0);
        out.element_entity.emplace_back(dim, entity);
        for (int k = 0; k < info.nodes; ++k) out.nodes.push_back(get_size());
      }
    }
  }

  void read_periodic(Parsed& out) {
    // 2.2 writes this section in ASCII also in binary files; 4.1 in the file's encoding.
    const bool was_binary = binary_;
    if (!v4_) binary_ = false;
    const std::int64_t links = count(v4_ ? get_size() : ascii_int(), "periodic links");
    for (std::int64_t l = 0; l < links; ++l) {
      (void)get_int(), (void)get_int(), (void)get_int();
      std::int64_t pairs = 0;
      if (v4_) {
        const std::int64_t affine = count(get_size(), "affine values");
        for (std::int64_t k = 0; k < affine; ++k) (void)get_double();
        pairs = count(get_size(), "periodic nodes");
      } else {
        skip_space();
        if (data_.compare(pos_, 6, "Affine") == 0) skip_line();
        pairs = count(ascii_int(), "periodic nodes");
      }
      for (std::int64_t k = 0; k < pairs; ++k) {
        const std::int64_t node = v4_ ? get_size() : ascii_int();
        const std::int64_t master = v4_ ? get_size() : ascii_int();
        out.periodic.push_back({node, master});
      }
    }
    binary_ = was_binary;
  }

  std::string path_;
  std::string data_;
  std::size_t pos_ = 0;
  std::string section_;
  bool binary_ = false, swap_ = false, v4_ = false;
  std::int64_t data_size_ = 8;
};

// ---- records that travel ------------------------------------------------------------------------

struct VolumeRecord {
  std::int64_t index = 0;
  std::int64_t group = 0;
  std::int64_t vertices[8] = {};
  double points[81] = {};
};

struct FaceKey {
  std::int64_t key[4] = {};   // sorted corner tags (2 in 2-D, the rest 0)
  std::int64_t element = -1;  // a volume face: its element (0-based); -1: a boundary element
  std::int64_t tag = 0;       // a boundary element: its physical tag
  std::int64_t gmsh_tag = 0;  // a boundary element: its Gmsh element tag
  std::int32_t face = 0;
  std::int32_t corners = 0;  // of the boundary element (a triangle has 3 and matches nothing)
};

// Insertion sort of a face's few corner tags (std::sort there trips GCC 12's -Warray-bounds).
void sort_small(std::int64_t* v, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && v[j - 1] > v[j]; --j) std::swap(v[j - 1], v[j]);
}

int hash_owner(const FaceKey& k, int ranks) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::int64_t v : k.key) {
    h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return static_cast<int>(h % static_cast<std::uint64_t>(ranks));
}

int block_owner(std::int64_t element, std::int64_t elements, int ranks) {
  // block_range gives the first ranks one element more: search the ranks (few) by bisection.
  int lo = 0, hi = ranks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (block_range(elements, mid, ranks)[0] <= element)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// What every rank learns from rank 0, as bytes.
struct Header {
  std::int64_t dim = 0, geometry = 2, elements = 0, names = 0, periodic = 0;
  std::int64_t v4 = 0, binary = 0, swapped = 0;
};

std::string message_prefix(const std::string& path) { return "gsr: file '" + path + "': "; }

// Rank 0's checks of what it parsed and its volume records and boundary keys.
struct Prepared {
  Header header;
  std::vector<VolumeRecord> volumes;
  std::vector<FaceKey> boundary;
};

Prepared prepare(const std::string& path, Parsed& parsed) {
  const std::string prefix = message_prefix(path);
  Prepared out;
  int dim = 0;
  for (const auto& e : parsed.elements) dim = std::max(dim, type_info(e.type).dim);
  const std::string pitfall =
      "; Gmsh saves only the elements of physical groups once any is defined: add a Physical Volume "
      "(Physical Surface in 2-D) for the mesh, or set Mesh.SaveAll = 1";
  if (dim < 2)
    throw Error(
        ErrorCode::io,
        prefix + "no volume elements (no quadrilaterals or hexahedra, no element of dimension 2 or 3)" + pitfall);
  std::map<int, std::int64_t> by_type;
  for (const auto& e : parsed.elements)
    if (type_info(e.type).dim == dim) ++by_type[e.type];
  std::string bad;
  for (const auto& [type, n] : by_type)
    if (!importable(type))
      bad += (bad.empty() ? "" : ", ") + std::to_string(n) + " " + type_info(type).plural + " (type " +
             std::to_string(type) + ")";
  const char* kind = dim == 3 ? "hexahedra" : "quadrilaterals";
  if (!bad.empty())
    throw Error(ErrorCode::io, prefix + std::to_string(dim) + "-D elements of types it cannot import: " + bad +
                                   "; gsr imports " + kind + " only");
  if (by_type.size() > 1) {
    std::string mix;
    for (const auto& [type, n] : by_type)
      mix += (mix.empty() ? "" : ", ") + std::to_string(n) + " of type " + std::to_string(type);
    throw Error(ErrorCode::io, prefix + std::to_string(dim) + "-D elements of more than one type: " + mix +
                                   "; gsr imports " + kind + " of one type per file");
  }
  const int type = by_type.begin()->first;
  const int g = first_order(type) ? 2 : 3;
  const int nodes = type_info(type).nodes;
  const std::vector<int> to_grid = gmsh_to_grid(dim);

  auto node = [&](const Parsed::Element& e, std::int64_t tag) -> const double* {
    const auto it = parsed.node_index.find(tag);
    if (it == parsed.node_index.end())
      throw Error(ErrorCode::io, prefix + "element " + std::to_string(e.tag) + ": node " + std::to_string(tag) +
                                     " is not defined in $Nodes");
    return parsed.xyz.data() + 3 * it->second;
  };

  double z0 = 0.0;
  bool have_z = false;
  for (const auto& e : parsed.elements) {
    if (e.type != type) continue;
    VolumeRecord r;
    r.index = static_cast<std::int64_t>(out.volumes.size());
    r.group = e.physical;
    const std::int64_t* tags = parsed.nodes.data() + e.first_node;
    for (int c = 0; c < corners_per_element(dim); ++c) r.vertices[c] = tags[gmsh_corner[c]];
    if (g == 2) {
      for (int c = 0; c < corners_per_element(dim); ++c) std::copy_n(node(e, r.vertices[c]), 3, r.points + 3 * c);
    } else {
      for (int k = 0; k < nodes; ++k) std::copy_n(node(e, tags[k]), 3, r.points + 3 * to_grid[k]);
      if (type == 16 || type == 17) complete_serendipity(dim, r.points);
    }
    if (dim == 2) {
      for (int k = 0; k < nodes; ++k) {
        const double z = node(e, tags[k])[2];
        if (!have_z) z0 = z, have_z = true;
        if (std::abs(z - z0) > 1e-9 * (1.0 + std::abs(z0)))
          throw Error(ErrorCode::io, prefix +
                                         "no volume elements: its highest-dimensional elements are quadrilaterals "
                                         "that do not lie in one plane z = const (surfaces of a 3-D mesh, element " +
                                         std::to_string(e.tag) + ")" + pitfall);
      }
      for (int p = 0; p < g * g; ++p) r.points[3 * p + 2] = 0.0;
    }
    out.volumes.push_back(r);
  }
  for (const auto& e : parsed.elements) {
    const TypeInfo info = type_info(e.type);
    if (info.dim != dim - 1 || e.physical == 0) continue;
    FaceKey k;
    k.tag = e.physical;
    k.gmsh_tag = e.tag;
    const int corners = info.dim == 1 ? 2 : (e.type == 3 || e.type == 10 || e.type == 16 ? 4 : 3);
    k.corners = corners;
    const std::int64_t* tags = parsed.nodes.data() + e.first_node;
    for (int c = 0; c < corners; ++c) {
      (void)node(e, tags[c]);
      k.key[c] = tags[c];
    }
    sort_small(k.key, static_cast<std::size_t>(corners));
    if (corners == 3) k.key[3] = -1;  // a triangle: matches no face
    out.boundary.push_back(k);
  }
  out.header.dim = dim;
  out.header.geometry = g;
  out.header.elements = static_cast<std::int64_t>(out.volumes.size());
  out.header.v4 = parsed.v4;
  out.header.binary = parsed.binary;
  out.header.swapped = parsed.swapped;
  return out;
}

template <class T>
void put(std::string& bytes, const T& v) {
  bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <class T>
T take(const std::string& bytes, std::size_t& at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

}  // namespace

ElementBlock read_msh(const std::string& path, MPI_Comm comm) {
  const double timeout = detail::timeout_or_default({});
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  Prepared prepared;
  Parsed parsed;
  agreed(comm, [&] {
    if (rank != 0) return;
    std::error_code folder_error;
    if (std::filesystem::is_directory(path, folder_error))  // opens, but reads nothing
      throw Error(ErrorCode::io, message_prefix(path) + "cannot open it for reading: it is a folder");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, message_prefix(path) + "cannot open it for reading");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw Error(ErrorCode::io, message_prefix(path) + "cannot read it");
    parsed = Parser(path, std::move(text).str()).parse();
    prepared = prepare(path, parsed);
  });

  // Header, names and periodic pairs to every rank.
  std::string bytes;
  if (rank == 0) {
    Header h = prepared.header;
    h.names = static_cast<std::int64_t>(parsed.names.size());
    h.periodic = static_cast<std::int64_t>(parsed.periodic.size());
    put(bytes, h);
    for (const auto& n : parsed.names) {
      put(bytes, static_cast<std::int64_t>(n.dim)), put(bytes, n.tag),
          put(bytes, static_cast<std::int64_t>(n.name.size()));
      bytes += n.name;
    }
    for (const auto& p : parsed.periodic) put(bytes, p);
  }
  std::int64_t size = static_cast<std::int64_t>(bytes.size());
  detail::bcast_polled(&size, sizeof size, 0, comm, timeout);
  bytes.resize(static_cast<std::size_t>(size));
  detail::bcast_polled(bytes.data(), static_cast<int>(size), 0, comm, timeout);

  ElementBlock block;
  block.source = path;
  std::size_t at = 0;
  const Header h = take<Header>(bytes, at);
  for (std::int64_t i = 0; i < h.names; ++i) {
    ElementBlock::Name n;
    n.dim = static_cast<int>(take<std::int64_t>(bytes, at));
    n.tag = take<std::int64_t>(bytes, at);
    const auto length = static_cast<std::size_t>(take<std::int64_t>(bytes, at));
    n.name = bytes.substr(at, length);
    at += length;
    block.names.push_back(std::move(n));
  }
  for (std::int64_t i = 0; i < h.periodic; ++i)
    block.periodic_nodes.push_back(take<std::array<std::int64_t, 2>>(bytes, at));

  const int dim = static_cast<int>(h.dim);
  block.dim = dim;
  block.format = std::string("Gmsh ") + (h.v4 ? "4.1" : "2.2") +
                 (h.binary ? (h.swapped == (std::endian::native == std::endian::little) ? " binary, big-endian"
                                                                                        : " binary, little-endian")
                           : " ASCII");
  block.vertex_source = "node tags";
  block.elements = block.fluid_elements = h.elements;
  block.geometry = static_cast<int>(h.geometry);
  block.fields = 1;
  const auto range = block_range(h.elements, rank, ranks);
  block.first = range[0];
  block.count = range[1] - range[0];

  // Deal the volume elements to their block owners.
  std::vector<int> owners;
  owners.reserve(prepared.volumes.size());
  for (const auto& r : prepared.volumes) owners.push_back(block_owner(r.index, h.elements, ranks));
  auto mine = transfer(prepared.volumes, owners, comm).records;
  prepared.volumes.clear();
  prepared.volumes.shrink_to_fit();
  std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  const int corners = corners_per_element(dim);
  const int points = dim == 3 ? block.geometry * block.geometry * block.geometry : block.geometry * block.geometry;
  for (const auto& r : mine) {
    block.vertices.insert(block.vertices.end(), r.vertices, r.vertices + corners);
    block.points.insert(block.points.end(), r.points, r.points + 3 * points);
    block.groups.push_back(r.group);
  }

  // Faces: every volume face and every boundary element to the rank its key hashes to.
  std::vector<FaceKey> keys = std::move(prepared.boundary);
  for (const auto& r : mine) {
    for (int f = 0; f < faces_per_element(dim); ++f) {
      FaceKey k;
      k.element = r.index;
      k.face = f;
      std::array<std::int64_t, 4> key{};
      std::size_t n = 0;
      for (int c = 0; c < corners; ++c)
        if (((c >> (f / 2)) & 1) == f % 2 && n < key.size()) key[n++] = r.vertices[c];
      sort_small(key.data(), n);
      std::copy(key.begin(), key.end(), k.key);
      keys.push_back(k);
    }
  }
  std::vector<int> to;
  to.reserve(keys.size());
  for (const auto& k : keys) to.push_back(hash_owner(k, ranks));
  auto here = transfer(keys, to, comm).records;
  keys.clear();
  std::sort(here.begin(), here.end(), [](const FaceKey& a, const FaceKey& b) {
    return std::lexicographical_compare(a.key, a.key + 4, b.key, b.key + 4) ||
           (std::equal(a.key, a.key + 4, b.key) && a.element < b.element);
  });
  std::vector<FaceRecord> records;
  std::vector<int> record_owner;
  agreed(comm, [&] {
    const FaceKey* unmatched = nullptr;
    for (std::size_t i = 0; i < here.size();) {
      std::size_t j = i;
      while (j < here.size() && std::equal(here[i].key, here[i].key + 4, here[j].key)) ++j;
      for (std::size_t b = i; b < j && here[b].element < 0; ++b) {
        bool matched = false;
        for (std::size_t v = i; v < j; ++v) {
          if (here[v].element < 0) continue;
          FaceRecord rec;
          rec.element = here[v].element;
          rec.face = here[v].face;
          rec.tag = here[b].tag;
          records.push_back(rec);
          record_owner.push_back(block_owner(rec.element, h.elements, ranks));
          matched = true;
        }
        if (!matched && (unmatched == nullptr || here[b].gmsh_tag < unmatched->gmsh_tag)) unmatched = &here[b];
      }
      i = j;
    }
    if (unmatched != nullptr) {
      const FaceKey& k = *unmatched;
      std::string corners_text;
      for (int c = 0; c < k.corners; ++c) corners_text += (c ? " " : "") + std::to_string(k.key[c]);
      throw Error(ErrorCode::io, message_prefix(path) + "element " + std::to_string(k.gmsh_tag) + " (physical tag " +
                                     std::to_string(k.tag) + ", corner nodes " + corners_text +
                                     ") is not a face of any volume element");
    }
  });
  block.faces = transfer(records, record_owner, comm).records;
  std::sort(block.faces.begin(), block.faces.end(), [](const FaceRecord& a, const FaceRecord& b) {
    return std::tie(a.element, a.face, a.tag) < std::tie(b.element, b.face, b.tag);
  });
  return block;
}

}  // namespace gsr::io::import
