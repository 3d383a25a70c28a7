// tools/check.cpp — what gsr-check measures, and how reports are printed and compared.
//
// Everything is computed with gather-scatter operations on the mesh's own ids, which is
// both the check and a test of the runtime: multiplicity = gs(add) of ones; coordinate
// spread of a node's copies = gs(max) - gs(min) per column; then every exchange method
// must reproduce those results. check_mesh runs the steps below in this order, which is
// also the order of the problems in the report.
//
// Memory: a rank holds its ids and coordinates as read, plus at most a few per-entry
// vectors at a time (about twice what it read). Results of the main run that the method
// comparison needs are kept as 64-bit digests, not copies; a method whose digest differs
// is compared entry by entry against a recomputed reference.
#include "tools/check.hpp"

#include "config/config.hpp"
#include "mpi/polled.hpp"

#include <gsr/handle.hpp>
#include <gsr/transfer.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace gsr::tools {
namespace {

using nlohmann::json;

// Every collective here is polled against GSR_TIMEOUT (mpi/polled.hpp): a rank whose
// setup or read failed alone never comes.
double timeout() { return detail::timeout_or_default({}); }

std::int64_t reduce_int(std::int64_t value, MPI_Op op, MPI_Comm comm) {
  long long global = value;
  detail::allreduce_polled(&global, 1, MPI_LONG_LONG, op, comm, timeout());
  return global;
}

double reduce_double(double value, MPI_Op op, MPI_Comm comm) {
  detail::allreduce_polled(&value, 1, MPI_DOUBLE, op, comm, timeout());
  return value;
}

/// Reports the steps of check_mesh to options.progress, if set.
class Steps {
public:
  explicit Steps(const CheckOptions& options) : progress_(options.progress) {
    total_ = 6 + (options.compare_methods ? static_cast<int>(registered_methods().size()) : 0);
  }
  void begin(const std::string& what) {
    if (progress_) progress_(done_, total_, what);
    ++done_;
  }
  void finish() {
    if (progress_) progress_(total_, total_, "done");
  }
  void add_step() { ++total_; }

private:
  std::function<void(int, int, const std::string&)> progress_;
  int done_ = 0, total_ = 0;
};

/// Where a node sits in its element: how many of its local indices are 0 or N.
/// 0: interior; dim: a vertex; in between: an edge (2-D) or a face or an edge (3-D).
std::vector<int> boundary_axes(int dim, int order) {
  const int n1 = order + 1, nz = dim == 3 ? n1 : 1;
  std::vector<int> axes;
  for (int c = 0; c < nz; ++c)
    for (int b = 0; b < n1; ++b)
      for (int a = 0; a < n1; ++a) {
        int count = (a == 0 || a == order) + (b == 0 || b == order);
        if (dim == 3) count += (c == 0 || c == order);
        axes.push_back(count);
      }
  return axes;
}

std::string kind_name(int dim, int boundary) {
  if (boundary == 0) return "interior";
  if (boundary == dim) return "vertex";
  return dim == 3 && boundary == 1 ? "face" : "edge";
}

/// Every rank's values, concatenated in rank order, on every rank.
std::vector<long long> gather_all(const std::vector<long long>& mine, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks), 0);
  const std::vector<std::byte> gathered = detail::allgather_polled(&length, sizeof length, comm, timeout());
  std::memcpy(lengths.data(), gathered.data(), gathered.size());
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<long long> all(static_cast<std::size_t>(offsets.back() + lengths.back()));
  detail::allgatherv_polled(mine.data(), length, MPI_LONG_LONG, all.data(), lengths.data(), offsets.data(), comm,
                            timeout());
  return all;
}

/// Every rank's (kind, multiplicity) -> entries counts, merged on every rank.
std::map<std::pair<int, std::int64_t>, std::int64_t> merge_histograms(
    const std::map<std::pair<int, std::int64_t>, std::int64_t>& local, MPI_Comm comm) {
  std::vector<long long> flat;
  for (const auto& [key, count] : local) flat.insert(flat.end(), {key.first, key.second, count});
  const std::vector<long long> all = gather_all(flat, comm);
  std::map<std::pair<int, std::int64_t>, std::int64_t> merged;
  for (std::size_t i = 0; i + 2 < all.size(); i += 3) merged[{static_cast<int>(all[i]), all[i + 1]}] += all[i + 2];
  return merged;
}

double wrap(double x, double period) { return x - period * std::floor(x / period); }

/// The mesh under check. `ids` are the file's ids as read until the id counts are taken,
/// then their absolute values (a flag is a problem in itself, so flagged entries are
/// grouped regardless); mesh.ids is left empty, so the ids are held once.
struct Subject {
  Mesh mesh;
  std::int64_t entries = 0;  // E (N+1)^dim, over all ranks
  std::vector<std::int64_t> ids;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
};

// ---- where a problem is ----------------------------------------------------------------

/// An entry of the mesh: its file element, its node in that element and the rank holding it
/// (element -1: no entry).
struct Location {
  std::int64_t element = -1;
  std::int64_t node = -1;
  int rank = -1;

  explicit operator bool() const { return element >= 0; }
  std::string entry() const { return "element " + std::to_string(element) + ", node " + std::to_string(node); }
  std::string text() const { return entry() + " (rank " + std::to_string(rank) + ")"; }
};

/// The earlier of two locations (file element, then node); no location is the latest.
Location earlier(const Location& a, const Location& b) {
  if (!a) return b;
  if (!b) return a;
  return std::pair(a.element, a.node) <= std::pair(b.element, b.node) ? a : b;
}

/// Collective: the first entry over all ranks (lowest file element, then node) at whose
/// local index `found(i)` holds, so the answer does not depend on the distribution.
template <class Predicate>
Location first_entry(const Subject& subject, Predicate&& found) {
  const auto nodes = static_cast<std::int64_t>(subject.mesh.nodes_per_element());
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t local = none;
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (found(i)) {
      const auto k = static_cast<std::int64_t>(i);
      local = std::min(local, subject.mesh.elements[static_cast<std::size_t>(k / nodes)] * nodes + k % nodes);
    }
  const std::int64_t global = reduce_int(local, MPI_MIN, subject.comm);
  if (global == none) return {};
  const auto holder =
      reduce_int(local == global ? subject.rank : std::numeric_limits<int>::max(), MPI_MIN, subject.comm);
  return {global / nodes, global % nodes, static_cast<int>(holder)};
}

/// The report's problems, each with the rank where its first instance was found (kept in
/// "run": the problems themselves depend on the mesh alone).
struct Problems {
  json texts = json::array();
  json ranks = json::array();

  void add(const std::string& text, const Location& where) {
    texts.push_back(where ? text + "; first at " + where.entry() : text);
    ranks.push_back(where ? json(where.rank) : json(nullptr));
  }
};

// ---- values gather-scatter cannot measure ------------------------------------------------

/// Throws the same error on every rank when `where` names an entry.
void fail_at(const std::string& path, const Location& where, const std::string& what) {
  if (where) throw Error(ErrorCode::invalid_argument, "file '" + path + "': " + what + " at " + where.text());
}

