// io/import/re2.cpp — Nek5000's .re2 (core/reader_re2.f) and genmap's/gencon's .ma2/.co2
// (core/map2.f read_map, read_con), read in parallel: every rank reads the header and the
// section counts (a few words each), then its block of element records by byte offset and
// an even share of each curve and BC section, whose records go to the ranks that own their
// elements by gsr::transfer. Layout and numbering facts: docs/mesh-import.md; the errors:
// docs/errors.md, "Reading a Nek5000 .re2".
#include "io/import/re2.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>
#include <gsr/transfer.hpp>

#include "io/format.hpp"
#include "io/h5.hpp"
#include "mpi/checked.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gsr::io::import {
namespace {

constexpr std::int64_t header_bytes = 80;  // ASCII header, then the float32 6.54321
constexpr std::int64_t data_offset = 84;
constexpr std::int64_t vertex_header_bytes = 132;  // .ma2/.co2: ASCII header, then 6.54321
constexpr std::int64_t vertex_data_offset = 136;
constexpr float endian_test = 6.54321f;
constexpr int max_sections = 1000;  // BC sections (fields) read from a file without a count
constexpr std::int64_t chunk_records = 1 << 16;

// prenek corner k (0-based) is our lexicographic corner prenek_to_lex[k] (self-inverse).
constexpr std::array<int, 8> prenek_to_lex = {0, 1, 3, 2, 4, 5, 7, 6};
// prenek face k (1-based, index k - 1) is our face.
constexpr std::array<int, 6> prenek_face = {2, 1, 3, 0, 4, 5};
// prenek edge k (1-based, index k - 1) is our edge, and whether prenek runs it from our
// higher corner to our lower one.
constexpr std::array<int, 12> prenek_edge_3d = {0, 5, 1, 4, 2, 7, 3, 6, 8, 9, 11, 10};
constexpr std::array<int, 4> prenek_edge_2d = {0, 3, 1, 2};
constexpr std::array<bool, 12> prenek_edge_reversed = {false, false, true,  true,  false, false,
                                                       true,  true,  false, false, false, false};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::io, "gsr: file '" + path + "': " + what);
}

std::string number_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e18) return std::to_string(static_cast<std::int64_t>(x));
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

/// A file read by offset (pread), closed on destruction.
class File {
public:
  File(const std::string& path) : path_(path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
      fail(path, std::string("cannot be opened for reading: ") + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) fail(path, "cannot be opened for reading: is a directory");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, std::string("cannot be opened for reading: ") + std::strerror(errno));
    size_ = static_cast<std::int64_t>(info.st_size);
  }
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  std::int64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Reads `bytes` bytes at `offset`; the caller has checked that they lie in the file.
  void read(std::int64_t offset, std::int64_t bytes, void* out) const {
    auto* p = static_cast<char*>(out);
    while (bytes > 0) {
      const ssize_t got = ::pread(fd_, p, static_cast<std::size_t>(std::min<std::int64_t>(bytes, 1 << 30)), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        fail(path_, "is truncated or corrupt: cannot read " + std::to_string(bytes) + " bytes at byte " +
                        std::to_string(offset) + (got < 0 ? std::string(": ") + std::strerror(errno) : std::string()));
      p += got;
      offset += got;
      bytes -= got;
    }
  }

private:
  std::string path_;
  int fd_ = -1;
  std::int64_t size_ = 0;
};

std::uint32_t byte_swapped(std::uint32_t v) { return __builtin_bswap32(v); }
std::uint64_t byte_swapped(std::uint64_t v) { return __builtin_bswap64(v); }

/// Reads the words of a file written with `word` bytes (4: int32/float32, 8: float64),
/// byte-swapped when `swap`.
struct Words {
  int word = 4;
  bool swap = false;

