// tools/bench/gsr_bench.cpp — the gsr-bench command: times every exchange method (and auto)
// against the stream, wire, round and touch bounds, and what its non-blocking calls hide
// behind the caller's work, on a generated box or a mesh file, or, with
// --check, verifies that they all give bitwise identical results; with --primitives, times
// gsr::scatter and gsr::gather against MPI_Scatterv and MPI_Gatherv (docs/performance.md);
// with --calibrate, measures the alpha-beta model of the machine (docs/scaling.md).
//
//   mpiexec -n 2 gsr-bench --elements 8 --order 7 [--json out.json] [--csv out.csv]
//   mpiexec -n 3 gsr-bench --mesh meshes/box2d.h5 --check
//   mpiexec -n 2 gsr-bench --primitives --block-bytes 8,65536
//   mpiexec -n 2 gsr-bench --calibrate machine.json; GSR_MACHINE=machine.json ...
//
// Exit codes, the same on every rank: 0 done (or --check passed), 1 --check (or
// --primitives' comparison with MPI) found a difference, 2 the mesh or machine file cannot
// be read or an output file cannot be written (the outputs are checked before anything is
// measured); command-line mistakes give CLI11's codes.
#include "tools/bench/calibrate.hpp"
#include "tools/bench/check.hpp"
#include "tools/bench/measure.hpp"
#include "tools/bench/primitives.hpp"
#include "tools/methods.hpp"
#include "tools/outputs.hpp"
#include "tune/cost_model.hpp"

#include <gsr/error.hpp>

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace {

using namespace gsr::tools::bench;

enum ExitCode { done = 0, differs = 1, unusable = 2 };

struct Arguments {
  int dim = 3, elements = 8, order = 7;
  std::string mesh;
  Rounds rounds;
  std::string json_path, csv_path;
  bool check = false;
  std::string inject;  // hidden, testing only
  bool primitives = false;
  std::vector<std::size_t> block_bytes{8, 1024, 65536, 1048576};
  std::string calibrate;  // where to write the machine file
  std::string machine;    // the model to predict with (else GSR_MACHINE, else the defaults)
};

void add_options(CLI::App& app, Arguments& args) {
  CLI::Option* mesh = app.add_option("--mesh", args.mesh, "a gsr mesh file (FILE.h5) instead of the generated box");
  app.add_option("--dim", args.dim, "box: 2 or 3")->check(CLI::IsMember({2, 3}))->excludes(mesh)->capture_default_str();
  app.add_option("--elements", args.elements, "box: elements per rank along each axis")
      ->check(CLI::Range(1, 256))
      ->excludes(mesh)
      ->capture_default_str();
  app.add_option("--order", args.order, "box: polynomial order N of the elements")
      ->check(CLI::Range(1, 32))
      ->excludes(mesh)
      ->capture_default_str();
  app.add_option("--repeats", args.rounds.repeats, "rounds; each result is the median over them")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--calls", args.rounds.calls, "calls per contender, call kind and round")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--json", args.json_path, "also write every record as JSON to this file");
  app.add_option("--csv", args.csv_path, "also write every record as CSV to this file");
  CLI::Option* check = app.add_flag(
      "--check", args.check, "no timing: fail (exit 1) unless every method and auto give bitwise identical results");
  app.add_option("--inject-difference", args.inject, "testing: perturb this method's results in --check")
      ->check(CLI::IsMember(gsr::tools::method_names(false)))
      ->needs(check)
      ->group("");
  CLI::Option* primitives =
      app.add_flag("--primitives", args.primitives,
                   "time gsr::scatter and gsr::gather against MPI_Scatterv and MPI_Gatherv instead of the methods")
          ->excludes(mesh)
          ->excludes(check);
  app.add_option("--block-bytes", args.block_bytes, "--primitives: the bytes of every rank's block, one run each")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 26))
      ->needs(primitives)
      ->delimiter(',')
      ->capture_default_str();
  CLI::Option* calibrate =
      app.add_option("--calibrate", args.calibrate,
                     "measure alpha, beta and the local pass on this machine and write them to this machine file "
                     "(GSR_MACHINE=FILE then makes gsr use them)")
          ->excludes(check)
          ->excludes(primitives)
          ->excludes(mesh);
  app.add_option("--machine", args.machine,
                 "the machine file to predict with (default: GSR_MACHINE, else the built-in guesses)")
      ->excludes(calibrate)
      ->excludes(check)
      ->excludes(primitives);
}