/// -2^63 has no absolute value: no gather-scatter id can be it (the library refuses it).
void require_representable_ids(const Subject& subject, const std::string& path) {
  const auto& ids = subject.ids;
  const Location where =
      first_entry(subject, [&](std::size_t i) { return ids[i] == std::numeric_limits<std::int64_t>::min(); });
  fail_at(path, where, "id -9223372036854775808 (-2^63, which has no absolute value, so it is no gather-scatter id)");
}

/// NaN or infinite coordinates make every spread and comparison meaningless.
void require_finite_coordinates(const Subject& subject, const std::string& path) {
  if (!subject.mesh.has_coordinates()) return;
  const auto dim = static_cast<std::size_t>(subject.mesh.dim());
  const auto& x = subject.mesh.coordinates;
  auto non_finite = [&](std::size_t i) {
    return std::any_of(x.begin() + static_cast<std::ptrdiff_t>(i * dim),
                       x.begin() + static_cast<std::ptrdiff_t>((i + 1) * dim),
                       [](double value) { return !std::isfinite(value); });
  };
  fail_at(path, first_entry(subject, non_finite), "a coordinate that is NaN or infinite (coordinates must be finite)");
}

Subject load_subject(const CheckOptions& options, MPI_Comm comm) {
  ReadOptions read;
  read.distribution = options.distribution;
  Subject subject;
  subject.mesh = read_mesh(options.path, comm, read);
  subject.ids = std::move(subject.mesh.ids);
  subject.mesh.ids = {};
  subject.comm = comm;
  MPI_Comm_rank(comm, &subject.rank);
  subject.entries = subject.mesh.info.elements * static_cast<std::int64_t>(subject.mesh.nodes_per_element());
  require_representable_ids(subject, options.path);
  require_finite_coordinates(subject, options.path);
  return subject;
}

json describe_mesh(const Subject& subject) {
  const Mesh& mesh = subject.mesh;
  json described;
  described["dim"] = mesh.dim();
  described["order"] = mesh.order();
  described["elements"] = mesh.info.elements;
  described["entries"] = subject.entries;
  described["coordinates"] = mesh.has_coordinates();
  described["periods"] = std::vector<double>(mesh.info.periods.begin(), mesh.info.periods.begin() + mesh.dim());
  return described;
}

// ---- the per-entry fields every method computes -----------------------------------------

/// One column whose min and max over a group's copies measure a spread along `axis`: the
/// raw coordinate, or for a periodic axis the coordinate wrapped into [0, L), unshifted
/// and shifted by L/2 (copies at 0 and at L agree in one of the two).
struct SpreadColumn {
  int axis = 0;
  double period = 0;  // 0: the raw coordinate
  double shift = 0;
};

/// The columns of the spread, axis by axis (one column per plain axis, two per periodic).
std::vector<SpreadColumn> spread_columns(const Mesh& mesh) {
  std::vector<SpreadColumn> columns;
  for (int d = 0; d < mesh.dim(); ++d) {
    const double period = mesh.info.periods[d];
    if (period > 0) {
      columns.push_back({d, period, 0});
      columns.push_back({d, period, period / 2});
    } else {
      columns.push_back({d, 0, 0});
    }
  }
  return columns;
}

std::vector<std::int64_t> multiplicities(Handle& handle, const Subject& subject) {
  std::vector<std::int64_t> multiplicity(subject.ids.size(), 1);
  handle.apply(std::span<std::int64_t>(multiplicity), Op::add);
  return multiplicity;
}

/// gs(min) or gs(max) of one spread column.
std::vector<double> column_extremes(Handle& handle, const Subject& subject, const SpreadColumn& column, Op op) {
  const auto dim = static_cast<std::size_t>(subject.mesh.dim());
  const auto& x = subject.mesh.coordinates;
  std::vector<double> values(subject.ids.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double raw = x[i * dim + static_cast<std::size_t>(column.axis)];
    values[i] = column.period > 0 ? wrap(raw + column.shift, column.period) : raw;
  }
  handle.apply(std::span<double>(values), op);
  return values;
}

/// gs(add) of a field that differs on every copy, so sums exercise the canonical
/// combination order.
std::vector<double> sums(Handle& handle, const Subject& subject) {
  std::vector<double> field(subject.ids.size());
  for (std::size_t i = 0; i < field.size(); ++i)
    field[i] = 1.0 + 0.5 * std::sin(static_cast<double>(subject.ids[i])) + 1e-3 * (subject.rank + 1) +
               1e-7 * static_cast<double>(i % 97);
  handle.apply(std::span<double>(field), Op::add);
  return field;
}

/// A 64-bit digest of a field's bits on this rank (the same bits give the same digest).
template <class T>
std::uint64_t digest(const std::vector<T>& values) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ULL ^ values.size();
  for (const T value : values) {
    hash ^= std::bit_cast<std::uint64_t>(value);
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 32;
  }
  return hash;
}

/// What the main run leaves for the method comparison.
struct Reference {
  std::uint64_t multiplicity = 0;
  std::vector<std::uint64_t> low, high;  // per spread column
  std::vector<double> sums;
};

// ---- ids on their own -----------------------------------------------------------------

/// What is wrong with the ids before any gather-scatter, over all ranks, and where the
/// first zero and negative ids are (the ids lose their sign after counting).
struct IdCounts {
  std::int64_t zero = 0, negative = 0, out_of_range = 0, largest = 0, repeating_elements = 0;
  Location first_zero, first_negative;
};

/// This rank's entries whose nonzero id an earlier node of their own element also holds.
std::vector<bool> entries_repeating_an_id(const Subject& subject) {
  const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
  std::vector<bool> repeats(subject.ids.size(), false);
  std::vector<std::pair<std::int64_t, std::size_t>> element_ids(nodes);  // (id, node)
  for (std::size_t k = 0; k < subject.mesh.local_elements(); ++k) {
    for (std::size_t a = 0; a < nodes; ++a) element_ids[a] = {subject.ids[k * nodes + a], a};
    std::sort(element_ids.begin(), element_ids.end());
    for (std::size_t a = 1; a < nodes; ++a)
      if (element_ids[a].first != 0 && element_ids[a].first == element_ids[a - 1].first)
        repeats[k * nodes + element_ids[a].second] = true;
  }
  return repeats;
}

/// This rank's elements with a repeating entry.
std::int64_t elements_repeating_an_id(const Subject& subject, const std::vector<bool>& repeats) {
  const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
  std::int64_t repeating = 0;
  for (std::size_t k = 0; k < subject.mesh.local_elements(); ++k)
    repeating += std::any_of(repeats.begin() + static_cast<std::ptrdiff_t>(k * nodes),
                             repeats.begin() + static_cast<std::ptrdiff_t>((k + 1) * nodes), [](bool r) { return r; });
  return repeating;
}

