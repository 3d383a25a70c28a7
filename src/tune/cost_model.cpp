// tune/cost_model.cpp — see cost_model.hpp.
#include "tune/cost_model.hpp"

#include "exchange/registry.hpp"

#include <gsr/error.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace gsr::detail {

namespace {

// g along one curve (points of one k, ascending in bytes).
double along(const std::vector<CostModel::CachePoint>& curve, double bytes) {
  if (curve.empty()) return 1.0;
  if (bytes <= curve.front().bytes) return curve.front().factor;
  if (bytes >= curve.back().bytes) return curve.back().factor;
  std::size_t i = 1;
  while (curve[i].bytes < bytes) ++i;
  const CostModel::CachePoint& a = curve[i - 1];
  const CostModel::CachePoint& b = curve[i];
  const double t = std::log(bytes / a.bytes) / std::log(b.bytes / a.bytes);
  return a.factor + t * (b.factor - a.factor);
}

std::vector<CostModel::CachePoint> points_of(const std::vector<CostModel::CachePoint>& all, std::size_t k) {
  std::vector<CostModel::CachePoint> out;
  for (const CostModel::CachePoint& p : all)
    if (p.k == k) out.push_back(p);
  return out;
}

}  // namespace

double CostModel::cache_factor(double bytes, std::size_t k) const {
  const std::vector<CachePoint>& curve = alone_on_node && !local_curve_alone.empty() ? local_curve_alone : local_curve;
  // The measured k nearest below and above (0: points for any k).
  std::size_t below = 0, above = 0;
  for (const CachePoint& p : curve) {
    if (p.k == 0) continue;
    if (p.k <= k && p.k > below) below = p.k;
    if (p.k >= k && (above == 0 || p.k < above)) above = p.k;
  }
  if (below == 0 && above == 0) return along(points_of(curve, 0), bytes);
  if (below == 0) return along(points_of(curve, above), bytes);
  if (above == 0 || above == below) return along(points_of(curve, below), bytes);
  const double t = static_cast<double>(k - below) / static_cast<double>(above - below);
  return (1 - t) * along(points_of(curve, below), bytes) + t * along(points_of(curve, above), bytes);
}

double CostModel::local_seconds(std::size_t value_bytes, std::size_t k, std::size_t entries) const {
  const double n = static_cast<double>(entries), width = static_cast<double>(value_bytes) * static_cast<double>(k);
  return n * (local_seconds_per_entry + local_seconds_per_value * static_cast<double>(k)) *
         cache_factor(n * (width + 4.0), k);
}

double CostModel::predict(Method method, const std::vector<StageStats>& stages, std::size_t value_bytes, std::size_t k,
                          std::size_t entries, std::size_t shared_groups, bool separate_arrays) const {
  const double width = static_cast<double>(value_bytes) * static_cast<double>(k);
  // Separate arrays: k passes of one component, each at the speed of the whole call's
  // working set (the other arrays evict this one's lines between calls).
  const double n = static_cast<double>(entries);
  const double local = separate_arrays
                           ? static_cast<double>(k) * n * (local_seconds_per_entry + local_seconds_per_value) *
                                 cache_factor(n * (width + 4.0), 1)
                           : local_seconds(value_bytes, k, entries);
  double seconds = local + static_cast<double>(shared_groups) * static_cast<double>(k) * shared_seconds_per_value;
  // The method's own terms (exchange/registry.hpp): what it costs beyond its messages.
  const MethodTerms& terms = method_entry(method).terms;
  bool exchanges = false;
  for (const StageStats& s : stages) {
    exchanges = exchanges || s.messages > 0;
    const double messages = static_cast<double>(s.messages);
    seconds += alpha * messages + beta * (static_cast<double>(s.values) * width + header_bytes * messages);
    // A dense method fills, reduces and reads its whole vector in every round.
    if (terms.routing == Routing::dense) seconds += allreduce_seconds_per_byte * static_cast<double>(s.values) * width;
  }
  if (!stages.empty()) {
    const double neighbours = static_cast<double>(stages.front().messages);
    if (terms.announcement_bytes > 0)
      seconds += alpha * neighbours + beta * static_cast<double>(terms.announcement_bytes) * neighbours;
    // A non-blocking collective costs a start-up of its own in the MPI library, even over
    // no neighbours (and a method posts none, and has no stages, when no rank shares an id).
    seconds += alpha * (terms.collectives + (width > 8 ? terms.wide_row_collectives : 0));
  }
  const auto code = static_cast<std::size_t>(method);
  if ((exchanges || terms.call_cost_without_messages) && code < call_seconds.size()) seconds += call_seconds[code];
  return seconds;
}

