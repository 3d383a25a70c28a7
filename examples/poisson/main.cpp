// gsr-poisson — solves -Laplace(u) = f on a gsr mesh file with spectral elements, matrix-free,
// and reports how long it spent in gather-scatter.
//
//   mpiexec -n 2 gsr-poisson box.h5 [--tol 1e-10] [--max-iter 1000] [--method auto]
//                                   [--dot multiplicity|owner] [--json] [--output FILE.h5]
//                                   [--dirichlet 1,3]
//   gsr-poisson --list-methods
//
// The exact solution is manufactured (manufactured.hpp), so the report can give the error.
// The boundary: the walls of the mesh's bounding box (u = 0), or, when the file has
// /mesh/boundary (gsr-mesh import), its tagged faces (u = exact; with --dirichlet only those
// tags, the other tagged faces getting the exact normal derivative).
// Exit status: 0 solved, 1 error, 2 bad command line (also an output path that is a folder, in
// a missing or unwritable folder, or the mesh file itself, or whose XDMF sidecar is), 3 CG did
// not reach the tolerance.
#include "poisson_solver.hpp"
#include "solution_file.hpp"

#include <gsr/mesh.hpp>
#include <gsr/types.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Arguments {
  std::string mesh;
  double tolerance = 1e-10;
  int max_iterations = 1000;
  std::string method = "auto";
  std::string dot = "multiplicity";
  bool json = false;
  bool verbose = false;
  std::string output;  // "" -> <mesh stem>_solution.h5 in the current directory
  bool no_output = false;
  bool list_methods = false;
  std::vector<std::int64_t> dirichlet;  // field-1 tags of the Dirichlet faces; empty = all
};

std::string default_output(const std::string& mesh) {
  return std::filesystem::path(mesh).stem().string() + "_solution.h5";
}

/// The solution file this run writes, "" with --no-output.
std::string output_path(const Arguments& args) {
  return args.no_output ? "" : (args.output.empty() ? default_output(args.mesh) : args.output);
}

/// Why the solution cannot be written to `output` (and its XDMF sidecar beside it), or "":
/// checked before the mesh is read, so that a run neither solves only to fail at the end nor
/// writes over the mesh it reads (as src/tools/outputs.cpp does for the tools).
std::string output_problem(const Arguments& args, const std::string& output) {
  namespace fs = std::filesystem;
  if (output.empty()) return {};
  const std::string name = (args.output.empty() ? "the default output '" : "-o '") + output + "'";
  const std::string sidecar = gsr::xdmf_path(output);
  std::error_code error;
  for (const std::string& path : {output, sidecar}) {
    const std::string what = path == output ? name : name + ": its XDMF sidecar '" + sidecar + "'";
    if (fs::is_directory(path, error)) return what + " is a folder, not a file";
    if (fs::equivalent(path, args.mesh, error))
      return what + " is the same file as the mesh '" + args.mesh + "', which this run reads; write to another path";
  }
  fs::path folder = fs::path(output).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::exists(folder, error)) return name + ": its folder '" + folder.string() + "' does not exist";
  if (!fs::is_directory(folder, error)) return name + ": '" + folder.string() + "' is not a folder";
  // The writer writes beside the target and renames into place: the folder takes new entries.
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return name + ": its folder '" + folder.string() + "' is not writable";
  return {};
}