/// Counts what is wrong with the ids as read, then replaces them by their absolute values.
IdCounts count_ids(Subject& subject) {
  IdCounts counts;
  for (const std::int64_t id : subject.ids) {
    counts.zero += id == 0;
    counts.negative += id < 0;
  }
  const MPI_Comm comm = subject.comm;
  counts.zero = reduce_int(counts.zero, MPI_SUM, comm);
  counts.negative = reduce_int(counts.negative, MPI_SUM, comm);
  if (counts.zero) counts.first_zero = first_entry(subject, [&](std::size_t i) { return subject.ids[i] == 0; });
  if (counts.negative) counts.first_negative = first_entry(subject, [&](std::size_t i) { return subject.ids[i] < 0; });

  for (std::int64_t& id : subject.ids) {
    id = id < 0 ? -id : id;  // -2^63 was refused on loading
    counts.out_of_range += id > subject.entries;
    counts.largest = std::max(counts.largest, id);
  }
  counts.repeating_elements = elements_repeating_an_id(subject, entries_repeating_an_id(subject));
  counts.out_of_range = reduce_int(counts.out_of_range, MPI_SUM, comm);
  counts.largest = reduce_int(counts.largest, MPI_MAX, comm);
  counts.repeating_elements = reduce_int(counts.repeating_elements, MPI_SUM, comm);
  return counts;
}

/// The "ids" member; `distinct` comes from the multiplicities.
json report_ids(const Subject& subject, const IdCounts& counts, std::int64_t distinct, Problems& problems) {
  const std::int64_t entries = subject.entries;
  json ids;
  ids["max"] = counts.largest;
  ids["zero"] = counts.zero;
  ids["negative"] = counts.negative;
  ids["out_of_range"] = counts.out_of_range;
  ids["elements_repeating_an_id"] = counts.repeating_elements;
  ids["distinct"] = distinct;
  ids["compact"] = distinct == counts.largest && counts.zero == 0;
  if (counts.zero)
    problems.add(std::to_string(counts.zero) + " zero ids (every node of a mesh needs an id >= 1)", counts.first_zero);
  if (counts.negative)
    problems.add(
        std::to_string(counts.negative) + " negative ids (flags belong in gather-scatter calls, not in mesh files)",
        counts.first_negative);
  if (counts.out_of_range)
    problems.add(std::to_string(counts.out_of_range) + " ids out of range (above E*(N+1)^dim = " +
                     std::to_string(entries) + ", more than there are entries)",
                 first_entry(subject, [&](std::size_t i) { return subject.ids[i] > entries; }));
  if (counts.repeating_elements) {
    const std::vector<bool> repeats = entries_repeating_an_id(subject);
    problems.add(std::to_string(counts.repeating_elements) + " elements hold the same id at two of their own nodes",
                 first_entry(subject, [&](std::size_t i) { return repeats[i]; }));
  }
  return ids;
}

// ---- multiplicities -------------------------------------------------------------------

/// Group sizes from gs(add) of ones, over all ranks, by the kind of element node.
struct MultiplicityCounts {
  std::map<std::int64_t, std::int64_t> groups;  // multiplicity -> groups of that size
  json by_kind = json::object();                // node kind -> multiplicity -> entries
  std::int64_t shared_interior = 0, unshared_boundary = 0;
  std::int64_t distinct = 0;  // groups of any size
};

MultiplicityCounts count_multiplicities(const Subject& subject, const std::vector<std::int64_t>& multiplicity) {
  const int dim = subject.mesh.dim();
  const std::vector<int> boundary = boundary_axes(dim, subject.mesh.order());
  const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
  std::map<std::pair<int, std::int64_t>, std::int64_t> local_histogram;
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (subject.ids[i] != 0) ++local_histogram[{boundary[i % nodes], multiplicity[i]}];

  MultiplicityCounts counts;
  for (const auto& [key, entries] : merge_histograms(local_histogram, subject.comm)) {
    const auto [kind, group_size] = key;
    counts.groups[group_size] += entries;
    counts.by_kind[kind_name(dim, kind)][std::to_string(group_size)] = entries;
    if (kind == 0 && group_size > 1) counts.shared_interior += entries;
    if (kind != 0 && group_size == 1) counts.unshared_boundary += entries;
  }
  for (auto& [group_size, count] : counts.groups) {
    count /= group_size;  // entries -> groups: a group of multiplicity m has m entries
    counts.distinct += count;
  }
  return counts;
}

json report_multiplicities(const Subject& subject, const std::vector<std::int64_t>& multiplicity,
                           const MultiplicityCounts& counts, Problems& problems) {
  json groups = json::object();
  for (const auto& [group_size, count] : counts.groups) groups[std::to_string(group_size)] = count;
  json described;
  described["groups"] = groups;
  described["entries_by_node_kind"] = counts.by_kind;
  described["unshared_boundary_entries"] = counts.unshared_boundary;
  described["shared_interior_entries"] = counts.shared_interior;
  if (counts.shared_interior) {
    const std::vector<int> boundary = boundary_axes(subject.mesh.dim(), subject.mesh.order());
    const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
    problems.add(
        std::to_string(counts.shared_interior) +
            " element-interior entries are shared with other copies (an interior GLL node belongs to one element)",
        first_entry(subject, [&](std::size_t i) {
          return subject.ids[i] != 0 && boundary[i % nodes] == 0 && multiplicity[i] > 1;
        }));
  }
  return described;
}

// ---- boundary faces (the optional /mesh/boundary of imported meshes) ------------------

constexpr const char* face_names[] = {"r-", "r+", "s-", "s+", "t-", "t+"};
constexpr std::int64_t no_condition = -1, periodic_face = -2;
constexpr std::size_t faces_listed = 5;  // faces or ids a problem names, the first of them

/// Whether local node `node` of an element lies on face `face` (r-, r+, s-, s+, t-, t+).
bool on_face(int order, int node, int face) {
  const int n1 = order + 1, axis = face / 2;
  int position = node;
  for (int d = 0; d < axis; ++d) position /= n1;
  return position % n1 == (face % 2 ? order : 0);
}

/// The local nodes at the corners of face `face`: 2 in 2-D (the face is an edge), 4 in 3-D.
std::vector<int> face_corners(int dim, int order, int face) {
  const int n1 = order + 1;
  std::vector<int> corners;
  for (int corner = 0; corner < (1 << dim); ++corner) {
    int node = 0, stride = 1;
    for (int d = 0; d < dim; ++d, stride *= n1) node += ((corner >> d) & 1) * order * stride;
    if (on_face(order, node, face)) corners.push_back(node);
  }
  return corners;
}

/// A face on its way to the rank that counts the faces with its corner ids.
struct FaceKey {
  // The sorted ids of its corners (0 where a 2-D face has no more), then a digest of the
  // sorted ids of all its nodes: faces whose corners alone agree (two elements across a
  // periodic direction of two elements) are told apart by the nodes between.
  std::array<std::int64_t, 5> corners{};
  std::int64_t slot = 0;  // local element * 2 dim + face, on the sender
};

struct FaceCount {
  std::int64_t slot = 0;
  std::int64_t count = 0;
};