  std::uint32_t u32(const unsigned char* p) const {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? byte_swapped(v) : v;
  }
  std::uint64_t u64(const unsigned char* p) const {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return swap ? byte_swapped(v) : v;
  }
  /// Word i of a record as a real.
  double real(const unsigned char* record, int i) const {
    if (word == 4) return static_cast<double>(std::bit_cast<float>(u32(record + 4 * i)));
    return std::bit_cast<double>(u64(record + 8 * i));
  }
  /// Word i of a record as an int32 bit pattern (4-byte files).
  std::int32_t int32(const unsigned char* record, int i) const {
    return std::bit_cast<std::int32_t>(u32(record + 4 * i));
  }
  /// Word i as an integer: int32 in 4-byte files; a float64 holding an integer in 8-byte ones.
  /// False when the word is not an integer (or too large to be one).
  bool integer(const unsigned char* record, int i, std::int64_t& out, double& raw) const {
    if (word == 4) {
      out = int32(record, i);
      raw = static_cast<double>(out);
      return true;
    }
    raw = real(record, i);
    if (!(std::fabs(raw) <= 9007199254740992.0) || raw != std::floor(raw)) return false;
    out = static_cast<std::int64_t>(raw);
    return true;
  }
};

/// Which byte order `bytes` (the 4 bytes of the endian test word) was written in.
bool endian_swap(const unsigned char* bytes, bool& swap) {
  std::uint32_t v;
  std::memcpy(&v, bytes, 4);
  for (const bool s : {false, true}) {
    const float x = std::bit_cast<float>(s ? byte_swapped(v) : v);
    if (std::fabs(x - endian_test) <= 2e-4f) {
      swap = s;
      return true;
    }
  }
  return false;
}

/// A Fortran integer field (iN, or one list-directed item): blanks around, a sign, digits.
enum class Parsed { ok, not_integer, too_large };
Parsed parse_integer(std::string_view text, std::int64_t& out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\0')) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return Parsed::not_integer;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec == std::errc::result_out_of_range) return Parsed::too_large;
  if (ec != std::errc() || end != text.data() + text.size()) return Parsed::not_integer;
  return Parsed::ok;
}

/// Splits list-directed input into items (separated by blanks or commas).
std::vector<std::string_view> list_items(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == ',' || text[i] == '\0')) ++i;
    const std::size_t start = i;
    while (i < text.size() && !(text[i] == ' ' || text[i] == '\t' || text[i] == ',' || text[i] == '\0')) ++i;
    if (i > start) items.push_back(text.substr(start, i - start));
  }
  return items;
}

struct Section {
  std::int64_t count_offset = 0;  // the count word
  std::int64_t offset = 0;        // the first record
  std::int64_t count = 0;
};

/// What the header and the section counts say: where every record is.
struct Layout {
  std::string version;
  Words words;
  int dim = 0;
  std::int64_t nelgt = 0, nelgv = 0;
  std::int64_t header_fields = 0;  // v004: |nBCre2| (0: not given)
  std::int64_t element_bytes = 0;  // one element record
  std::int64_t record_bytes = 0;   // one curve or BC record (8 words)
  Section curves;
  std::vector<Section> bcs;
};

std::int64_t header_integer(const std::string& path, std::string_view text, const char* what) {
  std::int64_t value = 0;
  switch (parse_integer(text, value)) {
    case Parsed::ok:
      return value;
    case Parsed::too_large:
      if (std::string_view(what).find("element count") == std::string_view::npos) break;
      fail(path, std::string("the .re2 header's ") + what + " '" + std::string(text) +
                     "' is too large: its ids at order 64 would overflow 64-bit ids");
    case Parsed::not_integer:
      break;
  }
  fail(path, std::string("the .re2 header is corrupt: its ") + what + " '" + std::string(text) + "' is not an integer");
}

/// A section's count word at `offset`: a count whose records fit before the end of the file.
std::int64_t section_count(const File& file, const Words& words, std::int64_t offset, std::int64_t record_bytes,
                           const std::string& what) {
  const std::int64_t size = file.size();
  if (offset + words.word > size)
    fail(file.path(), "is truncated or corrupt: the " + what + " count at byte " + std::to_string(offset) +
                          " lies past the end of the file (" + std::to_string(size) + " bytes)");
  unsigned char word[8];
  file.read(offset, words.word, word);
  std::int64_t count = 0;
  double raw = 0;
  if (!words.integer(word, 0, count, raw) || count < 0)
    fail(file.path(), "is truncated or corrupt: the " + what + " count at byte " + std::to_string(offset) + " (" +
                          number_text(raw) + ") is not a count");
  const std::int64_t room = size - offset - words.word;
  if (count > room / record_bytes)
    fail(file.path(), "is truncated or corrupt: the " + what + " (" + std::to_string(count) + " records of " +
                          std::to_string(record_bytes) + " bytes from byte " + std::to_string(offset + words.word) +
                          ") ends past the end of the file (" + std::to_string(size) + " bytes)");
  return count;
}

