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

double CostModel::predict(Method method, const std::vector<StageStats>& stages, std::size_t value_bytes,
                          std::size_t k, std::size_t entries) const {
  const double width = static_cast<double>(value_bytes) * static_cast<double>(k);
  double seconds =
      static_cast<double>(entries) * (local_seconds_per_entry + local_seconds_per_value * static_cast<double>(k));
  for (const StageStats& s : stages) {
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
  return seconds;
}

namespace {

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, "gsr: GSR_MACHINE='" + path + "': " + what +
                                               " (write one with gsr-bench --calibrate; docs/scaling.md)");
}

double positive(const nlohmann::json& document, const char* name, const std::string& path, bool required) {
  if (!document.contains(name)) {
    if (required) bad_file(path, std::string("has no \"") + name + "\"");
    return 0.0;
  }
  const nlohmann::json& value = document.at(name);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0)
    bad_file(path, std::string("\"") + name + "\" is " + value.dump() + ", not a number of seconds > 0");
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