/// Collective: for each local face (element k, face s at k * 2 dim + s), how many faces of
/// the mesh, itself included, have the same node ids; 1: no other element shares it. Found
/// from the ids alone: each face goes to an owner rank chosen by a hash of its key (FaceKey),
/// the owner counts equal keys and sends the counts back.
std::vector<std::int64_t> face_sharing(const Subject& subject) {
  const int dim = subject.mesh.dim(), order = subject.mesh.order(), faces = 2 * dim;
  const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
  int ranks = 1;
  MPI_Comm_size(subject.comm, &ranks);
  std::vector<std::vector<int>> corners, face_nodes(static_cast<std::size_t>(faces));
  for (int s = 0; s < faces; ++s) {
    corners.push_back(face_corners(dim, order, s));
    for (int n = 0; n < static_cast<int>(nodes); ++n)
      if (on_face(order, n, s)) face_nodes[s].push_back(n);
  }
  auto mix = [](std::uint64_t hash, std::int64_t value) {
    hash ^= static_cast<std::uint64_t>(value);
    hash *= 0xff51afd7ed558ccdULL;
    return hash ^ (hash >> 33);
  };
  std::vector<FaceKey> keys;
  std::vector<int> owners;
  std::vector<std::int64_t> ids;
  for (std::size_t k = 0; k < subject.mesh.local_elements(); ++k)
    for (int s = 0; s < faces; ++s) {
      FaceKey key;
      for (std::size_t c = 0; c < corners[s].size(); ++c)
        key.corners[c] = subject.ids[k * nodes + static_cast<std::size_t>(corners[s][c])];
      std::sort(key.corners.begin(), key.corners.begin() + 4);  // a 2-D face's two unused zeros come first
      ids.clear();
      for (const int n : face_nodes[s]) ids.push_back(subject.ids[k * nodes + static_cast<std::size_t>(n)]);
      std::sort(ids.begin(), ids.end());
      std::uint64_t digest = 0x9e3779b97f4a7c15ULL;
      for (const std::int64_t id : ids) digest = mix(digest, id);
      key.corners[4] = static_cast<std::int64_t>(digest);
      key.slot = static_cast<std::int64_t>(k) * faces + s;
      std::uint64_t hash = 0;
      for (const std::int64_t value : key.corners) hash = mix(hash, value);
      keys.push_back(key);
      owners.push_back(static_cast<int>(hash % static_cast<std::uint64_t>(ranks)));
    }
  const Received<FaceKey> owned = transfer(keys, owners, subject.comm);
  std::vector<std::size_t> order_of(owned.records.size());
  for (std::size_t i = 0; i < order_of.size(); ++i) order_of[i] = i;
  std::sort(order_of.begin(), order_of.end(),
            [&](std::size_t a, std::size_t b) { return owned.records[a].corners < owned.records[b].corners; });
  std::vector<FaceCount> counts(owned.records.size());
  for (std::size_t first = 0; first < order_of.size();) {
    std::size_t last = first;
    while (last < order_of.size() && owned.records[order_of[last]].corners == owned.records[order_of[first]].corners)
      ++last;
    for (std::size_t i = first; i < last; ++i)
      counts[order_of[i]] = {owned.records[order_of[i]].slot, static_cast<std::int64_t>(last - first)};
    first = last;
  }
  const Received<FaceCount> back = transfer(counts, owned.sources, subject.comm);
  std::vector<std::int64_t> sharing(keys.size(), 0);
  for (const FaceCount& count : back.records) sharing[static_cast<std::size_t>(count.slot)] = count.count;
  return sharing;
}

/// Nek5000's letters as one integer (0: none), and back.
std::int64_t kind_code(const std::array<char, 4>& kind) {
  std::int64_t code = 0;
  for (int c = 0; c < 3 && kind[c]; ++c)
    code |= static_cast<std::int64_t>(static_cast<unsigned char>(kind[c])) << (8 * c);
  return code;
}
std::string kind_text(std::int64_t code) {
  std::string text;
  for (; code; code >>= 8) text += static_cast<char>(code & 0xff);
  return text;
}

/// The name the file gives tag `tag` of dimension `dim`, or "".
std::string tag_name(const MeshInfo& info, int dim, std::int64_t tag) {
  for (const MeshName& name : info.names)
    if (name.dim == dim && name.tag == tag) return name.name;
  return "";
}

/// Faces of a problem, (element, face, field) as file element, 0-based face and 0-based
/// field, the first few over all ranks with the rank holding the first (-1: none).
struct FaceList {
  std::vector<std::array<std::int64_t, 3>> first;
  int rank = -1;
};

/// Collective: the first `faces_listed` of every rank's `mine` (sorted by element, face, field).
FaceList first_faces(std::vector<std::array<std::int64_t, 3>> mine, const Subject& subject) {
  std::sort(mine.begin(), mine.end());
  if (mine.size() > faces_listed) mine.resize(faces_listed);
  std::vector<long long> flat;
  for (const auto& face : mine) flat.insert(flat.end(), {face[0], face[1], face[2], subject.rank});
  const std::vector<long long> all = gather_all(flat, subject.comm);
  std::vector<std::array<std::int64_t, 4>> merged;
  for (std::size_t i = 0; i + 3 < all.size(); i += 4) merged.push_back({all[i], all[i + 1], all[i + 2], all[i + 3]});
  std::sort(merged.begin(), merged.end());
  FaceList list;
  for (std::size_t i = 0; i < merged.size() && i < faces_listed; ++i)
    list.first.push_back({merged[i][0], merged[i][1], merged[i][2]});
  if (!merged.empty()) list.rank = static_cast<int>(merged[0][3]);
  return list;
}

/// "element 3 face t+, element 5 face r- (field 2), ... and 4 more".
std::string face_list_text(const FaceList& list, std::int64_t count, bool with_field) {
  std::string text;
  for (const auto& [element, face, field] : list.first) {
    if (!text.empty()) text += ", ";
    text += "element " + std::to_string(element) + " face " + face_names[face];
    if (with_field) text += " (field " + std::to_string(field + 1) + ")";
  }
  if (count > static_cast<std::int64_t>(list.first.size()))
    text += " and " + std::to_string(count - static_cast<std::int64_t>(list.first.size())) + " more";
  return text;
}