Layout read_layout(const File& file) {
  const std::string& path = file.path();
  if (file.size() < data_offset)
    fail(path, "the .re2 header is corrupt: the file has " + std::to_string(file.size()) +
                   " bytes, fewer than the header's 84");
  unsigned char head[data_offset];
  file.read(0, data_offset, head);
  const std::string header(reinterpret_cast<const char*>(head), header_bytes);
  Layout layout;
  layout.version = header.substr(0, 5);
  if (layout.version.rfind("#v", 0) != 0)
    fail(path, "the .re2 header is corrupt: it does not begin with a version such as #v002");
  if (layout.version != "#v001" && layout.version != "#v002" && layout.version != "#v003" &&
      layout.version != "#v004") {
    std::string shown;
    for (const char c : layout.version) shown += (c >= ' ' && c <= '~') ? c : '?';
    fail(path, "the .re2 version '" + shown + "' is unknown (this reader reads #v001 to #v004)");
  }
  layout.words.word = layout.version == "#v001" ? 4 : 8;
  if (!endian_swap(head + header_bytes, layout.words.swap))
    fail(path, "the .re2 header is corrupt: the word at byte 80 is not 6.54321 in either byte order");

  std::int64_t dim = 0;
  if (layout.version == "#v004") {  // list-directed: version nelgt ndim nelgv nBCre2
    const auto items = list_items(std::string_view(header).substr(5));
    if (items.size() < 4) fail(path, "the .re2 header is corrupt: #v004 needs nelgt, ndim, nelgv and a BC-field count");
    layout.nelgt = header_integer(path, items[0], "element count");
    dim = header_integer(path, items[1], "dimension");
    layout.nelgv = header_integer(path, items[2], "fluid element count");
    const std::int64_t fields = header_integer(path, items[3], "BC-field count");
    if (fields < -max_sections || fields > max_sections)
      fail(path, "the .re2 header is corrupt: its BC-field count " + std::to_string(fields) + " is out of range");
    layout.header_fields = fields < 0 ? -fields : fields;
  } else {  // (a5,i9,i3,i9)
    layout.nelgt = header_integer(path, std::string_view(header).substr(5, 9), "element count");
    dim = header_integer(path, std::string_view(header).substr(14, 3), "dimension");
    layout.nelgv = header_integer(path, std::string_view(header).substr(17, 9), "fluid element count");
  }
  if (dim != 2 && dim != 3) fail(path, "the .re2 header gives dimension " + std::to_string(dim) + " (2 or 3 expected)");
  layout.dim = static_cast<int>(dim);
  if (layout.nelgt <= 0)
    fail(path, "the .re2 header gives " + std::to_string(layout.nelgt) + " elements (at least 1 expected)");
  if (layout.nelgv <= 0 || layout.nelgv > layout.nelgt)
    fail(path, "the .re2 header gives " + std::to_string(layout.nelgt) + " elements of which " +
                   std::to_string(layout.nelgv) + " fluid (1 .. " + std::to_string(layout.nelgt) + " expected)");
  const std::int64_t ids_per_element = nodes_per_element(layout.dim, max_order);
  if (layout.nelgt > std::numeric_limits<std::int64_t>::max() / ids_per_element)
    fail(path, "the .re2 header's element count " + std::to_string(layout.nelgt) +
                   " is too large: its ids at order 64 would overflow 64-bit ids");

  // From here on every size fits: nelgt * 200 bytes < 2^63.
  const int w = layout.words.word;
  const int nv = corners_per_element(layout.dim);
  layout.element_bytes = static_cast<std::int64_t>(1 + layout.dim * nv) * w;
  layout.record_bytes = 8 * w;
  const std::int64_t size = file.size();
  if (layout.nelgt > (size - data_offset) / layout.element_bytes)
    fail(path, "is truncated or corrupt: the element section (" + std::to_string(layout.nelgt) + " records of " +
                   std::to_string(layout.element_bytes) + " bytes from byte 84) ends past the end of the file (" +
                   std::to_string(size) + " bytes)");
  std::int64_t offset = data_offset + layout.nelgt * layout.element_bytes;
  layout.curves.count_offset = offset;
  layout.curves.count = section_count(file, layout.words, offset, layout.record_bytes, "curve section");
  layout.curves.offset = offset + w;
  offset = layout.curves.offset + layout.curves.count * layout.record_bytes;

  auto read_section = [&](int index) {
    Section s;
    s.count_offset = offset;
    s.count = section_count(file, layout.words, offset, layout.record_bytes, "BC section " + std::to_string(index + 1));
    s.offset = offset + w;
    offset = s.offset + s.count * layout.record_bytes;
    layout.bcs.push_back(s);
  };
  if (layout.header_fields > 0) {
    for (int k = 0; k < layout.header_fields; ++k) read_section(k);
    if (offset != size)
      fail(path, "is truncated or corrupt: " + std::to_string(size - offset) + " bytes follow the header's " +
                     std::to_string(layout.header_fields) + " BC sections (from byte " + std::to_string(offset) + ")");
  } else {  // as many sections as the file holds
    while (offset < size) {
      if (static_cast<int>(layout.bcs.size()) == max_sections)
        fail(path, "is truncated or corrupt: more than " + std::to_string(max_sections) + " BC sections");
      if (size - offset < w)
        fail(path, "is truncated or corrupt: " + std::to_string(size - offset) + " bytes at byte " +
                       std::to_string(offset) + " are too few for a BC section");
      read_section(static_cast<int>(layout.bcs.size()));
    }
  }
  return layout;
}