/// The model the timings are set against: --machine, else GSR_MACHINE, else the defaults.
gsr::detail::CostModel model_of(const Arguments& args) {
  return args.machine.empty() ? gsr::detail::machine_model(gsr::detail::machine_file())
                              : gsr::detail::read_machine_file(args.machine, "--machine");
}

/// What is wrong with the files this run would write, as rank 0 (which writes them) sees
/// it, on every rank; empty if nothing. Checked before anything is measured.
std::string output_problem(const Arguments& args, MPI_Comm comm, int rank) {
  std::string problem;
  if (rank == 0) {
    problem = gsr::tools::output_problem(
        {{"--calibrate", args.calibrate}, {"--json", args.json_path}, {"--csv", args.csv_path}},
        {{"--mesh", args.mesh}, {"--machine", args.machine}});
    // Auto's handles (and the predictions) read GSR_MACHINE; a report must not replace it.
    // --calibrate may: that is how a machine file is measured again.
    const gsr::detail::NamedText machine = gsr::detail::machine_file();
    if (problem.empty() && !machine.text.empty())
      problem = gsr::tools::output_problem({{"--json", args.json_path}, {"--csv", args.csv_path}},
                                           {{machine.named_by, machine.text}});
  }
  unsigned long long length = problem.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  problem.resize(length);
  MPI_Bcast(problem.data(), static_cast<int>(length), MPI_CHAR, 0, comm);
  return problem;
}

/// --check: prints the verdict on rank 0; every rank returns the same code.
int run_check(const Problem& problem, const Arguments& args, MPI_Comm comm, int rank) {
  const std::optional<gsr::Method> inject = args.inject.empty() ? std::nullopt : gsr::method_from_string(args.inject);
  const CheckResult result = check_methods(flagged_ids(problem.ids), comm, inject);
  if (rank == 0) {
    std::string contenders;
    for (const std::string& c : result.contenders) contenders += (contenders.empty() ? "" : ", ") + c;
    if (result.differences.empty()) {
      std::cout << "gsr-bench: check passed: " << contenders << " give bitwise identical results in all "
                << result.comparisons << " comparisons (" << problem.describe() << ")\n";
    } else {
      std::cerr << "gsr-bench: check FAILED: " << result.differences.size() << " of " << result.comparisons
                << " comparisons differ bitwise (" << problem.describe() << "):\n";
      constexpr std::size_t shown = 12;
      for (std::size_t i = 0; i < result.differences.size() && i < shown; ++i)
        std::cerr << "  " << result.differences[i] << "\n";
      if (result.differences.size() > shown)
        std::cerr << "  ... and " << result.differences.size() - shown << " more\n";
    }
  }
  return result.differences.empty() ? done : differs;
}

/// Timing: the table on rank 0, and the files it was asked for.
int run_bench(const Problem& problem, const Arguments& args, MPI_Comm comm, int rank, int argc, char** argv) {
  gsr::detail::CostModel model = model_of(args);
  // A rank alone on its node has the node's memory bandwidth to itself (docs/scaling.md).
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  int most_on_a_node = on_node;
  MPI_Allreduce(&on_node, &most_on_a_node, 1, MPI_INT, MPI_MAX, comm);
  model.alone_on_node = most_on_a_node == 1;
  const std::vector<Record> records = measure(problem, args.rounds, model, comm);
  nlohmann::ordered_json metadata = run_metadata(problem, argc, argv);
  metadata["model"] = model.source;
  if (rank != 0) return done;
  std::cout << table_text(metadata, records) << std::flush;
  if (!args.json_path.empty()) write_file(args.json_path, bench_document(metadata, records).dump(1) + "\n");
  if (!args.csv_path.empty()) write_file(args.csv_path, csv_text(records));
  return done;
}

