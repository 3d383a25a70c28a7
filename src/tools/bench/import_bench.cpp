// tools/bench/import_bench.cpp — gsr-import-bench: the mesh import's numbering step against a
// gather-scatter setup on the ids it produces (issue 43, item 9; docs/performance.md, "Mesh
// import"). Built beside gsr-bench but not installed: it calls the import's internal stages
// (io/import/re2.hpp, vertices.hpp, numbering.hpp), which are no public interface.
//
//   mpiexec -n 2 gsr-import-bench box.re2 --order 7 [--repeats 5] [--method auto] [--json out.json]
//
// Reads the .re2 (read_re2) and matches its corners (match_vertices), untimed, and keeps only
// the corners' vertex ids. Then `repeats` rounds, each timing number_nodes (vertex ids in
// memory to global ids in memory: no reading, no coordinates, no writing) and then the
// construction of a gsr::Handle (gs_setup) on the ids that call produced; a time is the
// slowest rank's, the result the median over the rounds, and the ratio number / setup is
// what issue 43 bounds (at most 0.5). Memory: each rank's resident set before each step and
// its peak during it (VmRSS, VmHWM of /proc/self/status, the peak reset before each step
// through /proc/self/clear_refs), also per local element.
//
// Exit codes: 0 done; 2, on every rank, when the input cannot be read or numbered or the JSON
// file's path is unusable (checked before any work; the message on rank 0's stderr), and on
// rank 0 when writing the JSON fails; CLI11's for usage mistakes.
#include "io/import/numbering.hpp"
#include "io/import/re2.hpp"
#include "io/import/vertices.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "tools/methods.hpp"
#include "tools/outputs.hpp"

#include <gsr/error.hpp>
#include <gsr/handle.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Arguments {
  std::string input;
  int order = 7;
  int repeats = 5;
  std::string method = "auto";
  std::string json_path;
};

/// This process's resident set and its peak, in bytes (-1 where /proc does not say).
struct Memory {
  std::int64_t rss = -1, peak = -1;
};

Memory memory_now() {
  Memory m;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    long long kb = 0;
    if (std::sscanf(line.c_str(), "VmRSS: %lld kB", &kb) == 1) m.rss = kb * 1024;
    if (std::sscanf(line.c_str(), "VmHWM: %lld kB", &kb) == 1) m.peak = kb * 1024;
  }
  return m;
}

/// Resets VmHWM to the current resident set (Linux 4.0 and later); false where not allowed,
/// and the peaks reported are then the process's since it started.
bool reset_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

double timeout() { return gsr::detail::timeout_or_default({}); }

