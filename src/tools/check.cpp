// tools/check.cpp — what gsr-check measures, and how reports are printed and compared.
//
// Everything is computed with gather-scatter operations on the mesh's own ids, which is
// both the check and a test of the runtime: multiplicity = gs(add) of ones; coordinate
// spread of a node's copies = gs(max) - gs(min) per component; then every exchange method
// must reproduce those results. check_mesh runs the steps below in this order, which is
// also the order of the problems in the report.
#include "tools/check.hpp"

#include <gsr/handle.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

namespace gsr::tools {
namespace {

using nlohmann::json;

std::int64_t reduce_int(std::int64_t value, MPI_Op op, MPI_Comm comm) {
  long long local = value, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, op, comm);
  return global;
}

double reduce_double(double value, MPI_Op op, MPI_Comm comm) {
  double global = 0;
  MPI_Allreduce(&value, &global, 1, MPI_DOUBLE, op, comm);
  return global;
}
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

/// Every rank's (kind, multiplicity) -> entries counts, merged on every rank.
std::map<std::pair<int, std::int64_t>, std::int64_t> merge_histograms(
    const std::map<std::pair<int, std::int64_t>, std::int64_t>& local, MPI_Comm comm) {
  std::vector<long long> flat;
  for (const auto& [key, count] : local) flat.insert(flat.end(), {key.first, key.second, count});
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const int length = static_cast<int>(flat.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks), 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<long long> all(static_cast<std::size_t>(offsets.back() + lengths.back()));
  MPI_Allgatherv(flat.data(), length, MPI_LONG_LONG, all.data(), lengths.data(), offsets.data(), MPI_LONG_LONG, comm);
  std::map<std::pair<int, std::int64_t>, std::int64_t> merged;
  for (std::size_t i = 0; i + 2 < all.size(); i += 3) merged[{static_cast<int>(all[i]), all[i + 1]}] += all[i + 2];
  return merged;
}

double wrap(double x, double period) { return x - period * std::floor(x / period); }

/// The per-entry values whose min and max over a group's copies measure its spread: the
/// raw coordinates, then, for each periodic axis, the coordinate wrapped into [0, L) and
/// wrapped after a shift by L/2 (copies at 0 and at L agree in one of the two).
struct SpreadValues {
  int width = 0;  // values per entry
  std::vector<int> periodic_axes;
  std::vector<double> values;
};

SpreadValues spread_values(const Mesh& mesh) {
  SpreadValues s;
  const int dim = mesh.dim();
  for (int d = 0; d < dim; ++d)
    if (mesh.info.periods[d] > 0) s.periodic_axes.push_back(d);
  s.width = dim + 2 * static_cast<int>(s.periodic_axes.size());
  const std::size_t n = mesh.ids.size();
  s.values.resize(n * static_cast<std::size_t>(s.width));
  for (std::size_t i = 0; i < n; ++i) {
    double* row = &s.values[i * static_cast<std::size_t>(s.width)];
    const double* x = &mesh.coordinates[i * static_cast<std::size_t>(dim)];
    for (int d = 0; d < dim; ++d) row[d] = x[d];
    int column = dim;
    for (const int d : s.periodic_axes) {
      const double period = mesh.info.periods[d];
      row[column++] = wrap(x[d], period);
      row[column++] = wrap(x[d] + period / 2, period);
    }
  }
  return s;
}

/// Spread of entry i's group from the gathered minima and maxima.
double entry_spread(const SpreadValues& s, int dim, const std::vector<double>& low,
                    const std::vector<double>& high, std::size_t i) {
  const std::size_t base = i * static_cast<std::size_t>(s.width);
  double spread = 0;
  int column = dim;
  for (int d = 0; d < dim; ++d) {
    double axis = high[base + d] - low[base + d];
    if (std::find(s.periodic_axes.begin(), s.periodic_axes.end(), d) != s.periodic_axes.end()) {
      const double plain = high[base + column] - low[base + column];
      const double shifted = high[base + column + 1] - low[base + column + 1];
      axis = std::min(plain, shifted);
      column += 2;
    }
    spread = std::max(spread, axis);
  }
  return spread;
}

/// The mesh under check, and what every step reads: its ids as grouped (by |id|: a flag is
/// a problem in itself, so flagged entries are grouped regardless) and, with coordinates,
/// the values whose spread the coordinate step measures.
struct Subject {
  Mesh mesh;
  std::int64_t entries = 0;  // E (N+1)^dim, over all ranks
  std::vector<std::int64_t> ids;
  std::optional<SpreadValues> spread;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;