nlohmann::json report_json(const Arguments& args, const gsr::Mesh& mesh, const poisson::SolveReport& r,
                           double read_seconds, double write_seconds, double total_seconds, const std::string& output) {
  nlohmann::json j;
  j["mesh"] = args.mesh;
  j["dim"] = mesh.dim();
  j["order"] = mesh.order();
  j["elements"] = mesh.info.elements;
  j["global_nodes"] = r.global_nodes;
  j["dirichlet_nodes"] = r.dirichlet_nodes;
  j["boundary"] = r.boundary_faces ? "tagged faces" : "box walls";
  if (r.boundary_faces) {
    j["dirichlet_tags"] = args.dirichlet.empty() ? nlohmann::json("all") : nlohmann::json(args.dirichlet);
    j["dirichlet_faces"] = r.dirichlet_faces;
    j["neumann_faces"] = r.neumann_faces;
  }
  j["ranks"] = r.gs_stats.ranks;
  j["method"] = std::string(gsr::to_string(r.gs_stats.method));
  j["method_reason"] = r.gs_stats.method_reason;
  j["dot_weights"] = args.dot;
  j["exact"] = r.formula;
  j["iterations"] = r.cg.iterations;
  j["converged"] = r.cg.converged;
  j["tolerance"] = args.tolerance;
  j["relative_residual"] = r.cg.relative_residual;
  j["max_error"] = r.max_error;
  j["gs_calls"] = r.gs_calls;
  j["gs_seconds"] = r.gs_seconds;
  j["other_seconds"] = r.solve_seconds - r.gs_seconds;
  j["solve_seconds"] = r.solve_seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["read_seconds"] = read_seconds;
  j["write_seconds"] = write_seconds;
  j["total_seconds"] = total_seconds;
  j["output"] = output.empty() ? nlohmann::json(nullptr) : nlohmann::json(output);
  j["xdmf"] = output.empty() ? nlohmann::json(nullptr) : nlohmann::json(gsr::xdmf_path(output));
  return j;
}

void print_report(const nlohmann::json& j) {
  std::printf("gsr-poisson: %s  (%d-D, order %d, %lld elements, %lld global nodes) on %d rank%s\n",
              j["mesh"].get<std::string>().c_str(), j["dim"].get<int>(), j["order"].get<int>(),
              j["elements"].get<long long>(), j["global_nodes"].get<long long>(), j["ranks"].get<int>(),
              j["ranks"].get<int>() == 1 ? "" : "s");
  std::printf("  exact solution   u = %s\n", j["exact"].get<std::string>().c_str());
  if (j["boundary"] == "tagged faces") {
    std::string tags = j["dirichlet_tags"].is_string()   ? "every tag"
                       : j["dirichlet_tags"].size() == 1 ? "tag "
                                                         : "tags ";
    if (!j["dirichlet_tags"].is_string())
      for (std::size_t t = 0; t < j["dirichlet_tags"].size(); ++t)
        tags += (t ? "," : "") + std::to_string(j["dirichlet_tags"][t].get<long long>());
    std::printf("  boundary         u = exact on %lld faces (field 1, %s); du/dn = exact du/dn on %lld\n",
                j["dirichlet_faces"].get<long long>(), tags.c_str(), j["neumann_faces"].get<long long>());
  }
  std::printf("  gs method        %s (%s)\n", j["method"].get<std::string>().c_str(),
              j["method_reason"].get<std::string>().c_str());
  std::printf("  CG + Jacobi      %s in %d iterations (relative residual %.2e, tolerance %.1e)\n",
              j["converged"].get<bool>() ? "converged" : "NOT converged", j["iterations"].get<int>(),
              j["relative_residual"].get<double>(), j["tolerance"].get<double>());
  std::printf("  max error        %.3e  (max over all nodes of |u - exact|)\n", j["max_error"].get<double>());
  std::printf("  solve time       %.4f s: %.4f s in gs (%ld calls), %.4f s elsewhere\n",
              j["solve_seconds"].get<double>(), j["gs_seconds"].get<double>(), j["gs_calls"].get<long>(),
              j["other_seconds"].get<double>());
  std::printf("  other time       read %.4f s, gs setup %.4f s, write %.4f s; total %.4f s\n",
              j["read_seconds"].get<double>(), j["setup_seconds"].get<double>(), j["write_seconds"].get<double>(),
              j["total_seconds"].get<double>());
  if (j["output"].is_null())
    std::printf("  solution         not written (--no-output)\n");
  else
    std::printf("  solution         %s  (open %s in ParaView)\n", j["output"].get<std::string>().c_str(),
                j["xdmf"].get<std::string>().c_str());
  std::fflush(stdout);
}

