// tune/cost_model.cpp — see cost_model.hpp.
#include "tune/cost_model.hpp"

#include <gsr/error.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace gsr::detail {

double CostModel::cache_factor(double bytes) const {
  if (local_curve.empty()) return 1.0;
  if (bytes <= local_curve.front().bytes) return local_curve.front().factor;
  if (bytes >= local_curve.back().bytes) return local_curve.back().factor;
  std::size_t i = 1;
  while (local_curve[i].bytes < bytes) ++i;
  const CachePoint& a = local_curve[i - 1];
  const CachePoint& b = local_curve[i];
  const double t = std::log(bytes / a.bytes) / std::log(b.bytes / a.bytes);
  return a.factor + t * (b.factor - a.factor);
}

double CostModel::local_seconds(std::size_t value_bytes, std::size_t k, std::size_t entries) const {
  const double n = static_cast<double>(entries), width = static_cast<double>(value_bytes) * static_cast<double>(k);
  return n * (local_seconds_per_entry + local_seconds_per_value * static_cast<double>(k)) *
         cache_factor(n * (width + 4.0));
}

double CostModel::predict(Method method, const std::vector<StageStats>& stages, std::size_t value_bytes,
                          std::size_t k, std::size_t entries) const {
  const double width = static_cast<double>(value_bytes) * static_cast<double>(k);
  double seconds = local_seconds(value_bytes, k, entries);
  bool exchanges = false;
  for (const StageStats& s : stages) {
    exchanges = exchanges || s.messages > 0;
    const double messages = static_cast<double>(s.messages);
    seconds += alpha * messages + beta * (static_cast<double>(s.values) * width + header_bytes * messages);
  }
  if (method == Method::neighbor && !stages.empty()) {
    const double neighbours = static_cast<double>(stages.front().messages);
    seconds += alpha * neighbours + beta * announcement_bytes * neighbours;
  }
  // A non-blocking collective costs a start-up of its own in the MPI library, even over no
  // neighbours: the neighbour method posts two per call, allreduce one.
  if (method == Method::neighbor) seconds += 2 * alpha;
  if (method == Method::allreduce && !stages.empty()) seconds += alpha;
  const auto code = static_cast<std::size_t>(method);
  if ((exchanges || method == Method::allreduce) && code < call_seconds.size()) seconds += call_seconds[code];
  return seconds;
}

namespace {

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, "gsr: GSR_MACHINE='" + path + "': " + what +
                                               " (write one with gsr-bench --calibrate; docs/scaling.md)");
}

double positive(const nlohmann::json& document, const char* name, const std::string& path, bool required,
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

}  // namespace

CostModel read_machine_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad_file(path, "cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    bad_file(path, std::string("is not JSON: ") + e.what());
  }
  if (!document.is_object() || document.value("format", "") != "gsr-machine")
    bad_file(path, "is not a gsr machine file (its \"format\" is not \"gsr-machine\")");
  CostModel model;
  model.alpha = positive(document, "alpha_seconds", path, true);
  model.beta = positive(document, "beta_seconds_per_byte", path, true);
  model.local_seconds_per_entry = positive(document, "local_seconds_per_entry", path, false);
  model.local_seconds_per_value = positive(document, "local_seconds_per_value", path, false);
  if (document.contains("local_curve")) {
    const nlohmann::json& curve = document.at("local_curve");
    if (!curve.is_array()) bad_file(path, "\"local_curve\" is not an array of {\"bytes\", \"factor\"} points");
    for (const nlohmann::json& point : curve) {
      if (!point.is_object()) bad_file(path, "\"local_curve\" holds " + point.dump() + ", not a {\"bytes\", \"factor\"} point");
      CostModel::CachePoint p{positive(point, "bytes", path, true, "bytes"), positive(point, "factor", path, true, "")};
      if (!model.local_curve.empty() && p.bytes <= model.local_curve.back().bytes)
        bad_file(path, "\"local_curve\" is not in ascending \"bytes\"");
      model.local_curve.push_back(p);
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
  model.source = path;
  model.calibrated = true;
  return model;
}

CostModel machine_model_from_environment() {
  const char* name = std::getenv("GSR_MACHINE");
  if (!name || !*name) return CostModel{};
  static std::mutex lock;
  static std::map<std::string, CostModel> read;
  const std::lock_guard<std::mutex> guard(lock);
  const auto found = read.find(name);
  if (found != read.end()) return found->second;
  return read.emplace(name, read_machine_file(name)).first->second;
}

}  // namespace gsr::detail
