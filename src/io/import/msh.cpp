// io/import/msh.cpp — Gmsh's .msh reader (versions 2.2 and 4.1, ASCII and binary).
//
// How the file is read.
//   - Rank 0 opens the file and reads $MeshFormat. An ASCII file it then reads whole: it
//     checks it, resolves every volume element's nodes to coordinates and builds one
//     fixed-size record per volume element (index, group, corner tags, geometry points),
//     which are dealt to their block owners with gsr::transfer. Rank 0 so holds the file plus
//     about 0.75 KB per volume element: meant for ASCII files up to about a million elements
//     (under 1 GB on rank 0).
//   - A binary file rank 0 only scans, through a 64 KB window (pread): it reads the small
//     sections ($PhysicalNames, $Entities, $Periodic) and the block headers of $Nodes and
//     $Elements, and steps over the records themselves (checking that the file holds them);
//     unknown sections are searched for their $End line. The record layout (a few words per
//     block), the names and the periodic pairs go to every rank (bcast_polled). Every rank
//     then reads an even share of the node records and of the element records by offset:
//     nodes (tag, x, y, z) travel to the rank their tag hashes to, which finds tags defined
//     twice; each rank asks those ranks for the nodes of the volume and boundary elements it
//     read (two more transfers), builds the volume records (element i: the i-th volume
//     element in file order, counted from the block headers) and deals them as above. No
//     rank holds the file or all nodes: about 1.5 KB per element of its share plus 0.1 KB per
//     node it holds; the checks find the first problem in file order (a polled min), so
//     the message is the whole-file reader's at any rank count.
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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
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

// ---- the file's bytes ---------------------------------------------------------------------------

// The file's bytes as the parser sees them: either all of it in memory (the ASCII path), or
// the open file read by pread through a small window (the binary scan and the ranks' shares),
// so that no rank holds the whole of a binary file.
class Source {
public:
  explicit Source(std::string whole) : window_(std::move(whole)), size_(window_.size()) {}
  Source(int fd, std::size_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}

  std::size_t size() const { return size_; }
  char operator[](std::size_t at) {
    load(at, 1);
    return window_[at - base_];
  }
  // Copies bytes [at, at + n) (the caller has checked at + n <= size()).
  void copy(std::size_t at, std::size_t n, void* out) {
    if (fd_ < 0 || n > chunk) {
      if (fd_ < 0) {
        std::memcpy(out, window_.data() + at, n);
        return;
      }
      fill(at, n, static_cast<char*>(out));
      return;
    }
    load(at, n);
    std::memcpy(out, window_.data() + (at - base_), n);
  }
  bool starts_with(std::size_t at, std::string_view text) {
    if (at + text.size() > size_) return false;
    std::string got(text.size(), '\0');
    copy(at, text.size(), got.data());
    return got == text;
  }
  std::string substr(std::size_t at, std::size_t n) {
    n = std::min(n, size_ - std::min(at, size_));
    std::string got(n, '\0');
    copy(at, n, got.data());
    return got;
  }
  std::size_t find(std::string_view text, std::size_t from) {
    if (fd_ < 0) return window_.find(text, from);
    // Window after window, overlapping by the text's length.
    for (std::size_t at = from; at + text.size() <= size_;) {
      load(at, std::min(text.size(), size_ - at));
      const std::size_t hit = std::string_view(window_).substr(at - base_).find(text);
      if (hit != std::string_view::npos) return at + hit;
      const std::size_t end = base_ + window_.size();
      if (end >= size_) break;
      at = std::max(at + 1, end - std::min(end - at, text.size() - 1));
    }
    return std::string::npos;
  }
  std::size_t find(char c, std::size_t from) { return find(std::string_view(&c, 1), from); }

  // Reads bytes [at, at + n) of the file into out; false if the file is shorter.
  bool read_at(std::size_t at, std::size_t n, char* out) const {
    while (n > 0) {
      const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(at));
      if (got <= 0) return false;
      out += got, at += static_cast<std::size_t>(got), n -= static_cast<std::size_t>(got);
    }
    return true;
  }