/// The "boundary" member: per field, faces by tag and how many are shared with another
/// element (from the ids, not the file), periodic (-2), tagged and shared (interfaces, legal),
/// periodic without an image and open (field 1 faces, of the fluid elements when the file
/// says how many, that nobody shares and that have no boundary condition: problems).
json check_boundary(const Subject& subject, Problems& problems) {
  const Mesh& mesh = subject.mesh;
  const int dim = mesh.dim(), faces = 2 * dim, fields = mesh.info.boundary_fields;
  const std::vector<std::int64_t> sharing = face_sharing(subject);
  enum Count { shared, periodic, tagged_and_shared, no_condition_faces, open, periodic_unshared, counts_per_field };
  std::vector<long long> counts(static_cast<std::size_t>(fields * counts_per_field), 0);
  std::map<std::pair<int, std::int64_t>, std::int64_t> tags;  // (field, tag) -> faces
  std::map<std::array<std::int64_t, 3>, std::int64_t> kinds;  // (field, tag, kind letters) -> faces
  std::vector<std::array<std::int64_t, 3>> open_faces, lonely_periodic;
  const std::int64_t fluid = mesh.info.fluid_elements > 0 ? mesh.info.fluid_elements : mesh.info.elements;
  for (std::size_t k = 0; k < mesh.local_elements(); ++k)
    for (int f = 0; f < fields; ++f)
      for (int s = 0; s < faces; ++s) {
        const std::size_t at = (k * static_cast<std::size_t>(fields) + static_cast<std::size_t>(f)) * faces + s;
        const std::int64_t tag = mesh.boundary[at];
        const bool is_shared = sharing[k * faces + static_cast<std::size_t>(s)] > 1;
        long long* count = &counts[static_cast<std::size_t>(f * counts_per_field)];
        count[shared] += is_shared;
        if (tag >= 0) {
          count[tagged_and_shared] += is_shared;
          ++tags[{f, tag}];
          if (mesh.info.has_boundary_kinds) ++kinds[{f, tag, kind_code(mesh.boundary_kinds[at])}];
        } else if (tag == periodic_face) {
          ++count[periodic];
          if (!is_shared) {
            ++count[periodic_unshared];
            lonely_periodic.push_back({mesh.elements[k], s, f});
          }
        } else if (tag == no_condition) {
          ++count[no_condition_faces];
          if (!is_shared && (f > 0 || mesh.elements[k] < fluid)) {
            ++count[open];
            if (f == 0) open_faces.push_back({mesh.elements[k], s, f});
          }
        }
      }
  detail::allreduce_polled(counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_SUM, subject.comm,
                           timeout());
  const auto all_tags = merge_histograms(tags, subject.comm);
  std::map<std::array<std::int64_t, 3>, std::int64_t> all_kinds;
  {
    std::vector<long long> flat;
    for (const auto& [key, n] : kinds) flat.insert(flat.end(), {key[0], key[1], key[2], n});
    const std::vector<long long> all = gather_all(flat, subject.comm);
    for (std::size_t i = 0; i + 3 < all.size(); i += 4) all_kinds[{all[i], all[i + 1], all[i + 2]}] += all[i + 3];
  }

  json fields_json = json::array();
  std::int64_t open_total = 0, lonely_total = 0;
  for (int f = 0; f < fields; ++f) {
    const long long* count = &counts[static_cast<std::size_t>(f * counts_per_field)];
    json field;
    field["field"] = f + 1;
    field["faces"] = mesh.info.elements * faces;
    field["shared"] = count[shared];
    field["periodic"] = count[periodic];
    field["tagged_and_shared"] = count[tagged_and_shared];
    field["no_condition"] = count[no_condition_faces];
    field["open"] = count[open];
    field["periodic_unshared"] = count[periodic_unshared];
    json by_tag = json::object();
    for (const auto& [key, n] : all_tags) {
      if (key.first != f) continue;
      json& entry = by_tag[std::to_string(key.second)];
      entry["faces"] = n;
      const std::string name = tag_name(mesh.info, dim - 1, key.second);
      if (!name.empty()) entry["name"] = name;
      if (mesh.info.has_boundary_kinds) entry["kinds"] = json::object();
    }
    for (const auto& [key, n] : all_kinds)
      if (key[0] == f) by_tag[std::to_string(key[1])]["kinds"][kind_text(key[2])] = n;
    field["tags"] = by_tag;
    fields_json.push_back(field);
    lonely_total += count[periodic_unshared];
    if (f == 0) open_total = count[open];
  }
  json boundary;
  boundary["fields"] = fields_json;
  boundary["fluid_elements"] = mesh.info.fluid_elements;
  if (open_total) {
    const FaceList list = first_faces(open_faces, subject);
    problems.texts.push_back(std::to_string(open_total) +
                             " open faces (faces of field 1 that no other element shares and that have no boundary "
                             "condition, -1): " +
                             face_list_text(list, open_total, false));
    problems.ranks.push_back(list.rank);
  }
  if (lonely_total) {
    const FaceList list = first_faces(lonely_periodic, subject);
    problems.texts.push_back(
        std::to_string(lonely_total) +
        " faces marked periodic (-2) that no other element shares: " + face_list_text(list, lonely_total, true));
    problems.ranks.push_back(list.rank);
  }
  return boundary;
}

/// Elements per group (/mesh/groups), with the group's name when the file gives one.
json count_groups(const Subject& subject) {
  std::map<std::pair<int, std::int64_t>, std::int64_t> local;
  for (const std::int64_t group : subject.mesh.groups) ++local[{0, group}];
  json groups = json::object();
  for (const auto& [key, n] : merge_histograms(local, subject.comm)) {
    json& entry = groups[std::to_string(key.second)];
    entry["elements"] = n;
    const std::string name = tag_name(subject.mesh.info, subject.mesh.dim(), key.second);
    if (!name.empty()) entry["name"] = name;
  }
  return groups;
}

/// Per entry, 1 when every copy of its id lies on a face marked periodic (-2) in some field,
/// else 0 (gs(min) of the entries' own flags); empty without /mesh/boundary.
std::vector<std::int64_t> groups_on_periodic_faces(Handle& handle, const Subject& subject) {
  const Mesh& mesh = subject.mesh;
  const int fields = mesh.info.boundary_fields;
  if (fields == 0) return {};
  const int faces = 2 * mesh.dim(), nodes = mesh.nodes_per_element();
  std::vector<std::int64_t> flags(subject.ids.size(), 0);
  for (std::size_t k = 0; k < mesh.local_elements(); ++k)
    for (int f = 0; f < fields; ++f)
      for (int s = 0; s < faces; ++s) {
        if (mesh.boundary[(k * static_cast<std::size_t>(fields) + static_cast<std::size_t>(f)) * faces + s] !=
            periodic_face)
          continue;
        for (int n = 0; n < nodes; ++n)
          if (on_face(mesh.order(), n, s)) flags[k * static_cast<std::size_t>(nodes) + n] = 1;
      }
  handle.apply(std::span<std::int64_t>(flags), Op::min);
  return flags;
}

// ---- coordinate agreement -------------------------------------------------------------

/// Length of the diagonal of the bounding box of every rank's coordinates.
double box_diagonal(const Subject& subject) {
  const int dim = subject.mesh.dim();
  const auto& x = subject.mesh.coordinates;
  double squares = 0;
  for (int d = 0; d < dim; ++d) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < subject.ids.size(); ++i) {
      lo = std::min(lo, x[i * static_cast<std::size_t>(dim) + d]);
      hi = std::max(hi, x[i * static_cast<std::size_t>(dim) + d]);
    }
    const double low = reduce_double(lo, MPI_MIN, subject.comm);
    const double high = reduce_double(hi, MPI_MAX, subject.comm);
    squares += (high - low) * (high - low);
  }
  return std::sqrt(squares);
}