namespace {

/// The file and how it was named: "GSR_MACHINE='m.json'", "machine_file='m.json'" or
/// "--machine 'm.json'".
struct MachineFile {
  std::string path, label;
};

[[noreturn]] void bad_file(const MachineFile& file, const std::string& what) {
  throw Error(ErrorCode::invalid_argument,
              "gsr: " + file.label + ": " + what + " (write one with gsr-bench --calibrate; docs/scaling.md)");
}

/// A JSON value as the file has it, cut short if long.
std::string brief(const nlohmann::json& value) {
  const std::string text = value.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

double positive(const nlohmann::json& document, const char* name, const MachineFile& path, bool required,
                const char* unit = "seconds") {
  if (!document.contains(name)) {
    if (required) bad_file(path, std::string("has no \"") + name + "\"");
    return 0.0;
  }
  const nlohmann::json& value = document.at(name);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0)
    bad_file(path, std::string("\"") + name + "\" is " + value.dump() + ", not a number " +
                       (*unit ? "of " + std::string(unit) + " " : std::string()) + "> 0");
  return value.get<double>();
}

/// The model a parsed machine file (an object of format "gsr-machine") describes.
CostModel model_of(const nlohmann::json& document, const MachineFile& path) {
  CostModel model;
  model.alpha = positive(document, "alpha_seconds", path, true);
  model.beta = positive(document, "beta_seconds_per_byte", path, true);
  model.local_seconds_per_entry = positive(document, "local_seconds_per_entry", path, false);
  model.local_seconds_per_value = positive(document, "local_seconds_per_value", path, false);
  model.shared_seconds_per_value = positive(document, "shared_seconds_per_value", path, false);
  model.allreduce_seconds_per_byte = positive(document, "allreduce_seconds_per_byte", path, false);
  for (const char* name : {"local_curve", "local_curve_alone"}) {
    if (!document.contains(name)) continue;
    const std::string quoted = std::string("\"") + name + "\"";
    const nlohmann::json& curve = document.at(name);
    if (!curve.is_array()) bad_file(path, quoted + " is not an array of {\"bytes\", \"factor\"} points");
    std::vector<CostModel::CachePoint>& into =
        std::string(name) == "local_curve" ? model.local_curve : model.local_curve_alone;
    for (const nlohmann::json& point : curve) {
      if (!point.is_object())
        bad_file(path, quoted + " holds " + point.dump() + ", not a {\"bytes\", \"factor\"} point");
      CostModel::CachePoint p{positive(point, "bytes", path, true, "bytes"), positive(point, "factor", path, true, ""),
                              0};
      if (point.contains("k")) {
        const nlohmann::json& k = point.at("k");
        if (!k.is_number_unsigned() || k.get<std::uint64_t>() == 0)
          bad_file(path, quoted + " has the point's \"k\" " + k.dump() + ", not a whole number of components >= 1");
        p.k = k.get<std::size_t>();
      }
      for (const CostModel::CachePoint& q : into)
        if (q.k == p.k && q.bytes >= p.bytes)
          bad_file(path, quoted + " is not in ascending \"bytes\" for k = " + std::to_string(p.k));
      into.push_back(p);
    }
  }
  if (document.contains("call_seconds")) {
    const nlohmann::json& calls = document.at("call_seconds");
    if (!calls.is_object()) bad_file(path, "\"call_seconds\" is not an object of seconds per method");
    for (const auto& [name, value] : calls.items()) {
      const auto m = method_from_string(name);
      if (!m || *m == Method::automatic) bad_file(path, "\"call_seconds\" names no method \"" + name + "\"");
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
        bad_file(path, "\"call_seconds\" of " + name + " is " + value.dump() + ", not a number of seconds >= 0");
      const auto code = static_cast<std::size_t>(*m);
      if (model.call_seconds.size() <= code) model.call_seconds.resize(code + 1, 0.0);
      model.call_seconds[code] = value.get<double>();
    }
  }
  return model;
}

}  // namespace

CostModel read_machine_file(const std::string& file_name, const std::string& named_by) {
  const MachineFile path{
      file_name, named_by.rfind("--", 0) != 0 ? named_by + "='" + file_name + "'" : named_by + " '" + file_name + "'"};
  std::error_code error;
  if (std::filesystem::is_directory(file_name, error)) bad_file(path, "is a folder, not a file");
  std::ifstream in(file_name);
  if (!in) bad_file(path, "cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    bad_file(path, std::string("is not JSON: ") + e.what());
  }
  if (!document.is_object())
    bad_file(path, "is not a gsr machine file (it holds " + brief(document) + ", not an object)");
  if (!document.contains("format")) bad_file(path, "is not a gsr machine file (it has no \"format\")");
  if (document.at("format") != "gsr-machine")
    bad_file(path,
             "is not a gsr machine file (its \"format\" is " + brief(document.at("format")) + ", not \"gsr-machine\")");
  // model_of checks every member's type; a JSON error from it would be a gap in those
  // checks, and is still this file's fault, not an internal error.
  CostModel model;
  try {
    model = model_of(document, path);
  } catch (const nlohmann::json::exception& e) {
    bad_file(path, std::string("has a member of the wrong type: ") + e.what());
  }
  model.source = file_name;
  model.calibrated = true;
  return model;
}

CostModel machine_model(const NamedText& file) {
  if (file.text.empty()) return CostModel{};
  static std::mutex lock;
  static std::map<std::string, CostModel> read;
  const std::lock_guard<std::mutex> guard(lock);
  const auto found = read.find(file.text);
  if (found != read.end()) return found->second;
  return read.emplace(file.text, read_machine_file(file.text, file.named_by)).first->second;
}

}  // namespace gsr::detail