/// Reads records [first, first + count) of a section in chunks, handing each to `use`
/// (record bytes, index in the section).
template <class Use>
void for_records(const File& file, std::int64_t offset, std::int64_t record_bytes, std::int64_t first,
                 std::int64_t count, Use&& use) {
  std::vector<unsigned char> buffer;
  for (std::int64_t done = 0; done < count;) {
    const std::int64_t n = std::min(chunk_records, count - done);
    buffer.resize(static_cast<std::size_t>(n * record_bytes));
    file.read(offset + (first + done) * record_bytes, n * record_bytes, buffer.data());
    for (std::int64_t i = 0; i < n; ++i) use(buffer.data() + i * record_bytes, first + done + i);
    done += n;
  }
}

std::string range_text(std::int64_t last) { return "1.." + std::to_string(last); }

/// One of the curve or BC records' leading integers (element, edge or face): in 1..last.
std::int64_t record_integer(const std::string& path, const Words& words, const unsigned char* record, int i,
                            std::int64_t last, const std::string& where, const char* what) {
  std::int64_t value = 0;
  double raw = 0;
  if (!words.integer(record, i, value, raw) || value < 1 || value > last)
    fail(path, where + what + " " + number_text(raw) + " is not in " + range_text(last));
  return value;
}

std::string record_where(const std::string& section, std::int64_t index, std::int64_t offset) {
  return section + " record " + std::to_string(index + 1) + " (byte " + std::to_string(offset) + "): ";
}