int run(const Arguments& args, int rank) {
  const double start = MPI_Wtime();
  const gsr::Mesh mesh = gsr::read_mesh(args.mesh, MPI_COMM_WORLD);
  const double read_seconds = MPI_Wtime() - start;

  poisson::SolveOptions options;
  options.cg.tolerance = args.tolerance;
  options.cg.max_iterations = args.max_iterations;
  options.setup.method = *gsr::method_from_string(args.method);
  options.setup.verbose = args.verbose;
  options.weights = args.dot == "owner" ? poisson::DotWeights::owner : poisson::DotWeights::multiplicity;
  options.dirichlet_tags = args.dirichlet;
  const poisson::SolveReport report = poisson::solve_poisson(mesh, MPI_COMM_WORLD, options);

  const std::string output = output_path(args);
  const double write_start = MPI_Wtime();
  if (!output.empty()) {
    std::vector<double> error(report.u.size());
    for (std::size_t i = 0; i < error.size(); ++i) error[i] = report.u[i] - report.exact[i];
    poisson::write_solution(output, mesh, {{"u", report.u}, {"exact", report.exact}, {"error", error}}, MPI_COMM_WORLD);
  }
  const double write_seconds = MPI_Wtime() - write_start;
  double total_seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &total_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  if (rank == 0) {
    const nlohmann::json j = report_json(args, mesh, report, read_seconds, write_seconds, total_seconds, output);
    if (args.json) {
      std::cout << j.dump(2) << std::endl;
    } else {
      print_report(j);
    }
  }
  return report.cg.converged ? 0 : 3;
}

}  // namespace

// Starts like gsr-check's main (MPI, rank, CLI11); an example uses the installed library
// only, so it shares no code with src/tools.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Arguments args;
  CLI::App app{"Spectral-element Poisson solver on a gsr mesh file (gather-scatter with gsr)", "gsr-poisson"};
  auto* mesh = app.add_option("mesh", args.mesh, "gsr mesh file (HDF5) with coordinates")->check(CLI::ExistingFile);
  app.add_flag("--list-methods", args.list_methods, "print the concrete gs methods, one a line, and exit")
      ->excludes(mesh);
  app.add_option("--tol", args.tolerance, "CG tolerance on ||r|| / ||b||")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-iter", args.max_iterations, "CG iteration limit")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--method", args.method, "gs exchange method")
      ->capture_default_str()
      ->check([](const std::string& name) {
        return gsr::method_from_string(name) ? std::string()
                                             : "unknown method '" + name + "' (see --list-methods, or auto)";
      });
  app.add_option("--dot", args.dot, "how inner products count shared nodes")
      ->capture_default_str()
      ->check(CLI::IsMember({"multiplicity", "owner"}));
  app.add_option("--dirichlet", args.dirichlet,
                 "meshes with boundary faces: the field-1 tags whose faces are Dirichlet, e.g. 1,3 (default: all; "
                 "the others get the exact normal derivative)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--json", args.json, "print the report as one JSON object");
  app.add_flag("--verbose", args.verbose, "print gs setup statistics");
  auto* output = app.add_option("-o,--output", args.output, "solution file (default: <mesh>_solution.h5)");
  app.add_flag("--no-output", args.no_output, "do not write the solution")->excludes(output);

  int status = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parses the same arguments, so all ranks leave here together; rank 0 speaks.
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return code == 0 ? 0 : 2;  // --help is not an error
  }

  if (args.list_methods) {
    if (rank == 0)
      for (const gsr::Method m : gsr::registered_methods()) std::printf("%s\n", std::string(gsr::to_string(m)).c_str());
    MPI_Finalize();
    return 0;
  }
  if (args.mesh.empty()) {
    if (rank == 0) std::fprintf(stderr, "gsr-poisson: a mesh file is required (see --help)\n");
    MPI_Finalize();
    return 2;
  }

  // Rank 0 judges the output paths (it sees the same files as the others on a shared file
  // system) and every rank leaves alike.
  const std::string problem = rank == 0 ? output_problem(args, output_path(args)) : std::string();
  unsigned long long length = problem.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (length != 0) {
    if (rank == 0) std::fprintf(stderr, "gsr-poisson: error: %s; nothing was run\n", problem.c_str());
    MPI_Finalize();
    return 2;
  }

  try {
    status = run(args, rank);
  } catch (const std::exception& e) {
    // Every failure here is collective (the mesh reader, the gs handle, the solver's and
    // the writer's checks all fail on every rank together), so rank 0 reports it; a rank
    // whose own check failed ("rank r: ...") reports its message too.
    const std::string message = e.what();
    if (rank == 0 || message.rfind("rank ", 0) == 0) std::fprintf(stderr, "gsr-poisson: error: %s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