double max_over_ranks(double value, MPI_Comm comm) {
  gsr::detail::allreduce_polled(&value, 1, MPI_DOUBLE, MPI_MAX, comm, timeout());
  return value;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

/// One step's memory on one rank: the resident set before it and the peak during it, over
/// the rounds: the largest peak, and the largest growth of a round (its peak less the resident
/// set at its start, which holds what earlier rounds freed but the allocator kept).
struct StepMemory {
  std::int64_t peak = 0, growth = 0;
  void add(const Memory& start, const Memory& end) {
    peak = std::max(peak, end.peak);
    growth = std::max(growth, end.peak - start.rss);
  }
};

/// Per rank, gathered on every rank: local elements, the resident set at the start (MPI and
/// the libraries, before any mesh), the peaks of reading and of matching (the block still
/// held, as in the import), then the number and gs setup steps' peaks and growths.
constexpr int per_rank_values = 8;

std::vector<std::int64_t> gather(const std::vector<std::int64_t>& mine, MPI_Comm comm) {
  const std::vector<std::byte> all =
      gsr::detail::allgather_polled(mine.data(), static_cast<int>(mine.size() * sizeof(std::int64_t)), comm, timeout());
  std::vector<std::int64_t> out(all.size() / sizeof(std::int64_t));
  std::memcpy(out.data(), all.data(), out.size() * sizeof(std::int64_t));
  return out;
}

std::string mib(std::int64_t bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << static_cast<double>(bytes) / (1024.0 * 1024.0);
  return s.str();
}

int run(const Arguments& args, MPI_Comm comm) {
  using namespace gsr::io::import;
  const int rank = gsr::detail::comm_rank(comm), ranks = gsr::detail::comm_size(comm);
  const std::string problem = gsr::tools::output_problem({{"--json", args.json_path}}, {{"input", args.input}});
  if (!problem.empty()) throw gsr::Error(gsr::ErrorCode::invalid_argument, problem);

  // ---- untimed: the corners' vertex ids, as the import has them before numbering --------------
  const Memory at_start = memory_now();
  const double read_start = MPI_Wtime();
  std::vector<std::int64_t> corners;
  int dim = 0;
  std::int64_t first = 0, elements = 0, count = 0;
  std::string source, format, vertex_source;
  bool resets = false;
  Memory after_read;
  {
    const ElementBlock block = read_re2(args.input, comm);
    after_read = memory_now();
    resets = reset_peak();
    Vertices vertices = match_vertices(block, comm);
    corners = std::move(vertices.ids);
    dim = block.dim;
    first = block.first;
    elements = block.elements;
    count = block.count;
    source = block.source;
    format = block.format;
    vertex_source = block.vertex_source.empty() ? "corners matched by coordinates" : block.vertex_source;
  }
  const double read_seconds = max_over_ranks(MPI_Wtime() - read_start, comm);
  const Memory after_match = memory_now();

  gsr::SetupOptions options;
  options.method = *gsr::method_from_string(args.method);
  std::vector<double> number_seconds, setup_seconds, auto_seconds;
  StepMemory number_memory, setup_memory;
  Numbering numbering;
  std::string method_used;
  std::int64_t ids_per_rank = 0;
  for (int round = 0; round < args.repeats; ++round) {
    numbering = {};  // the previous round's ids are not held while numbering again
    Memory start = memory_now();
    reset_peak();
    gsr::detail::barrier_polled(comm, timeout());
    double t = MPI_Wtime();
    numbering = number_nodes(corners, dim, args.order, first, elements, source, comm);
    t = MPI_Wtime() - t;
    number_memory.add(start, memory_now());
    number_seconds.push_back(max_over_ranks(t, comm));

    start = memory_now();
    reset_peak();
    gsr::detail::barrier_polled(comm, timeout());
    t = MPI_Wtime();
    {
      gsr::Handle gs(numbering.ids, comm, options);
      t = MPI_Wtime() - t;
      setup_memory.add(start, memory_now());
      method_used = std::string(gsr::to_string(gs.stats().method));
      auto_seconds.push_back(gs.stats().auto_seconds);
    }
    setup_seconds.push_back(max_over_ranks(t, comm));
    auto_seconds.back() = max_over_ranks(auto_seconds.back(), comm);
    ids_per_rank = static_cast<std::int64_t>(numbering.ids.size());
  }

  const std::vector<std::int64_t> all =
      gather({count, at_start.rss, after_read.peak, after_match.peak, number_memory.peak, number_memory.growth,
              setup_memory.peak, setup_memory.growth},
             comm);
  const double number = median(number_seconds), setup = median(setup_seconds), ratio = number / setup;
  if (rank != 0) return 0;

  std::ostringstream out;
  out.setf(std::ios::fixed);
  out << "gsr-import-bench: " << args.input << " (" << format << "), " << elements << " elements, dim " << dim
      << ", order " << args.order << ", " << ranks << " rank" << (ranks == 1 ? "" : "s") << ", " << args.repeats
      << " rounds\n";
  out << "  vertex ids       " << vertex_source << " (read and matched, untimed: " << std::setprecision(3)
      << read_seconds << " s)\n";
  out << "  global ids       " << numbering.total << " (" << ids_per_rank << " on rank 0)\n";
  out << "  times            the slowest rank's, median of " << args.repeats << " rounds\n";
  out << std::setprecision(4);
  out << "  number           " << number << " s  (number_nodes: vertex ids to global ids, in memory)\n";
  out << "  gs setup         " << setup << " s  (gsr::Handle on those ids, method " << args.method << " -> "
      << method_used;
  if (options.method == gsr::Method::automatic) out << "; of which auto measuring " << median(auto_seconds) << " s";
  out << ")\n";
  out << std::setprecision(3);
  out << "  ratio            number / gs setup = " << ratio
      << "  (issue 43's target, on about 100,000 elements: <= 0.5; " << (ratio <= 0.5 ? "met" : "NOT met") << ")\n";
  out << "  rounds           number";
  for (double s : number_seconds) out << ' ' << std::setprecision(4) << s;
  out << " s; gs setup";
  for (double s : setup_seconds) out << ' ' << std::setprecision(4) << s;
  out << " s\n";
  // Bytes per local element of a step's peak over the resident set at the start.
  auto per_element = [](std::int64_t bytes, std::int64_t elements) { return elements > 0 ? bytes / elements : 0; };
  out << "  memory per rank  resident at the start (MPI, libraries), then each step's peak, MiB, and in\n"
      << "                   brackets the peak over the start in bytes per element of the rank"
      << (resets ? "" : "\n                   (peaks since the process started: /proc/self/clear_refs not writable)")
      << "\n";
  out << "    rank  elements  start";
  for (const char* step : {"read", "match", "number", "gs setup"}) out << "  " << std::setw(16) << step;
  out << "\n";
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t* v = all.data() + static_cast<std::size_t>(r) * per_rank_values;
    out << "    " << std::setw(4) << r << "  " << std::setw(8) << v[0] << "  " << std::setw(5) << mib(v[1]);
    for (const int step : {2, 3, 4, 6}) {
      out << "  " << std::setw(7) << mib(v[step]) << " (" << std::setw(6) << per_element(v[step] - v[1], v[0]) << ")";
    }
    out << "\n";
  }
  out << "  growth           the most one round's peak exceeds the resident set at its start, bytes per\n"
      << "                   element: number";
  for (int r = 0; r < ranks; ++r)
    out << (r ? ", " : " ") << per_element(all[r * per_rank_values + 5], all[r * per_rank_values]);
  out << " (the ids alone: " << per_element(8 * ids_per_rank, all[0]) << "); gs setup";
  for (int r = 0; r < ranks; ++r)
    out << (r ? ", " : " ") << per_element(all[r * per_rank_values + 7], all[r * per_rank_values]);
  out << "\n";
  std::cout << out.str() << std::flush;

  if (!args.json_path.empty()) {
    nlohmann::ordered_json doc;
    doc["input"] = args.input;
    doc["format"] = format;
    doc["dim"] = dim;
    doc["elements"] = elements;
    doc["order"] = args.order;
    doc["ranks"] = ranks;
    doc["repeats"] = args.repeats;
    doc["global_ids"] = numbering.total;
    doc["method"] = args.method;
    doc["method_used"] = method_used;
    doc["number_seconds"] = number;
    doc["setup_seconds"] = setup;
    doc["auto_seconds"] = median(auto_seconds);
    doc["ratio"] = ratio;
    doc["number_rounds"] = number_seconds;
    doc["setup_rounds"] = setup_seconds;
    doc["peak_reset"] = resets;
    nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
    for (int r = 0; r < ranks; ++r) {
      const std::int64_t* v = all.data() + static_cast<std::size_t>(r) * per_rank_values;
      per_rank.push_back({{"rank", r},
                          {"elements", v[0]},
                          {"start_bytes", v[1]},
                          {"read_peak_bytes", v[2]},
                          {"match_peak_bytes", v[3]},
                          {"number_peak_bytes", v[4]},
                          {"number_growth_bytes", v[5]},
                          {"setup_peak_bytes", v[6]},
                          {"setup_growth_bytes", v[7]}});
    }
    doc["per_rank"] = per_rank;
    std::ofstream file(args.json_path);
    file << doc.dump(1) << "\n";
    if (!file) {
      std::cerr << "gsr-import-bench: error: cannot write --json " << args.json_path << "\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CLI::App app{
      "gsr-import-bench: times the mesh import's numbering against a gather-scatter setup on the ids it "
      "produces, on a Nek5000 .re2 (run under mpiexec; docs/performance.md, \"Mesh import\")"};
  Arguments args;
  app.add_option("input", args.input, "the .re2 mesh")->required();
  app.add_option("--order", args.order, "polynomial order N (1 to 64)")->check(CLI::Range(1, 64));
  app.add_option("--repeats", args.repeats, "rounds; the median is reported")->check(CLI::Range(1, 1000));
  app.add_option("--method", args.method, "the gs setup's method")
      ->check(CLI::IsMember(gsr::tools::method_names(true)));
  app.add_option("--json", args.json_path, "also write the results as JSON to this file");
  int code = 0;
  try {
    app.parse(argc, argv);
    code = run(args, MPI_COMM_WORLD);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 speaks.
    std::ostringstream quiet;
    code = rank == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
  } catch (const gsr::Error& e) {
    // The import's stages throw on every rank together.
    if (rank == 0) std::cerr << "gsr-import-bench: error: " << e.what() << "\n";
    code = 2;
  }
  MPI_Finalize();
  return code;
}
