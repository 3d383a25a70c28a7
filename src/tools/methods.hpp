// tools/methods.hpp — the method names a command accepts: those of the registry
// (gsr::registered_methods()), so a method added there is one the tools take.
#pragma once

#include <gsr/types.hpp>

#include <string>
#include <vector>

namespace gsr::tools {

/// Every registered method's name, in registry order; "auto" first if `with_auto`.
inline std::vector<std::string> method_names(bool with_auto) {
  std::vector<std::string> names;
  if (with_auto) names.emplace_back(to_string(Method::automatic));
  for (const Method m : registered_methods()) names.emplace_back(to_string(m));
  return names;
}

}  // namespace gsr::tools