private:
  static constexpr std::size_t chunk = 1 << 16;
  void load(std::size_t at, std::size_t n) {
    if (fd_ < 0 || (at >= base_ && at + n <= base_ + window_.size())) return;
    base_ = at;
    window_.resize(std::min(std::max(chunk, n), size_ - at));
    fill(at, window_.size(), window_.data());
  }

  void fill(std::size_t at, std::size_t n, char* out) const {
    if (!read_at(at, n, out)) throw Error(ErrorCode::io, "gsr: file '" + path_ + "': cannot read it");
  }

  int fd_ = -1;
  std::string window_;
  std::size_t base_ = 0;
  std::size_t size_ = 0;
  std::string path_;
};

// ---- the parser (rank 0: an ASCII file, or a binary file's scan) ---------------------------------

// Where a binary file's node and element records lie (the scan's result, on every rank).
struct NodeBlock {
  std::int64_t first = 0;  // index of its first node in file order
  std::int64_t n = 0;
  std::int64_t tags_at = 0, tag_stride = 0, tag_bytes = 0;  // node i's tag at tags_at + i tag_stride
  std::int64_t xyz_at = 0, xyz_stride = 0;                  // node i's x, y, z (doubles) likewise
};
struct ElementBlockAt {
  std::int64_t first = 0;  // index of its first element in file order
  std::int64_t m = 0;
  std::int64_t at = 0, record = 0;  // element i's record at at + i record
  std::int64_t type = 0;
  std::int64_t ntags = 0;      // 2.2: tags after the element tag (the first is the physical tag)
  std::int64_t int_bytes = 4;  // 2.2: int32 fields; 4.1: size_t fields of the data size
  std::int64_t entity_dim = 0, entity = 0;
  std::int64_t physical = 0;  // 4.1: its entity's first physical tag
  std::int64_t stride = 0;    // element i's record at at + i stride (2.2 blocks of one element
                              // each, as some writers give, are one run whose stride spans a header)
};

