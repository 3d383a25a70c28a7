// tools/outputs.hpp — the files a command will write, checked before it does any work: no
// two outputs on one path, no output over a file the run reads, and every output's folder
// there and writable, so a run never destroys its own files and never measures for minutes
// only to find it cannot save the result (docs/tools.md, "Output files").
#pragma once

#include <string>
#include <vector>

namespace gsr::tools {

/// A path and how the command line names it: {"--json", "out.json"}, or a description such
/// as {"the XDMF sidecar", "box.xmf"}. An empty path is an option not given.
struct NamedPath {
  std::string name;
  std::string path;
};

/// Empty when every output can be written; else the first problem, naming the option and
/// path: an output that is a folder, whose folder is missing or not writable, that is the
/// same file as another output, or the same file as one of `inputs`.
std::string output_problem(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs = {});

}  // namespace gsr::tools