  const SpreadValues* spread_or_null() const { return spread ? &*spread : nullptr; }
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

/// Collective: the first entry over all ranks (lowest file element, then node) at whose
/// local index `found(i)` holds, so the answer does not depend on the distribution.
template <class Predicate>
Location first_entry(const Subject& subject, Predicate&& found) {
  const auto nodes = static_cast<std::int64_t>(subject.mesh.nodes_per_element());
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t local = none;
  for (std::size_t i = 0; i < subject.mesh.ids.size(); ++i)
    if (found(i)) {
      const auto k = static_cast<std::int64_t>(i);
      local = std::min(local, subject.mesh.elements[static_cast<std::size_t>(k / nodes)] * nodes + k % nodes);
    }
  const std::int64_t global = reduce_int(local, MPI_MIN, subject.comm);
  if (global == none) return {};
  const auto holder = reduce_int(local == global ? subject.rank : std::numeric_limits<int>::max(), MPI_MIN, subject.comm);
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
  const auto& ids = subject.mesh.ids;
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
  const Mesh& mesh = subject.mesh;
  subject.comm = comm;
  MPI_Comm_rank(comm, &subject.rank);
  subject.entries = mesh.info.elements * static_cast<std::int64_t>(mesh.nodes_per_element());
  require_representable_ids(subject, options.path);
  require_finite_coordinates(subject, options.path);
  subject.ids.resize(mesh.ids.size());
  std::transform(mesh.ids.begin(), mesh.ids.end(), subject.ids.begin(),
                 [](std::int64_t id) { return id < 0 ? -id : id; });
  if (mesh.has_coordinates()) subject.spread = spread_values(mesh);
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

/// Results of one handle on the mesh, to compare methods with each other.
struct Answers {
  std::vector<std::int64_t> multiplicity;
  std::vector<double> low, high;  // empty without coordinates
  std::vector<double> sums;       // gs(add) of a floating test field
};

std::vector<double> test_field(const Mesh& mesh, int rank) {
  // Different on every copy, so sums exercise the canonical combination order.
  std::vector<double> field(mesh.ids.size());
  for (std::size_t i = 0; i < field.size(); ++i)
    field[i] = 1.0 + 0.5 * std::sin(static_cast<double>(mesh.ids[i])) + 1e-3 * (rank + 1) + 1e-7 * static_cast<double>(i % 97);
  return field;
}

Answers answers_of(Handle& handle, const Subject& subject) {
  const Mesh& mesh = subject.mesh;
  Answers a;
  a.multiplicity.assign(mesh.ids.size(), 1);
  handle.apply(std::span<std::int64_t>(a.multiplicity), Op::add);
  if (const SpreadValues* spread = subject.spread_or_null()) {
    a.low = spread->values;
    a.high = spread->values;
    handle.apply_vec(std::span<double>(a.low), static_cast<std::size_t>(spread->width), Op::min);
    handle.apply_vec(std::span<double>(a.high), static_cast<std::size_t>(spread->width), Op::max);
  }
  a.sums = test_field(mesh, subject.rank);
  handle.apply(std::span<double>(a.sums), Op::add);
  return a;
}

double relative_difference(double reference, double other) {
  return std::abs(reference - other) / std::max(1.0, std::abs(reference));
}

/// Whether entry i's answers differ (integers and min/max bitwise, sums beyond rounding).
bool entry_differs(const Answers& reference, const Answers& other, std::size_t i) {
  const std::size_t width = reference.low.size() / std::max<std::size_t>(reference.sums.size(), 1);
  for (std::size_t c = i * width; c < (i + 1) * width; ++c)
    if (reference.low[c] != other.low[c] || reference.high[c] != other.high[c]) return true;
  return reference.multiplicity[i] != other.multiplicity[i] ||
         relative_difference(reference.sums[i], other.sums[i]) > 1e-12;
}

/// Compares a method's answers with the reference: integers and min/max must match
/// bitwise, sums to rounding. Returns "" when they agree, else what differs.
std::string compare_answers(const Answers& reference, const Answers& other, MPI_Comm comm) {
  std::int64_t multiplicity_differences = 0, extreme_differences = 0;
  for (std::size_t i = 0; i < reference.multiplicity.size(); ++i)
    multiplicity_differences += reference.multiplicity[i] != other.multiplicity[i];
  for (std::size_t i = 0; i < reference.low.size(); ++i)
    extreme_differences += (reference.low[i] != other.low[i]) + (reference.high[i] != other.high[i]);
  double worst_relative = 0;
  for (std::size_t i = 0; i < reference.sums.size(); ++i)
    worst_relative = std::max(worst_relative, relative_difference(reference.sums[i], other.sums[i]));
  multiplicity_differences = reduce_int(multiplicity_differences, MPI_SUM, comm);
  extreme_differences = reduce_int(extreme_differences, MPI_SUM, comm);
  worst_relative = reduce_double(worst_relative, MPI_MAX, comm);
  std::string what;
  if (multiplicity_differences) what += std::to_string(multiplicity_differences) + " multiplicities differ; ";
  if (extreme_differences) what += std::to_string(extreme_differences) + " coordinate minima/maxima differ; ";
  if (worst_relative > 1e-12) {
    std::ostringstream text;
    text << "sums differ by up to " << worst_relative << " (relative); ";
    what += text.str();
  }
  if (!what.empty()) what.resize(what.size() - 2);
  return what;
}

// ---- ids on their own -----------------------------------------------------------------

/// What is wrong with the ids before any gather-scatter, over all ranks.
struct IdCounts {
  std::int64_t zero = 0, negative = 0, out_of_range = 0, largest = 0, repeating_elements = 0;
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

IdCounts count_ids(const Subject& subject) {
  IdCounts counts;
  for (std::size_t i = 0; i < subject.ids.size(); ++i) {
    const std::int64_t id = subject.mesh.ids[i];
    counts.zero += id == 0;
    counts.negative += id < 0;
    counts.out_of_range += subject.ids[i] > subject.entries;
    counts.largest = std::max(counts.largest, subject.ids[i]);
  }
  counts.repeating_elements = elements_repeating_an_id(subject, entries_repeating_an_id(subject));
  const MPI_Comm comm = subject.comm;
  counts.zero = reduce_int(counts.zero, MPI_SUM, comm);
  counts.negative = reduce_int(counts.negative, MPI_SUM, comm);
  counts.out_of_range = reduce_int(counts.out_of_range, MPI_SUM, comm);
  counts.largest = reduce_int(counts.largest, MPI_MAX, comm);
  counts.repeating_elements = reduce_int(counts.repeating_elements, MPI_SUM, comm);
  return counts;
}

/// The "ids" member; `distinct` comes from the multiplicities.
json report_ids(const Subject& subject, const IdCounts& counts, std::int64_t distinct, Problems& problems) {
  const std::int64_t entries = subject.entries;
  const std::vector<std::int64_t>& mesh_ids = subject.mesh.ids;
  json ids;
  ids["max"] = counts.largest;
  ids["zero"] = counts.zero;
  ids["negative"] = counts.negative;
  ids["out_of_range"] = counts.out_of_range;
  ids["elements_repeating_an_id"] = counts.repeating_elements;
  ids["distinct"] = distinct;
  ids["compact"] = distinct == counts.largest && counts.zero == 0;
  if (counts.zero)
    problems.add(std::to_string(counts.zero) + " zero ids (every node of a mesh needs an id >= 1)",
                 first_entry(subject, [&](std::size_t i) { return mesh_ids[i] == 0; }));
  if (counts.negative)
    problems.add(std::to_string(counts.negative) + " negative ids (flags belong in gather-scatter calls, not in mesh files)",
                 first_entry(subject, [&](std::size_t i) { return mesh_ids[i] < 0; }));
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
  std::int64_t distinct = 0;                    // groups of any size
};

MultiplicityCounts count_multiplicities(const Subject& subject, const Answers& answers) {
  const int dim = subject.mesh.dim();
  const std::vector<int> boundary = boundary_axes(dim, subject.mesh.order());
  const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
  std::map<std::pair<int, std::int64_t>, std::int64_t> local_histogram;
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (subject.ids[i] != 0) ++local_histogram[{boundary[i % nodes], answers.multiplicity[i]}];

  MultiplicityCounts counts;
  for (const auto& [key, entries] : merge_histograms(local_histogram, subject.comm)) {
    const auto [kind, multiplicity] = key;
    counts.groups[multiplicity] += entries;
    counts.by_kind[kind_name(dim, kind)][std::to_string(multiplicity)] = entries;
    if (kind == 0 && multiplicity > 1) counts.shared_interior += entries;
    if (kind != 0 && multiplicity == 1) counts.unshared_boundary += entries;
  }
  for (auto& [multiplicity, count] : counts.groups) {
    count /= multiplicity;  // entries -> groups: a group of multiplicity m has m entries
    counts.distinct += count;
  }
  return counts;
}

json report_multiplicities(const Subject& subject, const Answers& answers, const MultiplicityCounts& counts,
                           Problems& problems) {
  json groups = json::object();
  for (const auto& [multiplicity, count] : counts.groups) groups[std::to_string(multiplicity)] = count;
  json multiplicity;
  multiplicity["groups"] = groups;
  multiplicity["entries_by_node_kind"] = counts.by_kind;
  multiplicity["unshared_boundary_entries"] = counts.unshared_boundary;
  multiplicity["shared_interior_entries"] = counts.shared_interior;
  if (counts.shared_interior) {
    const std::vector<int> boundary = boundary_axes(subject.mesh.dim(), subject.mesh.order());
    const auto nodes = static_cast<std::size_t>(subject.mesh.nodes_per_element());
    problems.add(std::to_string(counts.shared_interior) +
                     " element-interior entries are shared with other copies (an interior GLL node belongs to one element)",
                 first_entry(subject, [&](std::size_t i) {
                   return subject.ids[i] != 0 && boundary[i % nodes] == 0 && answers.multiplicity[i] > 1;
                 }));
  }
  return multiplicity;
}

// ---- coordinate agreement -------------------------------------------------------------

/// Length of the diagonal of the bounding box of every rank's coordinates.
double box_diagonal(const Mesh& mesh, MPI_Comm comm) {
  const int dim = mesh.dim();
  double squares = 0;
  for (int d = 0; d < dim; ++d) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < mesh.ids.size(); ++i) {
      lo = std::min(lo, mesh.coordinates[i * static_cast<std::size_t>(dim) + d]);
      hi = std::max(hi, mesh.coordinates[i * static_cast<std::size_t>(dim) + d]);
    }
    const double low = reduce_double(lo, MPI_MIN, comm);
    const double high = reduce_double(hi, MPI_MAX, comm);
    squares += (high - low) * (high - low);
  }
  return std::sqrt(squares);
}

/// How far the copies of the groups lie apart, over all ranks. The worst group is the
/// smallest id attaining the worst spread, so it does not depend on the distribution.
struct SpreadSummary {
  double worst = 0;
  std::int64_t worst_id = 0;
  std::vector<double> worst_low, worst_high;  // corners of the worst group's copies
  std::int64_t groups_over = 0;
};

/// The minimum and maximum corner of group `id`'s copies (infinite where no rank holds it).
std::pair<std::vector<double>, std::vector<double>> group_corners(const Subject& subject, const Answers& answers,
                                                                  std::int64_t id) {
  const int dim = subject.mesh.dim();
  const auto width = static_cast<std::size_t>(subject.spread->width);
  std::vector<double> low(static_cast<std::size_t>(dim), std::numeric_limits<double>::infinity());
  std::vector<double> high(static_cast<std::size_t>(dim), -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < subject.ids.size(); ++i)
    if (subject.ids[i] == id)
      for (int d = 0; d < dim; ++d) {
        low[d] = answers.low[i * width + d];
        high[d] = answers.high[i * width + d];
      }
  MPI_Allreduce(MPI_IN_PLACE, low.data(), dim, MPI_DOUBLE, MPI_MIN, subject.comm);
  MPI_Allreduce(MPI_IN_PLACE, high.data(), dim, MPI_DOUBLE, MPI_MAX, subject.comm);
  return {low, high};
}

SpreadSummary summarize_spreads(const Subject& subject, const Answers& answers, double tolerance) {
  const std::vector<std::int64_t>& ids = subject.ids;
  double worst = 0, groups_over = 0;
  std::vector<double> spreads(ids.size(), 0);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0) continue;
    spreads[i] = entry_spread(*subject.spread, subject.mesh.dim(), answers.low, answers.high, i);
    worst = std::max(worst, spreads[i]);
    if (spreads[i] > tolerance) groups_over += 1.0 / static_cast<double>(answers.multiplicity[i]);
  }
  SpreadSummary summary;
  summary.worst = reduce_double(worst, MPI_MAX, subject.comm);
  groups_over = reduce_double(groups_over, MPI_SUM, subject.comm);
  std::int64_t worst_id = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0 && spreads[i] == summary.worst) worst_id = std::min(worst_id, ids[i]);
  summary.worst_id = reduce_int(worst_id, MPI_MIN, subject.comm);
  std::tie(summary.worst_low, summary.worst_high) = group_corners(subject, answers, summary.worst_id);
  summary.groups_over = static_cast<std::int64_t>(std::llround(groups_over));
  return summary;
}

