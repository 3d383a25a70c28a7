// tools/bench/report.cpp — records, metadata, and the table, JSON and CSV made of them.
#include "tools/bench/report.hpp"

#include "io/files.hpp"

#include <gsr/error.hpp>

#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#ifndef GSR_VERSION
#define GSR_VERSION "unknown"
#endif

namespace gsr::tools::bench {
namespace {

using nlohmann::ordered_json;

/// Every field a record can have, in the order of docs/performance.md (the CSV columns).
constexpr std::array<const char*, 67> fields = {"kind",
                                                "method",
                                                "chosen",
                                                "call",
                                                "k",
                                                "mode",
                                                "bound",
                                                "ranks",
                                                "entries_per_rank",
                                                "elements",
                                                "box_elements",
                                                "order",
                                                "dim",
                                                "input",
                                                "repeats",
                                                "calls",
                                                "median_seconds",
                                                "bound_seconds",
                                                "ratio",
                                                "overhead_seconds",
                                                "seconds",
                                                "auto_seconds",
                                                "handle_bytes",
                                                "buffer_bytes",
                                                "bytes",
                                                "messages",
                                                "root",
                                                "block_bytes",
                                                "rounds",
                                                "rounds_formula",
                                                "messages_formula",
                                                "bytes_formula",
                                                "header_bytes",
                                                "equal_to_mpi",
                                                "stages",
                                                "stages_formula",
                                                "largest_message_bytes",
                                                "predicted_seconds",
                                                "measured_over_predicted",
                                                "probe",
                                                "link",
                                                "message_bytes",
                                                "model_seconds",
                                                "layout",
                                                "lines",
                                                "u_lines",
                                                "plan_bytes",
                                                "touch_bound_seconds",
                                                "touch_ratio",
                                                "touch_overhead_seconds",
                                                "alone_seconds",
                                                "compute_seconds",
                                                "together_seconds",
                                                "wire_seconds",
                                                "hidden_fraction",
                                                "together_progress_seconds",
                                                "hidden_fraction_progress",
                                                "progress_calls",
                                                "compute_values",
                                                "wait_alone_seconds",
                                                "wait_together_seconds",
                                                "wait_progress_seconds",
                                                "wait_drained_seconds",
                                                "wait_drained_after_pass_seconds",
                                                "hidden_fraction_wait_alone",
                                                "hidden_fraction_wait",
                                                "hidden_fraction_wait_progress"};

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string host_name() {
  std::array<char, 256> name{};
  return gethostname(name.data(), name.size() - 1) == 0 ? std::string(name.data()) : "unknown";
}

/// The first line of MPI_Get_library_version ("MPICH Version: 4.0.2"), spaces squeezed.
std::string mpi_library() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string line(text.data(), static_cast<std::size_t>(length));
  line = line.substr(0, line.find('\n'));
  std::string squeezed;
  for (const char c : line)
    if (!(c == ' ' || c == '\t') || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c == '\t' ? ' ' : c;
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

std::string csv_cell(const ordered_json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();
  std::string text = value.get<std::string>();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

Record make_record(std::string_view kind, const Problem& problem) {
  Record r;
  r["kind"] = kind;
  r["ranks"] = problem.ranks;
  r["entries_per_rank"] = problem.entries;
  r["elements"] = problem.elements;
  r["box_elements"] = problem.box_elements > 0 ? Record(problem.box_elements) : Record(nullptr);
  r["order"] = problem.order;
  r["dim"] = problem.dim;
  r["input"] = problem.input;
  return r;
}

ordered_json run_metadata(const Problem& problem, int argc, char** argv) {
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  ordered_json run;
  run["date"] = utc_now();
  run["host"] = host_name();
  run["cpu_model"] = cpu_model();
  run["cpus"] = std::thread::hardware_concurrency();
  run["mpi_library"] = mpi_library();
  run["mpi_standard"] = std::to_string(major) + "." + std::to_string(minor);
  run["gsr_version"] = GSR_VERSION;
  run["command"] = command;
  run["ranks"] = problem.ranks;
  run["problem"] = problem.describe();
  return run;
}

ordered_json bench_document(const ordered_json& metadata, const std::vector<Record>& records) {
  ordered_json document;
  document["format"] = "gsr-bench";
  document["version"] = 1;
  document["run"] = metadata;
  document["records"] = records;
  return document;
}

std::string csv_text(const std::vector<Record>& records) {
  std::string text;
  for (const char* field : fields) text += std::string(text.empty() ? "" : ",") + field;
  text += "\n";
  for (const Record& record : records) {
    std::string row;
    for (std::size_t f = 0; f < fields.size(); ++f)
      row += (f ? "," : "") + csv_cell(record.contains(fields[f]) ? record.at(fields[f]) : ordered_json());
    text += row + "\n";
  }
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  io::write_text_file(path, text, "the gsr-bench report");
}

}  // namespace gsr::tools::bench