/// Each entry's spread: over the axes, the largest of max - min over its group's copies
/// (for a periodic axis, the smaller of the unshifted and shifted wrapped columns). Records
/// each column's digests in `reference`.
std::vector<double> entry_spreads(Handle& handle, const Subject& subject, Reference& reference) {
  std::vector<double> spread(subject.ids.size(), 0);
  std::vector<double> axis_spread;  // a periodic axis's unshifted column, until its shifted one
  for (const SpreadColumn& column : spread_columns(subject.mesh)) {
    std::vector<double> low = column_extremes(handle, subject, column, Op::min);
    reference.low.push_back(digest(low));
    std::vector<double> high = column_extremes(handle, subject, column, Op::max);
    reference.high.push_back(digest(high));
    for (std::size_t i = 0; i < high.size(); ++i) high[i] -= low[i];
    low = {};
    if (column.period > 0 && column.shift == 0) {
      axis_spread = std::move(high);
      continue;
    }
    if (column.period > 0)
      for (std::size_t i = 0; i < high.size(); ++i) high[i] = std::min(high[i], axis_spread[i]);
    axis_spread = {};
    for (std::size_t i = 0; i < high.size(); ++i) spread[i] = std::max(spread[i], high[i]);
  }
  return spread;
}

/// How far the copies of the groups lie apart, over all ranks. The worst group is the
/// smallest id attaining the worst spread, so it does not depend on the distribution.
struct SpreadSummary {
  double worst = 0;
  std::int64_t worst_id = 0;
  std::vector<double> worst_low, worst_high;  // corners of the worst group's copies
  std::int64_t groups_over = 0;
  std::int64_t groups_not_compared = 0;  // periodic images without an axis period
  std::vector<std::int64_t> first_not_compared;
};

/// The minimum and maximum corner of group `id`'s copies (infinite where no rank holds it):
/// its copies are the entries holding the id, so plain reductions suffice.
std::pair<std::vector<double>, std::vector<double>> group_corners(const Subject& subject, std::int64_t id) {
  const int dim = subject.mesh.dim();
  const auto& x = subject.mesh.coordinates;
  std::vector<double> low(static_cast<std::size_t>(dim), std::numeric_limits<double>::infinity());
  std::vector<double> high(static_cast<std::size_t>(dim), -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (subject.ids[i] == id)
      for (int d = 0; d < dim; ++d) {
        low[d] = std::min(low[d], x[i * static_cast<std::size_t>(dim) + d]);
        high[d] = std::max(high[d], x[i * static_cast<std::size_t>(dim) + d]);
      }
  detail::allreduce_polled(low.data(), dim, MPI_DOUBLE, MPI_MIN, subject.comm, timeout());
  detail::allreduce_polled(high.data(), dim, MPI_DOUBLE, MPI_MAX, subject.comm, timeout());
  return {low, high};
}

/// Collective: the smallest `faces_listed` distinct ids over all ranks of the entries where
/// `found(i)` holds.
template <class Predicate>
std::vector<std::int64_t> first_ids(const Subject& subject, Predicate&& found) {
  std::vector<long long> mine;
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (found(i)) mine.push_back(subject.ids[i]);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  if (mine.size() > faces_listed) mine.resize(faces_listed);
  std::vector<long long> all = gather_all(mine, subject.comm);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (all.size() > faces_listed) all.resize(faces_listed);
  return {all.begin(), all.end()};
}

/// `periodic` (empty without /mesh/boundary): per entry, whether every copy of its id lies on
/// a periodic face (-2); such groups over the tolerance are periodic images that no axis
/// period covers (a rotation, say): not compared, and left out of the worst group.
SpreadSummary summarize_spreads(const Subject& subject, const std::vector<std::int64_t>& multiplicity,
                                const std::vector<double>& spreads, double tolerance,
                                const std::vector<std::int64_t>& periodic) {
  const std::vector<std::int64_t>& ids = subject.ids;
  auto not_compared = [&](std::size_t i) {
    return !periodic.empty() && ids[i] != 0 && periodic[i] == 1 && spreads[i] > tolerance;
  };
  double worst = 0, groups_over = 0, groups_not_compared = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0) continue;
    if (not_compared(i)) {
      groups_not_compared += 1.0 / static_cast<double>(multiplicity[i]);
      continue;
    }
    worst = std::max(worst, spreads[i]);
    if (spreads[i] > tolerance) groups_over += 1.0 / static_cast<double>(multiplicity[i]);
  }
  SpreadSummary summary;
  summary.worst = reduce_double(worst, MPI_MAX, subject.comm);
  groups_over = reduce_double(groups_over, MPI_SUM, subject.comm);
  // Collective: the same answer on every rank, also on one that holds no element (and so
  // an empty `periodic`).
  if (subject.mesh.info.boundary_fields > 0) {
    summary.groups_not_compared =
        static_cast<std::int64_t>(std::llround(reduce_double(groups_not_compared, MPI_SUM, subject.comm)));
    summary.first_not_compared = first_ids(subject, not_compared);
  }
  std::int64_t worst_id = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0 && !not_compared(i) && spreads[i] == summary.worst) worst_id = std::min(worst_id, ids[i]);
  summary.worst_id = reduce_int(worst_id, MPI_MIN, subject.comm);
  std::tie(summary.worst_low, summary.worst_high) = group_corners(subject, summary.worst_id);
  summary.groups_over = static_cast<std::int64_t>(std::llround(groups_over));
  return summary;
}

json check_coordinates(Handle& handle, const Subject& subject, const std::vector<std::int64_t>& multiplicity,
                       double tolerance_option, Reference& reference, Problems& problems) {
  const std::vector<std::int64_t> periodic =
      subject.mesh.has_coordinates() ? groups_on_periodic_faces(handle, subject) : std::vector<std::int64_t>{};
  json coordinates;
  coordinates["checked"] = subject.mesh.has_coordinates();
  if (!subject.mesh.has_coordinates()) return coordinates;
  const double diagonal = box_diagonal(subject);
  const double tolerance = tolerance_option >= 0 ? tolerance_option : 1e-9 * std::max(diagonal, 1.0);
  const SpreadSummary spreads =
      summarize_spreads(subject, multiplicity, entry_spreads(handle, subject, reference), tolerance, periodic);
  coordinates["tolerance"] = tolerance;
  coordinates["worst_spread"] = spreads.worst;
  coordinates["worst_id"] = spreads.worst_id;
  coordinates["worst_min"] = spreads.worst_low;
  coordinates["worst_max"] = spreads.worst_high;
  coordinates["groups_over_tolerance"] = spreads.groups_over;
  if (subject.mesh.info.boundary_fields > 0) {
    coordinates["periodic_not_compared"] = spreads.groups_not_compared;
    coordinates["periodic_not_compared_first_ids"] = spreads.first_not_compared;
  }
  if (spreads.groups_over) {
    std::ostringstream text;
    text.precision(17);
    text << spreads.groups_over << " groups have copies whose coordinates differ by more than " << tolerance
         << "; worst: id " << spreads.worst_id << ", spread " << spreads.worst;
    problems.add(text.str(), first_entry(subject, [&](std::size_t i) { return subject.ids[i] == spreads.worst_id; }));
  }
  return coordinates;
}

