// tools/model/gsr_model.cpp — the gsr-model command: predicts the time per call of every
// exchange method at rank counts up to 10^5 and beyond, in one process and without MPI
// communication, from the exact per-rank plan statistics of P virtual ranks
// (src/model/, docs/scaling.md).
//
//   gsr-model --elements-per-rank 64 --order 7 --ranks 2,4,...,131072 --json weak.json
//   gsr-model --elements 262144 --partition slab --ranks-max 100000 --csv strong.csv
//   gsr-model --mesh meshes/box2d.h5 --ranks 2,3,4
//   gsr-model --mesh meshes/box3d_periodic_z.h5 --mesh-partition file
//
// Exit codes: 0 done, 2 the mesh or machine file cannot be read or an output file cannot be
// written; command-line mistakes give CLI11's codes.
#include "exchange/registry.hpp"
#include "io/files.hpp"
#include "model/predict.hpp"
#include "tools/model/problem.hpp"
#include "tools/outputs.hpp"

#include <gsr/error.hpp>
#include <gsr/types.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <mpi.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace {

using namespace gsr::tools::model;
using gsr::model::MethodSummary;

struct Arguments {
  std::string box = "3d", partition = "cube", periodic;
  std::int64_t elements_per_rank = 0;
  std::vector<std::int64_t> elements;
  int order = 7;
  std::string mesh, mesh_partition = "blocks";
  std::vector<std::string> ranks;
  int ranks_max = 0;
  std::optional<double> alpha, beta;
  std::string machine, json_path, csv_path;
};

constexpr std::size_t max_rank_counts = 1000;  // rank counts in one run

/// One rank count of --ranks: a whole number from 2 to max_ranks.
long long rank_count(const std::string& item) {
  long long value = 0;
  const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (error != std::errc() || end != item.data() + item.size() || value < 2 || value > max_ranks)
    throw CLI::ValidationError(
        "--ranks", "'" + item + "' is not a rank count (a whole number from 2 to " + std::to_string(max_ranks) + ")");
  return value;
}

/// "2,3,4" as given; "a,b,...,c" continues a, b geometrically when b is a multiple of a,
/// else arithmetically, up to c. At most max_rank_counts of them.
std::vector<int> parse_ranks(const std::vector<std::string>& items, int ranks_max) {
  std::vector<long long> out;
  auto add = [&](long long p) {
    if (out.size() >= max_rank_counts)
      throw CLI::ValidationError(
          "--ranks", "more than " + std::to_string(max_rank_counts) + " rank counts; choose a coarser sequence");
    out.push_back(p);
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] != "...") {
      add(rank_count(items[i]));
      continue;
    }
    if (out.size() < 2 || i + 1 >= items.size() || items[i + 1] == "...")
      throw CLI::ValidationError("--ranks", "'...' needs two values before it and one after");
    // All three are at most max_ranks (2^22): the steps below cannot overflow.
    const long long a = out[out.size() - 2], b = out.back(), last = rank_count(items[i + 1]);
    const bool geometric = b > a && b % a == 0;
    if (!geometric && b <= a) throw CLI::ValidationError("--ranks", "'...' needs an increasing sequence");
    for (long long next = geometric ? b * (b / a) : b + (b - a); next < last;
         next = geometric ? next * (b / a) : next + (b - a))
      add(next);
  }
  if (ranks_max > 0) {
    for (long long p = 2; p < ranks_max; p *= 2) add(p);
    add(ranks_max);
  }
  std::vector<int> ranks(out.begin(), out.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) throw CLI::ValidationError("--ranks", "give --ranks or --ranks-max");
  return ranks;
}

/// The model's parameters: defaults, then the machine file, then --alpha / --beta.
gsr::detail::CostModel model_parameters(const Arguments& args) {
  gsr::detail::CostModel model;
  if (!args.machine.empty()) model = gsr::detail::read_machine_file(args.machine, "--machine");
  if (args.alpha) model.alpha = *args.alpha;
  if (args.beta) model.beta = *args.beta;
  if (args.alpha || args.beta) model.source += ", overridden on the command line";
  return model;
}

nlohmann::json summary_json(const MethodSummary& s) {
  nlohmann::json j = {{"method", std::string(gsr::to_string(s.method))},
                      {"predicted_seconds", s.seconds},
                      {"slowest_rank", s.slowest_rank},
                      {"messages_max", s.messages_max},
                      {"bytes_max", s.bytes_max},
                      {"values_max", s.values_max},
                      {"neighbors_max", s.neighbors_max},
                      {"neighbors_avg", s.neighbors_avg},
                      {"stages", s.stages},
                      {"stage_values_max", s.stage_values_max},
                      {"setup_messages_max", s.setup_messages_max},
                      {"setup_bytes_max", s.setup_bytes_max},
                      {"memory_bytes_max", s.memory_bytes_max}};
  if (gsr::detail::method_entry(s.method).terms.routing == gsr::detail::Routing::dense)
    j["allreduce_vector_values"] = s.allreduce_slots + 4;
  return j;
}