struct Parsed {
  bool stopped_ascii = false;  // the scan stopped at an ASCII file's $MeshFormat
  std::vector<NodeBlock> node_blocks;
  std::vector<ElementBlockAt> element_blocks;
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
  // scan: a binary file's node and element records are not read but located (Parsed's
  // node_blocks and element_blocks); an ASCII file stops the parse after $MeshFormat.
  Parser(const std::string& path, Source data, bool scan = false) : path_(path), data_(std::move(data)), scan_(scan) {}

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
      data_.copy(pos_, 4, &one);
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
    if (scan_ && !binary_) {
      out.stopped_ascii = true;
      return out;
    }
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
      for (auto& b : out.element_blocks) {
        const auto it = out.entity_physical.find({static_cast<int>(b.entity_dim), b.entity});
        b.physical = it == out.entity_physical.end() ? 0 : it->second;
      }
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
  std::string token() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < data_.size() && !std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
    if (pos_ == start) corrupt("the file ends early");
    return data_.substr(start, pos_ - start);
  }
  std::int64_t ascii_int() {
    const std::string t = token();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      corrupt("'" + std::string(t.substr(0, 40)) + "' is not an integer");
    return v;
  }
  double ascii_double() {
    const std::string t = token();
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
    data_.copy(pos_, sizeof(T), &v);
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
    if (!data_.starts_with(pos_, end)) corrupt("no " + end + " where the section should end");
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

  // The scan passes over n records of `record` bytes each, checking that the file holds them.
  void skip_records(std::int64_t n, std::int64_t record) {
    const auto left = static_cast<std::int64_t>(data_.size() - std::min(pos_, data_.size()));
    if (n < 0 || record < 0 || (record > 0 && n > left / record)) corrupt("the file ends early");
    pos_ += static_cast<std::size_t>(n * record);
  }
  std::int64_t nodes_so_far(const Parsed& out) const {
    return out.node_blocks.empty() ? 0 : out.node_blocks.back().first + out.node_blocks.back().n;
  }
  std::int64_t elements_so_far(const Parsed& out) const {
    return out.element_blocks.empty() ? 0 : out.element_blocks.back().first + out.element_blocks.back().m;
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
      if (scan_) {
        const auto at = static_cast<std::int64_t>(pos_);
        out.node_blocks.push_back({nodes_so_far(out), n, at, 28, 4, at + 4, 28});
        skip_records(n, 28);
        return;
      }
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
      const int extra = parametric ? static_cast<int>(std::clamp<std::int64_t>(dim, 0, 2)) : 0;
      if (scan_) {
        const auto at = static_cast<std::int64_t>(pos_);
        skip_records(n, data_size_);
        const auto xyz = static_cast<std::int64_t>(pos_);
        out.node_blocks.push_back({nodes_so_far(out), n, at, data_size_, data_size_, xyz, 8 * (3 + extra)});
        skip_records(n, 8 * (3 + extra));
        continue;
      }
      tags.resize(static_cast<std::size_t>(n));
      for (auto& t : tags) t = get_size();
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
        if (scan_) {
          const std::int64_t record = 4 * (1 + ntags + info.nodes);
          const auto at = static_cast<std::int64_t>(pos_);
          ElementBlockAt* last = out.element_blocks.empty() ? nullptr : &out.element_blocks.back();
          if (m == 1 && last != nullptr && last->type == type && last->ntags == ntags &&
              (last->m == 1 || last->stride == record + 12) && at == last->at + last->m * (record + 12)) {
            last->stride = record + 12, ++last->m;  // one more single after the run's last
          } else {
            out.element_blocks.push_back({elements_so_far(out), m, at, record, type, ntags, 4, 0, 0, 0, record});
          }
          skip_records(m, record);
          done += m;
          continue;
        }
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
      if (scan_) {
        const std::int64_t record = data_size_ * (1 + info.nodes);
        out.element_blocks.push_back({elements_so_far(out), m, static_cast<std::int64_t>(pos_), record, type, 0,
                                      data_size_, dim, entity, 0, record});
        skip_records(m, record);
        continue;
      }
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
        if (data_.starts_with(pos_, "Affine")) skip_line();
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
  Source data_;
  std::size_t pos_ = 0;
  std::string section_;
  bool binary_ = false, swap_ = false, v4_ = false;
  std::int64_t data_size_ = 8;
  bool scan_ = false;
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

const char* const pitfall =
    "; Gmsh saves only the elements of physical groups once any is defined: add a Physical Volume "
    "(Physical Surface in 2-D) for the mesh, or set Mesh.SaveAll = 1";

std::string missing_node(const std::string& path, std::int64_t element, std::int64_t node) {
  return message_prefix(path) + "Gmsh element " + std::to_string(element) + ": node " + std::to_string(node) +
         " is not defined in $Nodes";
}

// The volume elements' dimension and type from the element count of every type; throws for a
// file with none, or with types gsr cannot import, or more than one.
std::pair<int, int> volume_type(const std::string& path, const std::map<int, std::int64_t>& all) {
  const std::string prefix = message_prefix(path);
  int dim = 0;
  for (const auto& [type, n] : all)
    if (n > 0) dim = std::max(dim, type_info(type).dim);
  if (dim < 2)
    throw Error(
        ErrorCode::io,
        prefix + "no volume elements (no quadrilaterals or hexahedra, no element of dimension 2 or 3)" + pitfall);
  std::map<int, std::int64_t> by_type;
  for (const auto& [type, n] : all)
    if (n > 0 && type_info(type).dim == dim) by_type[type] += n;
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
  return {dim, by_type.begin()->first};
}

// Fills a volume record's corners and points from its element's node tags (node(tag): the
// node's x, y, z, or nullptr for a tag $Nodes does not define); returns the element's
// problem as the message that names it, or "" when there is none. In 2-D every node must lie
// in the plane z = z0 (the first node's z: have_z false sets it).
template <class Node>
std::string fill_volume(const std::string& path, int dim, int type, std::int64_t gmsh_tag, const std::int64_t* tags,
                        Node&& node, double& z0, bool& have_z, VolumeRecord& r) {
  const int g = first_order(type) ? 2 : 3;
  const int nodes = type_info(type).nodes;
  static const std::vector<int> grid2 = gmsh_to_grid(2), grid3 = gmsh_to_grid(3);
  const std::vector<int>& to_grid = dim == 3 ? grid3 : grid2;
  for (int c = 0; c < corners_per_element(dim); ++c) r.vertices[c] = tags[gmsh_corner[c]];
  if (g == 2) {
    for (int c = 0; c < corners_per_element(dim); ++c) {
      const double* xyz = node(r.vertices[c]);
      if (xyz == nullptr) return missing_node(path, gmsh_tag, r.vertices[c]);
      std::copy_n(xyz, 3, r.points + 3 * c);
    }
  } else {
    for (int k = 0; k < nodes; ++k) {
      const double* xyz = node(tags[k]);
      if (xyz == nullptr) return missing_node(path, gmsh_tag, tags[k]);
      std::copy_n(xyz, 3, r.points + 3 * to_grid[k]);
    }
    if (type == 16 || type == 17) complete_serendipity(dim, r.points);
  }
  if (dim == 2) {
    for (int k = 0; k < nodes; ++k) {
      const double* xyz = node(tags[k]);
      if (xyz == nullptr) return missing_node(path, gmsh_tag, tags[k]);
      const double z = xyz[2];
      if (!have_z) z0 = z, have_z = true;
      if (std::abs(z - z0) > 1e-9 * (1.0 + std::abs(z0)))
        return message_prefix(path) +
               "no volume elements: its highest-dimensional elements are quadrilaterals "
               "that do not lie in one plane z = const (surfaces of a 3-D mesh, element " +
               std::to_string(gmsh_tag) + ")" + pitfall;
    }
    for (int p = 0; p < g * g; ++p) r.points[3 * p + 2] = 0.0;
  }
  return {};
}

// A boundary element's key (its sorted corner tags); returns its problem's message or "".
template <class Node>
std::string fill_boundary(const std::string& path, int type, std::int64_t gmsh_tag, std::int64_t physical,
                          const std::int64_t* tags, Node&& node, FaceKey& k) {
  const TypeInfo info = type_info(type);
  k.tag = physical;
  k.gmsh_tag = gmsh_tag;
  const int corners = info.dim == 1 ? 2 : (type == 3 || type == 10 || type == 16 ? 4 : 3);
  k.corners = corners;
  for (int c = 0; c < corners; ++c) {
    if (node(tags[c]) == nullptr) return missing_node(path, gmsh_tag, tags[c]);
    k.key[c] = tags[c];
  }
  sort_small(k.key, static_cast<std::size_t>(corners));
  if (corners == 3) k.key[3] = -1;  // a triangle: matches no face
  return {};
}

Prepared prepare(const std::string& path, Parsed& parsed) {
  Prepared out;
  std::map<int, std::int64_t> all;
  for (const auto& e : parsed.elements) ++all[e.type];
  const auto [dim, type] = volume_type(path, all);
  auto node = [&](std::int64_t tag) -> const double* {
    const auto it = parsed.node_index.find(tag);
    return it == parsed.node_index.end() ? nullptr : parsed.xyz.data() + 3 * it->second;
  };
  double z0 = 0.0;
  bool have_z = false;
  for (const auto& e : parsed.elements) {
    if (e.type != type) continue;
    VolumeRecord r;
    r.index = static_cast<std::int64_t>(out.volumes.size());
    r.group = e.physical;
    const std::string problem =
        fill_volume(path, dim, type, e.tag, parsed.nodes.data() + e.first_node, node, z0, have_z, r);
    if (!problem.empty()) throw Error(ErrorCode::io, problem);
    out.volumes.push_back(r);
  }
  for (const auto& e : parsed.elements) {
    if (type_info(e.type).dim != dim - 1 || e.physical == 0) continue;
    FaceKey k;
    const std::string problem =
        fill_boundary(path, e.type, e.tag, e.physical, parsed.nodes.data() + e.first_node, node, k);
    if (!problem.empty()) throw Error(ErrorCode::io, problem);
    out.boundary.push_back(k);
  }
  out.header.dim = dim;
  out.header.geometry = first_order(type) ? 2 : 3;
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

// ---- binary files: every rank reads its share ---------------------------------------------------

// Closes the file it holds.
struct File {
  int fd = -1;
  std::size_t size = 0;
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd >= 0) ::close(fd);
  }
  void open(const std::string& path) {
    fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw Error(ErrorCode::io, message_prefix(path) + "cannot open it for reading");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < 0) throw Error(ErrorCode::io, message_prefix(path) + "cannot read it");
    if (S_ISDIR(st.st_mode))  // opens, but reads nothing
      throw Error(ErrorCode::io, message_prefix(path) + "cannot open it for reading: it is a folder");
    size = static_cast<std::size_t>(st.st_size);
  }
};