// ---- every method, the same answers ---------------------------------------------------

json describe_run(const CheckOptions& options, const Handle& handle, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  json run;
  run["file"] = options.path;
  run["ranks"] = ranks;
  run["distribution"] = options.distribution == Distribution::partition ? "partition" : "blocks";
  run["method"] = std::string(to_string(handle.stats().method));
  run["method_reason"] = handle.stats().method_reason;
  run["methods"] = json::object();
  return run;
}

double relative_difference(double reference, double other) {
  return std::abs(reference - other) / std::max(1.0, std::abs(reference));
}

/// How a method's answers differ from the reference, over all ranks.
struct Disagreement {
  std::int64_t multiplicities = 0, extremes = 0;
  double worst_relative = 0;  // of the sums
  Location first;

  /// "" when they agree, else what differs.
  std::string text() const {
    std::string what;
    if (multiplicities) what += std::to_string(multiplicities) + " multiplicities differ; ";
    if (extremes) what += std::to_string(extremes) + " coordinate minima/maxima differ; ";
    if (worst_relative > 1e-12) {
      std::ostringstream out;
      out << "sums differ by up to " << worst_relative << " (relative); ";
      what += out.str();
    }
    if (!what.empty()) what.resize(what.size() - 2);
    return what;
  }
};

/// Collective: whether `candidate`'s digest differs from `expected` on any rank.
template <class T>
bool digest_differs(const std::vector<T>& candidate, std::uint64_t expected, MPI_Comm comm) {
  return reduce_int(digest(candidate) != expected, MPI_MAX, comm) != 0;
}

/// Collective, after a digest mismatch: how many entries of `candidate` differ bitwise from
/// the reference `recompute()` produces, and where the first one is.
template <class T, class Recompute>
std::int64_t count_differences(const Subject& subject, const std::vector<T>& candidate, Recompute&& recompute,
                               Disagreement& disagreement) {
  const std::vector<T> reference = recompute();
  std::int64_t differences = 0;
  for (std::size_t i = 0; i < candidate.size(); ++i) differences += candidate[i] != reference[i];
  disagreement.first =
      earlier(disagreement.first, first_entry(subject, [&](std::size_t i) { return candidate[i] != reference[i]; }));
  return reduce_int(differences, MPI_SUM, subject.comm);
}

/// For --inject-difference: changes the last entry of the last rank (if it holds any).
template <class T>
void alter_last_entry(std::vector<T>& values, const Subject& subject, bool alter) {
  int ranks = 1;
  MPI_Comm_size(subject.comm, &ranks);
  if (alter && subject.rank == ranks - 1 && !values.empty()) values.back() += 1;
}

/// Runs `candidate` on every field and compares with the reference: integers and min/max
/// bitwise (through the digests; `main` recomputes a field that differs), sums to rounding.
/// `alter`: testing only, see CheckOptions::inject_difference.
Disagreement compare_with_reference(Handle& main, Handle& candidate, const Subject& subject, const Reference& reference,
                                    bool alter) {
  Disagreement disagreement;
  {
    std::vector<std::int64_t> multiplicity = multiplicities(candidate, subject);
    alter_last_entry(multiplicity, subject, alter);
    if (digest_differs(multiplicity, reference.multiplicity, subject.comm))
      disagreement.multiplicities = count_differences(
          subject, multiplicity, [&] { return multiplicities(main, subject); }, disagreement);
  }
  if (subject.mesh.has_coordinates()) {
    const std::vector<SpreadColumn> columns = spread_columns(subject.mesh);
    for (std::size_t c = 0; c < columns.size(); ++c)
      for (const Op op : {Op::min, Op::max}) {
        std::vector<double> extremes = column_extremes(candidate, subject, columns[c], op);
        alter_last_entry(extremes, subject, alter && c == 0 && op == Op::min);
        if (digest_differs(extremes, op == Op::min ? reference.low[c] : reference.high[c], subject.comm))
          disagreement.extremes += count_differences(
              subject, extremes, [&] { return column_extremes(main, subject, columns[c], op); }, disagreement);
      }
  }
  std::vector<double> candidate_sums = sums(candidate, subject);
  alter_last_entry(candidate_sums, subject, alter);
  double worst = 0;
  for (std::size_t i = 0; i < candidate_sums.size(); ++i)
    worst = std::max(worst, relative_difference(reference.sums[i], candidate_sums[i]));
  disagreement.worst_relative = reduce_double(worst, MPI_MAX, subject.comm);
  if (disagreement.worst_relative > 1e-12)
    disagreement.first = earlier(disagreement.first, first_entry(subject, [&](std::size_t i) {
                                   return relative_difference(reference.sums[i], candidate_sums[i]) > 1e-12;
                                 }));
  return disagreement;
}

/// Reruns the answers with every concrete method: a disagreement with the main run's (by
/// `reference_method`) is a problem; a method that cannot be set up is "unavailable", not
/// a problem of the mesh.
json compare_methods(Handle& main, const Subject& subject, const Reference& reference, Method reference_method,
                     std::optional<Method> inject_difference, Steps& steps, Problems& problems) {
  json methods = json::object();
  for (const Method method : registered_methods()) {
    steps.begin("comparing method " + std::string(to_string(method)));
    json& entry = methods[std::string(to_string(method))];
    try {
      SetupOptions other;
      other.method = method;
      Handle candidate(subject.ids, subject.comm, other);
      const Disagreement disagreement =
          compare_with_reference(main, candidate, subject, reference, inject_difference == method);
      const std::string difference = disagreement.text();
      entry["status"] = difference.empty() ? "same" : "different";
      if (!difference.empty()) {
        entry["detail"] = difference;
        problems.add("method " + std::string(to_string(method)) + " disagrees with " +
                         std::string(to_string(reference_method)) + ": " + difference,
                     disagreement.first);
      }
    } catch (const Error& e) {
      entry["status"] = "unavailable";
      entry["detail"] = e.what();
    }
  }
  return methods;
}

}  // namespace