json check_coordinates(const Subject& subject, const Answers& answers, double tolerance_option, Problems& problems) {
  json coordinates;
  coordinates["checked"] = subject.spread.has_value();
  if (!subject.spread) return coordinates;
  const double diagonal = box_diagonal(subject.mesh, subject.comm);
  const double tolerance = tolerance_option >= 0 ? tolerance_option : 1e-9 * std::max(diagonal, 1.0);
  const SpreadSummary spreads = summarize_spreads(subject, answers, tolerance);
  coordinates["tolerance"] = tolerance;
  coordinates["worst_spread"] = spreads.worst;
  coordinates["worst_id"] = spreads.worst_id;
  coordinates["worst_min"] = spreads.worst_low;
  coordinates["worst_max"] = spreads.worst_high;
  coordinates["groups_over_tolerance"] = spreads.groups_over;
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

/// Reruns the answers with every concrete method: a disagreement with `reference` (the
/// main run's, by `reference_method`) is a problem; a method that cannot be set up is
/// "unavailable", not a problem of the mesh.
json compare_methods(const Subject& subject, const Answers& reference, Method reference_method, Problems& problems) {
  json methods = json::object();
  for (const Method method : concrete_methods) {
    json& entry = methods[std::string(to_string(method))];
    try {
      SetupOptions other;
      other.method = method;
      Handle candidate(subject.ids, subject.comm, other);
      const Answers answers = answers_of(candidate, subject);
      const std::string difference = compare_answers(reference, answers, subject.comm);
      entry["status"] = difference.empty() ? "same" : "different";
      if (!difference.empty()) {
        entry["detail"] = difference;
        problems.add("method " + std::string(to_string(method)) + " disagrees with " +
                         std::string(to_string(reference_method)) + ": " + difference,
                     first_entry(subject, [&](std::size_t i) { return entry_differs(reference, answers, i); }));
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
  const Subject subject = load_subject(options, comm);
  const IdCounts id_counts = count_ids(subject);
  SetupOptions setup;
  setup.method = options.method;
  Handle handle(subject.ids, comm, setup);
  const Answers answers = answers_of(handle, subject);
  const MultiplicityCounts multiplicities = count_multiplicities(subject, answers);

  json report;
  Problems problems;
  report["report"] = "gsr-check";
  report["version"] = 1;
  report["mesh"] = describe_mesh(subject);
  report["ids"] = report_ids(subject, id_counts, multiplicities.distinct, problems);
  report["multiplicity"] = report_multiplicities(subject, answers, multiplicities, problems);
  report["coordinates"] = check_coordinates(subject, answers, options.tolerance, problems);
  report["run"] = describe_run(options, handle, comm);
  if (options.compare_methods)
    report["run"]["methods"] = compare_methods(subject, answers, handle.stats().method, problems);
  report["run"]["problem_ranks"] = problems.ranks;
  report["problems"] = problems.texts;
  report["consistent"] = problems.texts.empty();
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
  if (coordinates.at("checked").get<bool>()) {
    out << "  coordinates   worst spread " << coordinates.at("worst_spread").get<double>() << " at id "
        << coordinates.at("worst_id") << " (tolerance " << coordinates.at("tolerance").get<double>() << "); "
        << coordinates.at("groups_over_tolerance") << " groups over tolerance\n";
  } else {
    out << "  coordinates   not in the file: not checked\n";
  }
  out << "  methods      ";
  if (run.at("methods").empty()) out << " not compared";
  for (const auto& [name, entry] : run.at("methods").items()) out << " " << name << ": " << entry.at("status").get<std::string>() << ";";
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