Curve decode_curve(const std::string& path, const Layout& layout, const unsigned char* record, std::int64_t index) {
  const Words& words = layout.words;
  const std::string where = record_where("curve", index, layout.curves.offset + index * layout.record_bytes);
  Curve c;
  c.element = record_integer(path, words, record, 0, layout.nelgt, where, "element") - 1;
  c.type = static_cast<char>(record[7 * words.word]);
  const std::string element_where = where + "element " + std::to_string(c.element + 1) + ": ";
  for (int k = 0; k < 5; ++k) c.params[k] = words.real(record, 2 + k);
  if (c.type == 's' || c.type == 'e') {  // a face curve: its "edge" is a prenek face
    const std::int64_t face = record_integer(path, words, record, 1, 2 * layout.dim, element_where, "face");
    c.edge = prenek_face[face - 1];
  } else {
    const std::int64_t edge = record_integer(path, words, record, 1, layout.dim == 3 ? 12 : 4, element_where, "edge");
    c.edge = layout.dim == 3 ? prenek_edge_3d[edge - 1] : prenek_edge_2d[edge - 1];
    // The signed radius refers to prenek's direction of the edge; ours runs low to high.
    if (c.type == 'C' && prenek_edge_reversed[edge - 1]) c.params[0] = -c.params[0];
  }
  return c;
}

FaceRecord decode_bc(const std::string& path, const Layout& layout, const unsigned char* record, int field,
                     std::int64_t index) {
  const Words& words = layout.words;
  const Section& section = layout.bcs[field];
  const std::string where =
      record_where("BC section " + std::to_string(field + 1), index, section.offset + index * layout.record_bytes);
  FaceRecord r;
  r.field = field;
  r.element = record_integer(path, words, record, 0, layout.nelgt, where, "element") - 1;
  const std::string element_where = where + "element " + std::to_string(r.element + 1) + ": ";
  const std::int64_t face = record_integer(path, words, record, 1, 2 * layout.dim, element_where, "face");
  r.face = prenek_face[face - 1];
  const unsigned char* cbc = record + 7 * words.word;
  int length = 3;
  while (length > 0 && (cbc[length - 1] == ' ' || cbc[length - 1] == '\0')) --length;
  std::memcpy(r.kind.data(), cbc, static_cast<std::size_t>(length));
  for (int k = 0; k < 5; ++k) r.params[k] = words.real(record, 2 + k);
  const bool periodic = cbc[0] == 'P' && cbc[1] == ' ' && cbc[2] == ' ';
  // v001 files of a million elements or more hold P's element as int32 bits (genbox).
  if (periodic && words.word == 4 && layout.nelgt >= 1000000) r.params[0] = words.int32(record, 2);
  const double tag = r.params[4];
  if (tag >= 1 && tag <= 9007199254740992.0 && tag == std::floor(tag)) r.tag = static_cast<std::int64_t>(tag);
  const bool connected =
      std::string_view(r.kind.data()) == "P" || (std::string_view(r.kind.data()) == "E" && r.params[0] > 0);
  if (connected) {
    const double other = r.params[0], other_face = r.params[1];
    const std::string what = element_where + "face " + std::to_string(face) + ": '" + r.kind.data() +
                             "' connection to element " + number_text(other) + " face " + number_text(other_face) +
                             ": ";
    if (!(other >= 1 && other <= static_cast<double>(layout.nelgt) && other == std::floor(other)))
      fail(path, what + "element " + number_text(other) + " is not in " + range_text(layout.nelgt));
    if (!(other_face >= 1 && other_face <= 2 * layout.dim && other_face == std::floor(other_face)))
      fail(path, what + "face " + number_text(other_face) + " is not in " + range_text(2 * layout.dim));
    r.other_element = static_cast<std::int64_t>(other) - 1;
    r.other_face = prenek_face[static_cast<int>(other_face) - 1];
  }
  return r;
}

[[noreturn]] void bad_vertex_file(const std::string& vpath, const std::string& mesh, const std::string& what) {
  fail(vpath, "vertex file for '" + mesh + "' is corrupt or does not fit: " + what);
}

/// A curve or BC record on its way to the rank of its element.
struct Routed {
  int is_curve = 0;
  FaceRecord face;
  Curve curve;
};

/// The vertex file's kind by its name.
enum class VertexKind { co2, ma2 };

