// tools/gsr_check.cpp — the gsr-check command: a mesh connectivity check under mpiexec.
//
//   mpiexec -n P gsr-check FILE.h5 [--json] [--expect REPORT.json] [--method NAME] [--progress]
//
// Rank 0 shows its progress through the steps on stderr when stderr is a terminal or with
// --progress (under mpiexec the ranks' stderr is a pipe: ask with --progress).
//
// Exit codes: 0 consistent (and matching --expect), 1 inconsistent mesh, 2 the file cannot
// be loaded (missing, not HDF5, malformed, too big for memory), 3 the report differs from
// --expect (or that report cannot be read); command-line mistakes give CLI11's codes
// (non-zero). The first that applies wins: a file that cannot be loaded has no report to
// be inconsistent or to compare, and a mismatch with --expect outranks an inconsistency
// the saved report may already hold. Every rank returns the same code.
#include "tools/check.hpp"
#include "tools/methods.hpp"
#include "tools/progress.hpp"

#include <CLI/CLI.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>

namespace {

enum ExitCode { consistent = 0, inconsistent = 1, unreadable = 2, unexpected = 3 };

struct Arguments {
  gsr::tools::CheckOptions check;
  std::string method_name = "auto";
  std::string distribution_name = "blocks";
  bool json = false;
  bool progress = false;
  std::string expect_path;
};

/// The comparison with --expect: the differences, or why the saved report cannot be read.
struct Expectation {
  std::vector<std::string> differences;
  std::string error;
  bool met() const { return error.empty() && differences.empty(); }
};

/// Every rank reads the expected report, so every rank reaches the same verdict.
Expectation compare_with_expected(const std::string& path, const nlohmann::json& report) {
  Expectation expectation;
  std::ifstream in(path);
  try {
    if (!in) throw std::runtime_error("cannot be opened");
    const nlohmann::json expected = nlohmann::json::parse(in);
    expectation.differences = gsr::tools::compare_reports(expected, report);
  } catch (const std::exception& e) {
    expectation.error = std::string("expected report '") + path + "': " + e.what();
  }
  return expectation;
}

/// The report on stdout; the verdict of --expect on stderr.
void print(const Arguments& args, const nlohmann::json& report, const Expectation& expectation) {
  if (args.json)
    std::cout << report.dump(2) << "\n";
  else
    std::cout << gsr::tools::summarize(report);
  if (!expectation.error.empty()) std::cerr << "gsr-check: " << expectation.error << "\n";
  const std::vector<std::string>& differences = expectation.differences;
  if (!differences.empty()) {
    std::cerr << "gsr-check: the report differs from " << args.expect_path << " in " << differences.size() << " place"
              << (differences.size() == 1 ? "" : "s") << ":\n";
    for (const std::string& line : differences) std::cerr << "  " << line << "\n";
  } else if (!args.expect_path.empty() && expectation.error.empty()) {
    std::cerr << "gsr-check: the report matches " << args.expect_path << "\n";
  }
}

/// Runs the check; only rank 0 prints. Returns the exit code, the same on every rank.
int run(const Arguments& args, MPI_Comm comm, int rank, gsr::tools::ProgressBar& bar) {
  nlohmann::json report;
  try {
    report = gsr::tools::check_mesh(args.check, comm);
  } catch (const gsr::Error& e) {
    bar.end_line();
    if (rank == 0) std::cerr << "gsr-check: error: " << e.what() << "\n";
    return e.code() == gsr::ErrorCode::io ? unreadable : inconsistent;
  } catch (const std::bad_alloc&) {
    bar.end_line();
    // The loader reports its own allocations (with their sizes) as io errors; this is the
    // check's working memory, on this rank.
    std::cerr << "gsr-check: error: file '" << args.check.path << "': out of memory on rank " << rank
              << " while checking the mesh\n";
    return unreadable;
  }
  const Expectation expectation =
      args.expect_path.empty() ? Expectation{} : compare_with_expected(args.expect_path, report);
  if (rank == 0) print(args, report, expectation);
  if (!expectation.met()) return unexpected;
  return report.at("consistent").get<bool>() ? consistent : inconsistent;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Arguments args;
  CLI::App app{"gsr-check: checks the connectivity of a gsr mesh file with gather-scatter (run under mpiexec)"};
  app.add_option("file", args.check.path, "mesh file (FILE.h5)")->required();
  app.add_flag("--json", args.json, "print the report as JSON instead of a summary");
  app.add_option("--expect", args.expect_path, "saved JSON report to compare with; any difference fails");
  app.add_option("--method", args.method_name, "exchange method for the main checks")
      ->check(CLI::IsMember(gsr::tools::method_names(true)));
  app.add_option("--distribution", args.distribution_name, "blocks (default) or partition (the file's)")
      ->check(CLI::IsMember({"blocks", "partition"}));
  app.add_option("--tolerance", args.check.tolerance,
                 "largest coordinate spread allowed among a node's copies (default 1e-9 x box diagonal)")
      ->check(CLI::Validator(
          [](std::string& text) {  // CLI::NonNegativeNumber names DBL_MAX in 300 digits
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end || !std::isfinite(value) || value < 0)
              return "'" + text + "' is not a finite number >= 0";
            return std::string();
          },
          "X >= 0"));
  bool no_compare = false;
  app.add_flag("--no-method-comparison", no_compare, "skip running every exchange method");
  std::string inject;  // testing only: the comparison must catch a method whose answers differ
  app.add_option("--inject-difference", inject)->check(CLI::IsMember(gsr::tools::method_names(false)))->group("");
  app.add_flag("--progress", args.progress,
               "show the steps on stderr even when it is not a terminal (as under mpiexec)");

  int code = 0;
  try {
    app.parse(argc, argv);
    args.check.method = *gsr::method_from_string(args.method_name);
    args.check.distribution =
        args.distribution_name == "partition" ? gsr::Distribution::partition : gsr::Distribution::blocks;
    args.check.compare_methods = !no_compare;
    if (!inject.empty()) args.check.inject_difference = gsr::method_from_string(inject);
    gsr::tools::ProgressBar bar(rank == 0 && (args.progress || gsr::tools::stderr_is_terminal()), "steps");
    args.check.progress = [&bar](int done, int total, const std::string& what) { bar(done, total, what); };
    code = run(args, MPI_COMM_WORLD, rank, bar);
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same arguments; only rank 0 speaks.
    std::ostringstream quiet;
    code = rank == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
  }
  MPI_Finalize();
  return code;
}
