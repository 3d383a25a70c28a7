// tools/check.cpp — what gsr-check measures, and how reports are printed and compared.
//
// Everything is computed with gather-scatter operations on the mesh's own ids, which is
// both the check and a test of the runtime: multiplicity = gs(add) of ones; coordinate
// spread of a node's copies = gs(max) - gs(min) per component; then every exchange method
// must reproduce those results.
#include "tools/check.hpp"

#include <gsr/handle.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

namespace gsr::tools {
namespace {

using nlohmann::json;

std::int64_t sum_over_ranks(std::int64_t value, MPI_Comm comm) {
  long long local = value, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return global;
}

std::int64_t max_over_ranks(std::int64_t value, MPI_Comm comm) {
  long long local = value, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_MAX, comm);
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

Answers answers_of(Handle& handle, const Mesh& mesh, const SpreadValues* spread, int rank) {
  Answers a;
  a.multiplicity.assign(mesh.ids.size(), 1);
  handle.apply(std::span<std::int64_t>(a.multiplicity), Op::add);
  if (spread) {
    a.low = spread->values;
    a.high = spread->values;
    handle.apply_vec(std::span<double>(a.low), static_cast<std::size_t>(spread->width), Op::min);
    handle.apply_vec(std::span<double>(a.high), static_cast<std::size_t>(spread->width), Op::max);
  }
  a.sums = test_field(mesh, rank);
  handle.apply(std::span<double>(a.sums), Op::add);
  return a;
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
  for (std::size_t i = 0; i < reference.sums.size(); ++i) {
    const double scale = std::max(1.0, std::abs(reference.sums[i]));
    worst_relative = std::max(worst_relative, std::abs(reference.sums[i] - other.sums[i]) / scale);
  }
  multiplicity_differences = sum_over_ranks(multiplicity_differences, comm);
  extreme_differences = sum_over_ranks(extreme_differences, comm);
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

}  // namespace

json check_mesh(const CheckOptions& options, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  ReadOptions read;
  read.distribution = options.distribution;
  const Mesh mesh = read_mesh(options.path, comm, read);
  const int dim = mesh.dim(), order = mesh.order();
  const std::size_t nodes = static_cast<std::size_t>(mesh.nodes_per_element());
  const std::int64_t entries = mesh.info.elements * static_cast<std::int64_t>(nodes);

  json report;
  report["report"] = "gsr-check";
  report["version"] = 1;
  json& mesh_json = report["mesh"];
  mesh_json["dim"] = dim;
  mesh_json["order"] = order;
  mesh_json["elements"] = mesh.info.elements;
  mesh_json["entries"] = entries;
  mesh_json["coordinates"] = mesh.has_coordinates();
  mesh_json["periods"] = std::vector<double>(mesh.info.periods.begin(), mesh.info.periods.begin() + dim);
  json problems = json::array();

  // ---- ids on their own ---------------------------------------------------------------
  std::int64_t zero = 0, negative = 0, above = 0, largest = 0, repeating_elements = 0;
  std::vector<std::int64_t> ids(mesh.ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::int64_t id = mesh.ids[i];
    zero += id == 0;
    negative += id < 0;
    ids[i] = id < 0 ? -id : id;  // a flag is a problem in itself; group by |id| regardless
    above += ids[i] > entries;
    largest = std::max(largest, ids[i]);
  }
  std::vector<std::int64_t> element_ids(nodes);
  for (std::size_t k = 0; k < mesh.local_elements(); ++k) {
    std::copy_n(ids.begin() + static_cast<std::ptrdiff_t>(k * nodes), nodes, element_ids.begin());
    std::sort(element_ids.begin(), element_ids.end());
    for (std::size_t a = 1; a < nodes; ++a)
      if (element_ids[a] != 0 && element_ids[a] == element_ids[a - 1]) {
        ++repeating_elements;
        break;
      }
  }
  zero = sum_over_ranks(zero, comm);
  negative = sum_over_ranks(negative, comm);
  above = sum_over_ranks(above, comm);
  largest = max_over_ranks(largest, comm);
  repeating_elements = sum_over_ranks(repeating_elements, comm);
  json& ids_json = report["ids"];
  ids_json["max"] = largest;
  ids_json["zero"] = zero;
  ids_json["negative"] = negative;
  ids_json["out_of_range"] = above;
  ids_json["elements_repeating_an_id"] = repeating_elements;
  if (zero) problems.push_back(std::to_string(zero) + " zero ids (every node of a mesh needs an id >= 1)");
  if (negative) problems.push_back(std::to_string(negative) + " negative ids (flags belong in gather-scatter calls, not in mesh files)");
  if (above)
    problems.push_back(std::to_string(above) + " ids out of range (above E*(N+1)^dim = " + std::to_string(entries) +
                       ", more than there are entries)");
  if (repeating_elements)
    problems.push_back(std::to_string(repeating_elements) + " elements hold the same id at two of their own nodes");

  // ---- multiplicities -------------------------------------------------------------------
  SetupOptions setup;
  setup.method = options.method;
  Handle handle(ids, comm, setup);
  std::optional<SpreadValues> spread;
  if (mesh.has_coordinates()) spread = spread_values(mesh);
  const Answers answers = answers_of(handle, mesh, spread ? &*spread : nullptr, rank);

  const std::vector<int> boundary = boundary_axes(dim, order);
  std::map<std::pair<int, std::int64_t>, std::int64_t> local_histogram;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0) ++local_histogram[{boundary[i % nodes], answers.multiplicity[i]}];
  const auto histogram = merge_histograms(local_histogram, comm);
  std::map<std::int64_t, std::int64_t> groups;
  std::int64_t shared_interior = 0, unshared_boundary = 0;
  json by_kind = json::object();
  for (const auto& [key, count] : histogram) {
    const auto [kind, multiplicity] = key;
    groups[multiplicity] += count;
    by_kind[kind_name(dim, kind)][std::to_string(multiplicity)] = count;
    if (kind == 0 && multiplicity > 1) shared_interior += count;
    if (kind != 0 && multiplicity == 1) unshared_boundary += count;
  }
  std::int64_t distinct = 0;
  json groups_json = json::object();
  for (auto& [multiplicity, count] : groups) {
    count /= multiplicity;  // entries -> groups: a group of multiplicity m has m entries
    distinct += count;
    groups_json[std::to_string(multiplicity)] = count;
  }
  ids_json["distinct"] = distinct;
  ids_json["compact"] = distinct == largest && zero == 0;
  json& multiplicity_json = report["multiplicity"];
  multiplicity_json["groups"] = groups_json;
  multiplicity_json["entries_by_node_kind"] = by_kind;
  multiplicity_json["unshared_boundary_entries"] = unshared_boundary;
  multiplicity_json["shared_interior_entries"] = shared_interior;
  if (shared_interior)
    problems.push_back(std::to_string(shared_interior) +
                       " element-interior entries are shared with other copies (an interior GLL node belongs to one element)");