void read_vertex_file(const std::string& vpath, const std::string& mesh, const Layout& layout, ElementBlock& block) {
  const std::string ext = std::filesystem::path(vpath).extension().string();
  const auto bad = [&](const std::string& what) { bad_vertex_file(vpath, mesh, what); };
  if (ext != ".co2" && ext != ".ma2")
    bad("its name ends neither in .co2 nor in .ma2 (the binary files of gencon and genmap)");
  const VertexKind kind = ext == ".co2" ? VertexKind::co2 : VertexKind::ma2;
  File file(vpath);
  if (file.size() < vertex_data_offset)
    bad("it has " + std::to_string(file.size()) + " bytes, fewer than the header's 136");
  unsigned char head[vertex_data_offset];
  file.read(0, vertex_data_offset, head);
  const std::string header(reinterpret_cast<const char*>(head), vertex_header_bytes);
  const std::string version = header.substr(0, 5);
  if (version.rfind("#v", 0) != 0) bad("its header does not begin with a version such as #v001");
  bool swap = false;
  if (!endian_swap(head + vertex_header_bytes, swap)) bad("the word at byte 132 is not 6.54321 in either byte order");
  // .co2: nelgt, nelgv, nv ((a5,3i12), or list-directed in #v002); .ma2: nel, ... ((a5,7i12)).
  std::vector<std::int64_t> numbers;
  const int wanted = kind == VertexKind::co2 ? 3 : 1;
  if (kind == VertexKind::co2 && version == "#v002") {
    for (const auto item : list_items(std::string_view(header).substr(5))) {
      if (static_cast<int>(numbers.size()) == wanted) break;
      std::int64_t v = 0;
      if (parse_integer(item, v) != Parsed::ok) bad("its header's '" + std::string(item) + "' is not an integer");
      numbers.push_back(v);
    }
  } else {
    for (int k = 0; k < wanted; ++k) {
      std::int64_t v = 0;
      const std::string_view field = std::string_view(header).substr(5 + 12 * k, 12);
      if (parse_integer(field, v) != Parsed::ok) bad("its header's '" + std::string(field) + "' is not an integer");
      numbers.push_back(v);
    }
  }
  if (static_cast<int>(numbers.size()) < wanted) bad("its header lacks the element and vertex counts");
  const int nv = corners_per_element(layout.dim);
  if (numbers[0] != layout.nelgt)
    bad("it has " + std::to_string(numbers[0]) + " elements, the mesh " + std::to_string(layout.nelgt));
  if (kind == VertexKind::co2) {
    if (numbers[1] != layout.nelgv)
      bad("it has " + std::to_string(numbers[1]) + " fluid elements, the mesh " + std::to_string(layout.nelgv));
    if (numbers[2] != nv)
      bad("it has " + std::to_string(numbers[2]) + " vertices per element, the mesh's " + std::to_string(layout.dim) +
          "-D elements " + std::to_string(nv));
  }
  const std::int64_t record = static_cast<std::int64_t>(1 + nv) * 4;
  const std::int64_t expected = vertex_data_offset + layout.nelgt * record;
  if (file.size() != expected)
    bad("it has " + std::to_string(file.size()) + " bytes, but " + std::to_string(layout.nelgt) + " records of " +
        std::to_string(nv) + " vertices make " + std::to_string(expected));
  block.vertices.resize(static_cast<std::size_t>(block.count * nv));
  const Words words{4, swap};
  for_records(file, vertex_data_offset, record, block.first, block.count, [&](const unsigned char* r, std::int64_t e) {
    if (kind == VertexKind::co2 && words.int32(r, 0) != e + 1)
      bad("the record of element " + std::to_string(e + 1) + " names element " + std::to_string(words.int32(r, 0)));
    for (int c = 0; c < nv; ++c) {
      const std::int32_t id = words.int32(r, 1 + c);
      if (id <= 0)
        fail(vpath, "vertex file for '" + mesh + "': element " + std::to_string(e + 1) + ": vertex id " +
                        std::to_string(id) + " of corner " + std::to_string(c) +
                        " (0-based, lexicographic) is not positive");
      block.vertices[static_cast<std::size_t>((e - block.first) * nv + c)] = id;
    }
  });
}

}  // namespace