json check_mesh(const CheckOptions& options, MPI_Comm comm) {
  Steps steps(options);
  steps.begin("reading " + options.path);
  Subject subject = load_subject(options, comm);
  const bool has_boundary = subject.mesh.info.boundary_fields > 0;
  if (has_boundary) steps.add_step();
  steps.begin("checking the ids");
  const IdCounts id_counts = count_ids(subject);
  steps.begin("setting up gather-scatter");
  SetupOptions setup;
  setup.method = options.method;
  Handle handle(subject.ids, comm, setup);

  json report;
  Problems problems;
  Reference reference;
  report["report"] = "gsr-check";
  report["version"] = 1;
  report["mesh"] = describe_mesh(subject);
  {
    steps.begin("counting multiplicities");
    const std::vector<std::int64_t> multiplicity = multiplicities(handle, subject);
    reference.multiplicity = digest(multiplicity);
    const MultiplicityCounts counts = count_multiplicities(subject, multiplicity);
    report["ids"] = report_ids(subject, id_counts, counts.distinct, problems);
    report["multiplicity"] = report_multiplicities(subject, multiplicity, counts, problems);
    if (has_boundary) {
      steps.begin("checking the boundary faces");
      report["boundary"] = check_boundary(subject, problems);
    }
    if (subject.mesh.info.has_groups) report["groups"] = count_groups(subject);
    steps.begin("measuring coordinate spreads");
    report["coordinates"] = check_coordinates(handle, subject, multiplicity, options.tolerance, reference, problems);
  }
  steps.begin("summing a test field");
  reference.sums = sums(handle, subject);
  report["run"] = describe_run(options, handle, comm);
  if (options.compare_methods)
    report["run"]["methods"] =
        compare_methods(handle, subject, reference, handle.stats().method, options.inject_difference, steps, problems);
  report["run"]["problem_ranks"] = problems.ranks;
  report["problems"] = problems.texts;
  report["consistent"] = problems.texts.empty();
  steps.finish();
  return report;
}

std::string summarize(const json& report) {
  std::ostringstream out;
  const json& mesh = report.at("mesh");
  const json& ids = report.at("ids");
  const json& multiplicity = report.at("multiplicity");
  const json& coordinates = report.at("coordinates");
  const json& run = report.at("run");
  out << "gsr-check: " << run.at("file").get<std::string>() << " on " << run.at("ranks") << " rank"
      << (run.at("ranks").get<int>() == 1 ? "" : "s") << " (" << run.at("distribution").get<std::string>()
      << ", method " << run.at("method").get<std::string>() << ")\n";
  out << "  mesh          " << mesh.at("dim") << "-D, order " << mesh.at("order") << ", " << mesh.at("elements")
      << " elements, " << mesh.at("entries") << " entries"
      << (mesh.at("coordinates").get<bool>() ? ", with coordinates" : ", no coordinates") << "\n";
  out << "  ids           " << ids.at("distinct") << " distinct, largest " << ids.at("max")
      << (ids.at("compact").get<bool>() ? " (compact 1..max)" : "") << "; " << ids.at("zero") << " zero, "
      << ids.at("negative") << " negative, " << ids.at("out_of_range") << " out of range, "
      << ids.at("elements_repeating_an_id") << " elements repeating an id\n";
  out << "  multiplicity ";
  for (const auto& [m, count] : multiplicity.at("groups").items()) out << " " << m << ": " << count << " groups;";
  out << "\n";
  for (const auto& [kind, counts] : multiplicity.at("entries_by_node_kind").items()) {
    out << "    " << kind << " entries:";
    for (const auto& [m, count] : counts.items()) out << " " << count << " x" << m;
    out << "\n";
  }
  out << "  boundary      " << multiplicity.at("unshared_boundary_entries")
      << " element-boundary entries unshared (domain boundary); " << multiplicity.at("shared_interior_entries")
      << " element-interior entries shared\n";
  if (report.contains("boundary")) {
    for (const json& field : report.at("boundary").at("fields")) {
      out << "  faces         field " << field.at("field") << ": " << field.at("faces") << " faces, "
          << field.at("shared") << " shared with another element (" << field.at("tagged_and_shared")
          << " of them tagged), " << field.at("periodic") << " periodic, " << field.at("open") << " open\n";
      for (const auto& [tag, entry] : field.at("tags").items()) {
        out << "    tag " << tag;
        if (entry.contains("name")) out << " (" << entry.at("name").get<std::string>() << ")";
        out << ": " << entry.at("faces") << " faces";
        if (entry.contains("kinds"))
          for (const auto& [kind, count] : entry.at("kinds").items())
            out << "; " << (kind.empty() ? "no letter" : kind) << " " << count;
        out << "\n";
      }
    }
  }
  if (report.contains("groups")) {
    out << "  groups       ";
    for (const auto& [group, entry] : report.at("groups").items()) {
      out << " " << group;
      if (entry.contains("name")) out << " (" << entry.at("name").get<std::string>() << ")";
      out << ": " << entry.at("elements") << " elements;";
    }
    out << "\n";
  }
  if (coordinates.at("checked").get<bool>()) {
    out << "  coordinates   worst spread " << coordinates.at("worst_spread").get<double>() << " at id "
        << coordinates.at("worst_id") << " (tolerance " << coordinates.at("tolerance").get<double>() << "); "
        << coordinates.at("groups_over_tolerance") << " groups over tolerance\n";
    if (coordinates.value("periodic_not_compared", 0) > 0) {
      out << "                " << coordinates.at("periodic_not_compared")
          << " groups not compared (periodic images without an axis period): ids";
      for (const json& id : coordinates.at("periodic_not_compared_first_ids")) out << " " << id;
      if (coordinates.at("periodic_not_compared").get<std::int64_t>() >
          static_cast<std::int64_t>(coordinates.at("periodic_not_compared_first_ids").size()))
        out << " ...";
      out << "\n";
    }
  } else {
    out << "  coordinates   not in the file: not checked\n";
  }
  out << "  methods      ";
  if (run.at("methods").empty()) out << " not compared";
  for (const auto& [name, entry] : run.at("methods").items())
    out << " " << name << ": " << entry.at("status").get<std::string>() << ";";
  out << "\n";
  for (const auto& [name, entry] : run.at("methods").items())
    if (entry.at("status") == "unavailable")
      out << "  WARNING: method " << name << " could not be checked: " << entry.at("detail").get<std::string>() << "\n";
  const json& problems = report.at("problems");
  const json ranks = run.value("problem_ranks", json::array());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    out << "  PROBLEM: " << problems[p].get<std::string>();
    if (p < ranks.size() && ranks[p].is_number()) out << " (rank " << ranks[p].get<int>() << ")";
    out << "\n";
  }
  out << "  result        " << (report.at("consistent").get<bool>() ? "CONSISTENT" : "INCONSISTENT") << "\n";
  return out.str();
}

std::vector<std::string> compare_reports(const json& expected, const json& actual) {
  json left = expected, right = actual;
  left.erase("run");
  right.erase("run");
  std::vector<std::string> differences;
  for (const json& change : json::diff(left, right)) {
    const std::string path = change.at("path").get<std::string>();
    const std::string op = change.at("op").get<std::string>();
    const json::json_pointer pointer(path);
    if (op == "replace")
      differences.push_back(path + ": expected " + left.at(pointer).dump() + ", got " + change.at("value").dump());
    else if (op == "add")
      differences.push_back(path + ": not in the expected report, got " + change.at("value").dump());
    else if (op == "remove")
      differences.push_back(path + ": expected " + left.at(pointer).dump() + ", missing");
    else
      differences.push_back(path + ": " + op);
  }
  return differences;
}

}  // namespace gsr::tools