  // ---- coordinate agreement ---------------------------------------------------------------
  json& coordinates_json = report["coordinates"];
  coordinates_json["checked"] = spread.has_value();
  if (spread) {
    double low_box[3] = {0, 0, 0}, high_box[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        lo = std::min(lo, mesh.coordinates[i * static_cast<std::size_t>(dim) + d]);
        hi = std::max(hi, mesh.coordinates[i * static_cast<std::size_t>(dim) + d]);
      }
      low_box[d] = reduce_double(lo, MPI_MIN, comm);
      high_box[d] = reduce_double(hi, MPI_MAX, comm);
    }
    double diagonal = 0;
    for (int d = 0; d < dim; ++d) diagonal += (high_box[d] - low_box[d]) * (high_box[d] - low_box[d]);
    diagonal = std::sqrt(diagonal);
    const double tolerance = options.tolerance >= 0 ? options.tolerance : 1e-9 * std::max(diagonal, 1.0);

    double worst = 0, groups_over = 0;
    std::vector<double> spreads(ids.size(), 0);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == 0) continue;
      spreads[i] = entry_spread(*spread, dim, answers.low, answers.high, i);
      worst = std::max(worst, spreads[i]);
      if (spreads[i] > tolerance) groups_over += 1.0 / static_cast<double>(answers.multiplicity[i]);
    }
    worst = reduce_double(worst, MPI_MAX, comm);
    groups_over = reduce_double(groups_over, MPI_SUM, comm);
    // The worst group: the smallest id attaining the worst spread, whatever the distribution.
    std::int64_t worst_id = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != 0 && spreads[i] == worst) worst_id = std::min(worst_id, ids[i]);
    long long global_worst_id = worst_id;
    MPI_Allreduce(MPI_IN_PLACE, &global_worst_id, 1, MPI_LONG_LONG, MPI_MIN, comm);
    std::vector<double> worst_low(static_cast<std::size_t>(dim), std::numeric_limits<double>::infinity());
    std::vector<double> worst_high(static_cast<std::size_t>(dim), -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == global_worst_id)
        for (int d = 0; d < dim; ++d) {
          worst_low[d] = answers.low[i * static_cast<std::size_t>(spread->width) + d];
          worst_high[d] = answers.high[i * static_cast<std::size_t>(spread->width) + d];
        }
    MPI_Allreduce(MPI_IN_PLACE, worst_low.data(), dim, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, worst_high.data(), dim, MPI_DOUBLE, MPI_MAX, comm);

    coordinates_json["tolerance"] = tolerance;
    coordinates_json["worst_spread"] = worst;
    coordinates_json["worst_id"] = global_worst_id;
    coordinates_json["worst_min"] = worst_low;
    coordinates_json["worst_max"] = worst_high;
    const auto over = static_cast<std::int64_t>(std::llround(groups_over));
    coordinates_json["groups_over_tolerance"] = over;
    if (over) {
      std::ostringstream text;
      text.precision(17);
      text << over << " groups have copies whose coordinates differ by more than " << tolerance << "; worst: id "
           << global_worst_id << ", spread " << worst;
      problems.push_back(text.str());
    }
  }

  // ---- every method, the same answers ------------------------------------------------------
  json& run = report["run"];
  run["file"] = options.path;
  run["ranks"] = ranks;
  run["distribution"] = options.distribution == Distribution::partition ? "partition" : "blocks";
  run["method"] = std::string(to_string(handle.stats().method));
  run["method_reason"] = handle.stats().method_reason;
  json methods = json::object();
  if (options.compare_methods) {
    for (const Method method : concrete_methods) {
      json& entry = methods[std::string(to_string(method))];
      try {
        SetupOptions other;
        other.method = method;
        Handle candidate(ids, comm, other);
        const Answers candidate_answers = answers_of(candidate, mesh, spread ? &*spread : nullptr, rank);
        const std::string difference = compare_answers(answers, candidate_answers, comm);
        entry["status"] = difference.empty() ? "same" : "different";
        if (!difference.empty()) {
          entry["detail"] = difference;
          problems.push_back("method " + std::string(to_string(method)) + " disagrees with " +
                             std::string(to_string(handle.stats().method)) + ": " + difference);
        }
      } catch (const Error& e) {
        entry["status"] = "unavailable";
        entry["detail"] = e.what();
      }
    }
  }
  run["methods"] = methods;

  report["problems"] = problems;
  report["consistent"] = problems.empty();
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
  for (const auto& problem : report.at("problems")) out << "  PROBLEM: " << problem.get<std::string>() << "\n";
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