// A node as its reader sends it to the rank its tag hashes to (position: its index in the file).
struct NodeRecord {
  std::int64_t tag = 0, position = 0;
  double xyz[3] = {};
};
// A node's coordinates as its tag's rank answers a request (found 0: $Nodes lacks the tag).
struct NodeAnswer {
  std::int64_t tag = 0, found = 0;
  double xyz[3] = {};
};

int tag_owner(std::int64_t tag, int ranks) {
  std::uint64_t h = static_cast<std::uint64_t>(tag) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return static_cast<int>(h % static_cast<std::uint64_t>(ranks));
}

// A binary file's integer field: 2.2's int32, 4.1's size_t of 4 or 8 bytes.
std::int64_t decode_int(const char* p, std::int64_t bytes, bool is_signed, bool swap) {
  if (bytes == 4) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, 4);
    if (swap) v = swapped(v);
    return is_signed ? static_cast<std::int64_t>(static_cast<std::int32_t>(v)) : static_cast<std::int64_t>(v);
  }
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if (swap) v = swapped(v);
  return static_cast<std::int64_t>(v);
}
double decode_double(const char* p, bool swap) {
  double v = 0;
  std::memcpy(&v, p, 8);
  return swap ? swapped(v) : v;
}

// The part [first, last) of the items numbered by blocks (each with its first index and count),
// block by block: calls visit(block, a, b) for items [a, b) of the block, 0-based in it.
template <class Block, class Count, class Visit>
void for_share(const std::vector<Block>& blocks, std::int64_t first, std::int64_t last, Count&& count, Visit&& visit) {
  for (const auto& b : blocks) {
    const std::int64_t a = std::max(first, b.first) - b.first;
    const std::int64_t e = std::min(last, b.first + count(b)) - b.first;
    if (a < e) visit(b, a, e);
  }
}