/// --primitives: the comparison with MPI, then the table and the files.
int run_primitives(const Arguments& args, MPI_Comm comm, int rank, int argc, char** argv) {
  const PrimitivesResult result = measure_primitives(args.block_bytes, args.rounds, comm);
  Problem none;
  MPI_Comm_size(comm, &none.ranks);
  none.input = "primitives";
  nlohmann::ordered_json metadata = run_metadata(none, argc, argv);
  metadata["problem"] = primitives_problem(args.block_bytes);
  if (rank == 0) {
    std::cout << primitives_table(metadata, result.records) << std::flush;
    if (!args.json_path.empty()) write_file(args.json_path, bench_document(metadata, result.records).dump(1) + "\n");
    if (!args.csv_path.empty()) write_file(args.csv_path, csv_text(result.records));
  }
  return result.equal_to_mpi && result.transfers_equal_to_mpi ? done : differs;
}

/// --calibrate: the probes, the summary, the machine file (and --json / --csv records).
int run_calibrate(const Problem& problem, const Arguments& args, MPI_Comm comm, int rank, int argc, char** argv) {
  const Calibration calibration = calibrate(problem, args.rounds, comm);
  const nlohmann::ordered_json metadata = run_metadata(problem, argc, argv);
  if (rank != 0) return done;
  std::cout << calibration_table(metadata, calibration) << std::flush;
  nlohmann::ordered_json machine = calibration.machine;
  machine["run"] = metadata;
  write_file(args.calibrate, machine.dump(1) + "\n");
  std::cout << "machine file: " << args.calibrate << " (use it with GSR_MACHINE=" << args.calibrate << ")\n";
  if (!args.json_path.empty()) write_file(args.json_path, bench_document(metadata, calibration.records).dump(1) + "\n");
  if (!args.csv_path.empty()) write_file(args.csv_path, csv_text(calibration.records));
  return done;
}

int run_on_this_rank(const Arguments& args, MPI_Comm comm, int rank, int argc, char** argv) {
  try {
    if (args.primitives) return run_primitives(args, comm, rank, argc, argv);
    const Problem problem =
        args.mesh.empty() ? box_problem(args.dim, args.elements, args.order, comm) : mesh_problem(args.mesh, comm);
    if (!args.calibrate.empty()) return run_calibrate(problem, args, comm, rank, argc, argv);
    return args.check ? run_check(problem, args, comm, rank) : run_bench(problem, args, comm, rank, argc, argv);
  } catch (const std::exception& e) {  // gsr::Error, and the unforeseen (out of memory, ...)
    std::cerr << "gsr-bench: error: " << e.what() << "\n";
    return unusable;
  }
}

/// Every rank returns the same code: rank 0 alone writes the files, and a failure there
/// is every rank's failure (docs/tools.md, "Exit codes").
int run(const Arguments& args, MPI_Comm comm, int argc, char** argv) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (const std::string problem = output_problem(args, comm, rank); !problem.empty()) {
    if (rank == 0) std::cerr << "gsr-bench: error: " << problem << "; nothing was run\n";
    return unusable;
  }
  int code = run_on_this_rank(args, comm, rank, argc, argv);
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, comm);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CLI::App app{
      "gsr-bench: times every gather-scatter method against the stream, wire, round and touch bounds "
      "(run under mpiexec; docs/performance.md)"};
  Arguments args;
  add_options(app, args);
  int code = done;
  try {
    app.parse(argc, argv);
    code = run(args, MPI_COMM_WORLD, argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 speaks.
    std::ostringstream quiet;
    code = rank == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
  }
  MPI_Finalize();
  return code;
}