std::string fixed(double value, int precision) {
  std::ostringstream s;
  s.setf(std::ios::scientific);
  s.precision(precision);
  s << value;
  return s.str();
}

int run(const Arguments& args) {
  ProblemSpec spec;
  spec.dim = args.box == "2d" ? 2 : 3;
  spec.order = args.order;
  spec.partition = args.partition == "slab" ? Partition::slab : Partition::cube;
  spec.elements_per_rank = args.elements_per_rank;
  spec.elements = args.elements;
  for (char axis : args.periodic) {
    if (axis == ',') continue;
    const int d = axis - 'x';
    if (d >= spec.dim)
      throw CLI::ValidationError("--periodic", std::string("axis ") + axis + " is not an axis of a " +
                                                   std::to_string(spec.dim) + "-D box (--box " + args.box + ")");
    spec.periodic[static_cast<std::size_t>(d)] = true;
  }
  spec.mesh_path = args.mesh;
  spec.mesh_own_partition = args.mesh_partition == "file";
  if (spec.mesh_path.empty() && spec.elements_per_rank == 0 && spec.elements.empty()) spec.elements_per_rank = 64;
  if (spec.elements.size() > 1 && static_cast<int>(spec.elements.size()) != spec.dim)
    throw CLI::ValidationError("--elements", "give one total or " + std::to_string(spec.dim) + " counts per axis");
  // Everything the command line decides is checked before the mesh is read or anything
  // is computed.
  const bool file_ranks = spec.mesh_own_partition && args.ranks.empty() && args.ranks_max == 0;
  std::vector<int> ranks = file_ranks ? std::vector<int>{} : parse_ranks(args.ranks, args.ranks_max);
  for (const int P : ranks)
    if (const std::string problem = box_size_problem(spec, P); !problem.empty())
      throw CLI::ValidationError(spec.weak() ? "--elements-per-rank" : "--elements",
                                 spec.weak() ? "at --ranks " + std::to_string(P) + ", " + problem : problem);
  if (const std::string problem = gsr::tools::output_problem({{"--json", args.json_path}, {"--csv", args.csv_path}},
                                                             {{"--mesh", args.mesh}, {"--machine", args.machine}});
      !problem.empty())
    throw gsr::Error(gsr::ErrorCode::invalid_argument, problem + "; nothing was run");
  const gsr::detail::CostModel model = model_parameters(args);
  if (!spec.mesh_path.empty()) load_mesh(spec);
  if (file_ranks) ranks = {spec.mesh_partition_ranks};
  const std::string& source = model.source;

  nlohmann::json report = {{"tool", "gsr-model"},
                           {"version", GSR_VERSION},
                           {"alpha_seconds", model.alpha},
                           {"beta_seconds_per_byte", model.beta},
                           {"model_source", source},
                           {"problem", spec.describe()},
                           {"scaling", spec.scaling()},
                           {"sampling", "none: every virtual rank is computed exactly (rows grouped by holder set)"},
                           {"results", nlohmann::json::array()},
                           {"skipped", nlohmann::json::array()}};
  std::ostringstream csv;
  csv << "scaling,ranks,method,predicted_seconds,slowest_rank,messages_max,bytes_max,values_max,stages,neighbors_max,"
         "winner,setup_messages_max,setup_bytes_max,memory_bytes_max\n";
  std::printf("gsr-model: %s scaling, %s; alpha %.3g s, beta %.3g s/byte (%s)\n", spec.scaling().c_str(),
              spec.describe().dump().c_str(), model.alpha, model.beta, source.c_str());
  std::printf("%8s  %-15s %12s %8s %9s %13s %6s %6s %10s %13s %13s  %s\n", "P", "method", "s/call", "slowest",
              "msgs max", "bytes max", "stages", "nbrs", "setup msgs", "setup bytes", "memory bytes", "winner");
  for (int P : ranks) {
    const Instance in = build_instance(spec, P);
    if (!in.skipped.empty()) {
      report["skipped"].push_back({{"ranks", P}, {"reason", in.skipped}});
      std::printf("%8d  skipped: %s\n", P, in.skipped.c_str());
      continue;
    }
    std::vector<MethodSummary> summaries;
    for (gsr::Method m : gsr::registered_methods()) summaries.push_back(summarize(simulate(m, in.sharing), model));
    std::size_t best = 0;
    for (std::size_t i = 1; i < summaries.size(); ++i)
      if (summaries[i].seconds < summaries[best].seconds) best = i;
    nlohmann::json result = {{"ranks", P},
                             {"shape", in.shape},
                             {"global_shared_ids", in.sharing.global_shared_ids},
                             {"winner", std::string(gsr::to_string(summaries[best].method))},
                             {"methods", nlohmann::json::array()}};
    for (std::size_t i = 0; i < summaries.size(); ++i) {
      const MethodSummary& s = summaries[i];
      const std::string name(gsr::to_string(s.method));
      result["methods"].push_back(summary_json(s));
      std::printf("%8d  %-15s %12s %8d %9llu %13llu %6zu %6d %10llu %13llu %13llu  %s\n", P, name.c_str(),
                  fixed(s.seconds, 3).c_str(), s.slowest_rank, static_cast<unsigned long long>(s.messages_max),
                  static_cast<unsigned long long>(s.bytes_max), s.stages, s.neighbors_max,
                  static_cast<unsigned long long>(s.setup_messages_max),
                  static_cast<unsigned long long>(s.setup_bytes_max),
                  static_cast<unsigned long long>(s.memory_bytes_max), i == best ? "*" : "");
      csv << spec.scaling() << ',' << P << ',' << name << ',' << fixed(s.seconds, 6) << ',' << s.slowest_rank << ','
          << s.messages_max << ',' << s.bytes_max << ',' << s.values_max << ',' << s.stages << ',' << s.neighbors_max
          << ',' << (i == best ? 1 : 0) << ',' << s.setup_messages_max << ',' << s.setup_bytes_max << ','
          << s.memory_bytes_max << '\n';
    }
    report["results"].push_back(std::move(result));
  }
  if (!args.json_path.empty()) gsr::io::write_text_file(args.json_path, report.dump(2) + "\n", "the gsr-model report");
  if (!args.csv_path.empty()) gsr::io::write_text_file(args.csv_path, csv.str(), "the gsr-model report");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gsr-model: predicted time per call of every exchange method for P virtual ranks (docs/scaling.md)"};
  Arguments args;
  CLI::Option* mesh = app.add_option("--mesh", args.mesh, "a gsr mesh file, split into contiguous element ranges");
  app.add_option("--mesh-partition", args.mesh_partition,
                 "blocks (contiguous element ranges) or file (its /mesh/partition, at its rank count)")
      ->check(CLI::IsMember({"blocks", "file"}))
      ->needs(mesh)
      ->capture_default_str();
  app.add_option("--box", args.box, "generated box: 3d or 2d")
      ->check(CLI::IsMember({"3d", "2d"}))
      ->excludes(mesh)
      ->capture_default_str();
  CLI::Option* weak = app.add_option("--elements-per-rank", args.elements_per_rank,
                                     "weak scaling: elements per rank (a near-cubic block; default 64)")
                          ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))
                          ->excludes(mesh);
  app.add_option("--elements", args.elements, "strong scaling: total elements, or one count per axis (a,b[,c])")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->excludes(mesh)
      ->excludes(weak);
  app.add_option("--order", args.order, "polynomial order N")
      ->check(CLI::Range(1, 64))
      ->excludes(mesh)
      ->capture_default_str();
  app.add_option("--periodic", args.periodic, "periodic axes, e.g. x,z")
      ->check(CLI::IsMember({"x", "y", "z", "x,y", "x,z", "y,z", "x,y,z"}))
      ->excludes(mesh);
  app.add_option("--partition", args.partition, "slab (along the last axis) or cube (near-cubic blocks)")
      ->check(CLI::IsMember({"slab", "cube"}))
      ->excludes(mesh)
      ->capture_default_str();
  app.add_option("--ranks", args.ranks, "rank counts: 2,3,4 or 2,4,...,131072")->delimiter(',');
  app.add_option("--ranks-max", args.ranks_max, "powers of two from 2, and this")->check(CLI::Range(2, max_ranks));
  // CLI::PositiveNumber lets NaN through, and names DBL_MAX in 300 digits.
  const CLI::Validator seconds(
      [](std::string& text) {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end || !std::isfinite(value) || value <= 0)
          return "'" + text + "' is not a finite number of seconds > 0";
        return std::string();
      },
      "S > 0");
  app.add_option("--alpha", args.alpha, "seconds per message")->check(seconds);
  app.add_option("--beta", args.beta, "seconds per byte")->check(seconds);
  app.add_option("--machine", args.machine, "JSON machine file: alpha_seconds, beta_seconds_per_byte");
  app.add_option("--json", args.json_path, "also write the results as JSON to this file");
  app.add_option("--csv", args.csv_path, "also write the results as CSV to this file");
  CLI11_PARSE(app, argc, argv);
  int code = 0;
  try {
    code = run(args);
  } catch (const CLI::Error& e) {
    code = app.exit(e);
  } catch (const std::bad_alloc&) {
    std::cerr << "gsr-model: error: out of memory; simulate fewer or smaller --ranks\n";
    code = 2;
  } catch (const std::exception& e) {
    std::cerr << "gsr-model: error: " << e.what() << '\n';
    code = 2;
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
  return code;
}