// Every rank's part of a binary file, from the layout rank 0's scan found: an even share of
// the node records goes to the ranks their tags hash to; an even share of the element
// records is read, each volume element's nodes are asked of those ranks, and the volume
// records and boundary keys come out as rank 0's prepare() makes them for a whole file.
Prepared read_binary_share(const std::string& path, MPI_Comm comm, const Header& header,
                           const std::vector<NodeBlock>& node_blocks,
                           const std::vector<ElementBlockAt>& element_blocks) {
  const double timeout = detail::timeout_or_default({});
  const std::string prefix = message_prefix(path);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool swap = header.swapped != 0, v4 = header.v4 != 0;
  File file;
  Source source{std::string()};  // the file, once open
  auto read = [&](std::int64_t at, std::int64_t n, const char* section) {
    std::string bytes(static_cast<std::size_t>(n), '\0');
    if (!source.read_at(static_cast<std::size_t>(at), bytes.size(), bytes.data()))
      throw Error(ErrorCode::io, prefix + "section $" + section + ": the file ends early (truncated or corrupt file)");
    return bytes;
  };

  // Nodes: this rank's share of the records, to the ranks their tags hash to.
  std::int64_t total_nodes = 0;
  for (const auto& b : node_blocks) total_nodes += b.n;
  std::vector<NodeRecord> nodes;
  std::vector<int> to;
  agreed(comm, [&] {
    file.open(path);
    source = Source(file.fd, file.size, path);
    const auto share = block_range(total_nodes, rank, ranks);
    for_share(
        node_blocks, share[0], share[1], [](const NodeBlock& b) { return b.n; },
        [&](const NodeBlock& b, std::int64_t a, std::int64_t e) {
          const std::string tags =
              read(b.tags_at + a * b.tag_stride, (e - a - 1) * b.tag_stride + b.tag_bytes, "Nodes");
          const std::string xyz = read(b.xyz_at + a * b.xyz_stride, (e - a - 1) * b.xyz_stride + 24, "Nodes");
          for (std::int64_t i = 0; i < e - a; ++i) {
            NodeRecord r;
            r.tag = decode_int(tags.data() + i * b.tag_stride, b.tag_bytes, !v4, swap);
            r.position = b.first + a + i;
            for (int x = 0; x < 3; ++x) r.xyz[x] = decode_double(xyz.data() + i * b.xyz_stride + 8 * x, swap);
            nodes.push_back(r);
            to.push_back(tag_owner(r.tag, ranks));
          }
        });
  });
  auto held = transfer(nodes, to, comm).records;
  nodes = {}, to = {};
  std::sort(held.begin(), held.end(), [](const NodeRecord& a, const NodeRecord& b) {
    return std::tie(a.tag, a.position) < std::tie(b.tag, b.position);
  });
  // A tag given twice: the one whose second definition comes first in the file, as a whole
  // file's parse reports it.
  std::int64_t twice = std::numeric_limits<std::int64_t>::max(), twice_tag = 0;
  for (std::size_t i = 1; i < held.size(); ++i)
    if (held[i].tag == held[i - 1].tag && held[i].position < twice) twice = held[i].position, twice_tag = held[i].tag;
  std::int64_t first_twice = twice;
  detail::allreduce_polled(&first_twice, 1, MPI_INT64_T, MPI_MIN, comm, timeout);
  agreed(comm, [&] {
    if (twice == first_twice && twice != std::numeric_limits<std::int64_t>::max())
      throw Error(ErrorCode::io, prefix + "section $Nodes: node " + std::to_string(twice_tag) +
                                     " is defined twice (truncated or corrupt file)");
  });

  // The volume type, from the element blocks' headers (the same on every rank).
  std::map<int, std::int64_t> all;
  for (const auto& b : element_blocks) all[static_cast<int>(b.type)] += b.m;
  const auto [dim, type] = volume_type(path, all);
  const int nodes_per = type_info(type).nodes;

  // Elements: this rank's share of the records; volume elements numbered by the volume
  // elements of the blocks before theirs (known from the headers, so no rank waits).
  struct Local {
    std::int64_t index = 0, tag = 0, type = 0, physical = 0, volume = -1;
    std::size_t first_node = 0;
  };
  std::int64_t total_elements = 0;
  for (const auto& b : element_blocks) total_elements += b.m;
  std::vector<Local> elements;
  std::vector<std::int64_t> element_nodes;
  agreed(comm, [&] {
    std::int64_t volumes_before = 0;
    std::size_t next = 0;
    const auto share = block_range(total_elements, rank, ranks);
    for_share(
        element_blocks, share[0], share[1], [](const ElementBlockAt& b) { return b.m; },
        [&](const ElementBlockAt& b, std::int64_t a, std::int64_t e) {
          for (; next < element_blocks.size() && element_blocks[next].first < b.first; ++next)
            if (element_blocks[next].type == type) volumes_before += element_blocks[next].m;
          const TypeInfo info = type_info(static_cast<int>(b.type));
          const bool volume = b.type == type;
          if (!volume && (info.dim != dim - 1 || (v4 && b.physical == 0))) return;
          const std::string bytes = read(b.at + a * b.stride, (e - a - 1) * b.stride + b.record, "Elements");
          for (std::int64_t i = 0; i < e - a; ++i) {
            const char* p = bytes.data() + i * b.stride;
            auto field = [&](std::int64_t k) { return decode_int(p + k * b.int_bytes, b.int_bytes, !v4, swap); };
            Local l;
            l.index = b.first + a + i;
            l.tag = field(0);
            l.type = b.type;
            l.physical = v4 ? b.physical : (b.ntags > 0 ? field(1) : 0);
            if (!volume && l.physical == 0) continue;
            l.volume = volume ? volumes_before + a + i : -1;
            l.first_node = element_nodes.size();
            const std::int64_t skip = 1 + (v4 ? 0 : b.ntags);
            for (int k = 0; k < info.nodes; ++k) element_nodes.push_back(field(skip + k));
            elements.push_back(l);
          }
        });
  });

  // Their nodes' coordinates, asked of the ranks their tags hash to.
  std::vector<std::int64_t> wanted;
  for (const auto& l : elements) {
    const int n = l.volume >= 0 ? nodes_per : (dim == 3 ? (l.type == 3 || l.type == 10 || l.type == 16 ? 4 : 3) : 2);
    wanted.insert(wanted.end(), element_nodes.begin() + static_cast<std::ptrdiff_t>(l.first_node),
                  element_nodes.begin() + static_cast<std::ptrdiff_t>(l.first_node) + n);
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (std::int64_t t : wanted) to.push_back(tag_owner(t, ranks));
  auto asked = transfer(wanted, to, comm);
  wanted = {}, to = {};
  std::vector<NodeAnswer> answers;
  answers.reserve(asked.records.size());
  for (std::int64_t t : asked.records) {
    NodeAnswer a;
    a.tag = t;
    const auto it =
        std::lower_bound(held.begin(), held.end(), t, [](const NodeRecord& r, std::int64_t v) { return r.tag < v; });
    if (it != held.end() && it->tag == t) a.found = 1, std::copy_n(it->xyz, 3, a.xyz);
    answers.push_back(a);
  }
  auto answered = transfer(answers, asked.sources, comm).records;
  answers = {}, held = {};
  std::unordered_map<std::int64_t, const double*> where;  // tag -> its answer's x, y, z
  where.reserve(answered.size());
  for (const auto& a : answered)
    if (a.found) where.emplace(a.tag, a.xyz);
  auto node = [&](std::int64_t tag) -> const double* {
    const auto it = where.find(tag);
    return it == where.end() ? nullptr : it->second;
  };

  // 2-D: the plane is the first volume element's first node's.
  double z0 = 0.0;
  if (dim == 2) {
    z0 = std::numeric_limits<double>::infinity();
    for (const auto& l : elements)
      if (l.volume == 0 && node(element_nodes[l.first_node]) != nullptr) z0 = node(element_nodes[l.first_node])[2];
    detail::allreduce_polled(&z0, 1, MPI_DOUBLE, MPI_MIN, comm, timeout);
  }

  // The records, and the first problem as a whole file's pass meets it: volume elements in
  // file order, then boundary elements in file order.
  Prepared out;
  std::int64_t problem_at = std::numeric_limits<std::int64_t>::max();
  std::string problem;
  bool have_z = true;
  for (const auto& l : elements) {
    std::string p;
    std::int64_t at = 0;
    if (l.volume >= 0) {
      VolumeRecord r;
      r.index = l.volume;
      r.group = l.physical;
      p = fill_volume(path, dim, type, l.tag, element_nodes.data() + l.first_node, node, z0, have_z, r);
      at = l.index;
      if (p.empty()) out.volumes.push_back(r);
    } else {
      FaceKey k;
      p = fill_boundary(path, static_cast<int>(l.type), l.tag, l.physical, element_nodes.data() + l.first_node, node,
                        k);
      at = total_elements + l.index;
      if (p.empty()) out.boundary.push_back(k);
    }
    if (!p.empty() && at < problem_at) problem_at = at, problem = std::move(p);
  }
  std::int64_t first_problem = problem_at;
  detail::allreduce_polled(&first_problem, 1, MPI_INT64_T, MPI_MIN, comm, timeout);
  agreed(comm, [&] {
    if (problem_at == first_problem && !problem.empty()) throw Error(ErrorCode::io, problem);
  });

  out.header = header;
  out.header.dim = dim;
  out.header.geometry = first_order(type) ? 2 : 3;
  out.header.elements = 0;
  for (const auto& b : element_blocks)
    if (b.type == type) out.header.elements += b.m;
  return out;
}

}  // namespace

