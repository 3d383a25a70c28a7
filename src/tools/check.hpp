// tools/check.hpp — the mesh connectivity check behind gsr-check: loads a mesh in
// parallel and, with gather-scatter operations on its ids, measures multiplicities,
// coordinate agreement of shared nodes and the agreement of all exchange methods. The
// result is a JSON report; everything outside its "run" member depends only on the mesh
// (not on the rank count or method), so saved reports serve as regression baselines.
#pragma once

#include <gsr/mesh.hpp>
#include <gsr/types.hpp>

#include <nlohmann/json.hpp>

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gsr::tools {

struct CheckOptions {
  std::string path;
  Distribution distribution = Distribution::blocks;
  Method method = Method::automatic;  // for the main checks; the comparison runs all
  double tolerance = -1;              // coordinate spread allowed; < 0: 1e-9 x max(box diagonal, 1)
  bool compare_methods = true;
  // Called on every rank before each step (done of total steps, what the step does) and
  // once at the end (done == total); gsr-check draws it on rank 0.
  std::function<void(int done, int total, const std::string& what)> progress;
  // Testing only: this method's answers are altered at the last entry of the last rank, so
  // the comparison must report it (gsr-check's hidden --inject-difference).
  std::optional<Method> inject_difference;
};

/// Collective. Throws gsr::Error if the file cannot be loaded (on every rank); otherwise
/// returns the report (the same on every rank).
nlohmann::json check_mesh(const CheckOptions& options, MPI_Comm comm);

/// Human-readable summary of a report.
std::string summarize(const nlohmann::json& report);

/// Differences between the mesh-dependent parts (all but "run") of two reports, one line
/// each ("/multiplicity/groups/2: expected 40, got 39"); empty when they agree.
std::vector<std::string> compare_reports(const nlohmann::json& expected, const nlohmann::json& actual);

}  // namespace gsr::tools