std::string vertex_file_for(const std::string& path, const Re2Options& options) {
  if (!options.vertex_file.empty()) return options.vertex_file;
  if (options.ignore_vertex_file) return {};
  for (const char* ext : {".co2", ".ma2"}) {
    std::filesystem::path candidate(path);
    candidate.replace_extension(ext);
    std::error_code ec;
    if (candidate.string() != path && std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

ElementBlock read_re2(const std::string& path, MPI_Comm comm, const Re2Options& options) {
  detail::require_communicator(comm, "read_re2");
  const int rank = detail::comm_rank(comm), ranks = detail::comm_size(comm);
  ElementBlock block;
  block.source = path;
  Layout layout;
  std::vector<Routed> records;  // this rank's share of the curve and BC sections
  std::vector<int> owners;      // the ranks of their elements
  agreed(comm, [&] {
    const File file(path);
    layout = read_layout(file);
    block.dim = layout.dim;
    block.elements = layout.nelgt;
    block.fluid_elements = layout.nelgv;
    block.fields = static_cast<int>(layout.bcs.size());
    const bool big = layout.words.swap == (std::endian::native == std::endian::little);
    block.format = "Nek5000 .re2 " + layout.version + (big ? ", big-endian" : ", little-endian");
    const auto [first, last] = block_range(layout.nelgt, rank, ranks);
    block.first = first;
    block.count = last - first;
    block.geometry = 2;
    const int nv = corners_per_element(layout.dim);
    block.points.resize(static_cast<std::size_t>(block.count * nv * 3));
    block.groups.resize(static_cast<std::size_t>(block.count));
    for_records(
        file, data_offset, layout.element_bytes, first, block.count, [&](const unsigned char* r, std::int64_t e) {
          const std::int64_t local = e - first;
          std::int64_t group = 0;
          double raw = 0;
          if (!layout.words.integer(r, 0, group, raw))
            fail(path, record_where("element", e, data_offset + e * layout.element_bytes) + "element " +
                           std::to_string(e + 1) + ": group " + number_text(raw) + " is not an integer");
          block.groups[static_cast<std::size_t>(local)] = group;
          double* points = block.points.data() + local * nv * 3;
          for (int k = 0; k < nv; ++k)
            for (int axis = 0; axis < 3; ++axis)
              points[prenek_to_lex[k] * 3 + axis] = axis < layout.dim ? layout.words.real(r, 1 + axis * nv + k) : 0.0;
        });
    const auto [cfirst, clast] = block_range(layout.curves.count, rank, ranks);
    for_records(file, layout.curves.offset, layout.record_bytes, cfirst, clast - cfirst,
                [&](const unsigned char* r, std::int64_t i) {
                  Routed routed;
                  routed.is_curve = 1;
                  routed.curve = decode_curve(path, layout, r, i);
                  records.push_back(routed);
                  owners.push_back(block_owner(routed.curve.element, layout.nelgt, ranks));
                });
    for (int field = 0; field < static_cast<int>(layout.bcs.size()); ++field) {
      const Section& s = layout.bcs[field];
      const auto [bfirst, blast] = block_range(s.count, rank, ranks);
      for_records(file, s.offset, layout.record_bytes, bfirst, blast - bfirst,
                  [&](const unsigned char* r, std::int64_t i) {
                    Routed routed;
                    routed.face = decode_bc(path, layout, r, field, i);
                    records.push_back(routed);
                    owners.push_back(block_owner(routed.face.element, layout.nelgt, ranks));
                  });
    }
    const std::string vertex_file = vertex_file_for(path, options);
    if (!vertex_file.empty()) {
      read_vertex_file(vertex_file, path, layout, block);
      block.vertex_source = "from " + vertex_file;
    }
  });
  // One transfer for both kinds. Records arrive by source rank, each source's share of every
  // section in file order: by field, they are in file order.
  for (const Routed& r : transfer(records, std::span<const int>(owners), comm).records) {
    if (r.is_curve)
      block.curves.push_back(r.curve);
    else
      block.faces.push_back(r.face);
  }
  std::stable_sort(block.faces.begin(), block.faces.end(),
                   [](const FaceRecord& a, const FaceRecord& b) { return a.field < b.field; });
  return block;
}

}  // namespace gsr::io::import