ElementBlock read_msh(const std::string& path, MPI_Comm comm) {
  const double timeout = detail::timeout_or_default({});
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Rank 0 scans the file: the whole of an ASCII file, or a binary file's sections but for the
  // bulk of its node and element records, which it only locates.
  Prepared prepared;
  Parsed parsed;
  agreed(comm, [&] {
    if (rank != 0) return;
    File file;
    file.open(path);
    parsed = Parser(path, Source(file.fd, file.size, path), true).parse();
    if (!parsed.stopped_ascii) return;
    std::string text(file.size, '\0');
    if (!Source(file.fd, file.size, path).read_at(0, text.size(), text.data()))
      throw Error(ErrorCode::io, message_prefix(path) + "cannot read it");
    parsed = Parser(path, Source(std::move(text))).parse();
    prepared = prepare(path, parsed);
  });
  const bool binary = rank == 0 && parsed.binary;  // the scan stopped short of its records

  // Header, names, periodic pairs and a binary file's record layout to every rank.
  std::string bytes;
  if (rank == 0) {
    Header h = prepared.header;
    if (binary) h.v4 = parsed.v4, h.binary = 1, h.swapped = parsed.swapped;
    h.names = static_cast<std::int64_t>(parsed.names.size());
    h.periodic = static_cast<std::int64_t>(parsed.periodic.size());
    put(bytes, h);
    for (const auto& n : parsed.names) {
      put(bytes, static_cast<std::int64_t>(n.dim)), put(bytes, n.tag),
          put(bytes, static_cast<std::int64_t>(n.name.size()));
      bytes += n.name;
    }
    for (const auto& p : parsed.periodic) put(bytes, p);
    put(bytes, static_cast<std::int64_t>(parsed.node_blocks.size()));
    for (const auto& b : parsed.node_blocks) put(bytes, b);
    put(bytes, static_cast<std::int64_t>(parsed.element_blocks.size()));
    for (const auto& b : parsed.element_blocks) put(bytes, b);
  }
  parsed = {};
  std::int64_t size = static_cast<std::int64_t>(bytes.size());
  detail::bcast_polled(&size, sizeof size, 0, comm, timeout);
  bytes.resize(static_cast<std::size_t>(size));
  detail::bcast_polled(bytes.data(), static_cast<int>(size), 0, comm, timeout);

  ElementBlock block;
  block.source = path;
  std::size_t at = 0;
  Header h = take<Header>(bytes, at);
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
  std::vector<NodeBlock> node_blocks(static_cast<std::size_t>(take<std::int64_t>(bytes, at)));
  for (auto& b : node_blocks) b = take<NodeBlock>(bytes, at);
  std::vector<ElementBlockAt> element_blocks(static_cast<std::size_t>(take<std::int64_t>(bytes, at)));
  for (auto& b : element_blocks) b = take<ElementBlockAt>(bytes, at);
  bytes = {};
  if (h.binary && h.dim == 0) {
    prepared = read_binary_share(path, comm, h, node_blocks, element_blocks);
    h = prepared.header;
  }

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
      throw Error(ErrorCode::io, message_prefix(path) + "Gmsh element " + std::to_string(k.gmsh_tag) +
                                     " (physical tag " + std::to_string(k.tag) + ", corner nodes " + corners_text +
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
