// tools/outputs.cpp — see outputs.hpp.
#include "tools/outputs.hpp"

#include "io/files.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace gsr::tools {
namespace {

std::string quoted(const NamedPath& p) { return p.name + " '" + p.path + "'"; }

/// Why `output` cannot be written where it is, or "".
std::string unwritable(const NamedPath& output) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(output.path, error)) return quoted(output) + " is a folder, not a file";
  fs::path folder = fs::path(output.path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::exists(folder, error)) return quoted(output) + ": its folder '" + folder.string() + "' does not exist";
  if (!fs::is_directory(folder, error)) return quoted(output) + ": '" + folder.string() + "' is not a folder";
  // Files are written beside the target and renamed into place (io/files.hpp): the folder
  // must take new entries.
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return quoted(output) + ": its folder '" + folder.string() + "' is not writable";
  return {};
}

}  // namespace

std::string output_problem(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    if (output.path.empty()) continue;
    if (std::string why = unwritable(output); !why.empty()) return why;
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && io::same_file(outputs[j].path, output.path))
        return quoted(output) + " is the same file as " + quoted(outputs[j]) +
               ": one would overwrite the other; give each output a path of its own";
    for (const NamedPath& input : inputs)
      if (!input.path.empty() && io::same_file(input.path, output.path))
        return quoted(output) + " is the same file as " + quoted(input) +
               ", which this run reads; write to another path";
  }
  return {};
}

}  // namespace gsr::tools
