// config/config.hpp — every setting gsr takes from outside its arguments: the GSR_*
// environment variables and the machine's cache sizes. They are read here and nowhere
// else, when a handle is set up or a collective call begins, into settings the layers
// above are handed; the caller's options (gsr/options.hpp, SetupOptions) win over the
// environment. docs/configuration.md has the table of variables.
#pragma once

#include <gsr/handle.hpp>
#include <gsr/options.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace gsr::detail {

inline constexpr double default_timeout_seconds = 300;
/// The shortest limit GSR_TIMEOUT / MessageOptions::timeout accepts (besides 0, no limit).
inline constexpr double min_timeout_seconds = 0.1;

/// Reads one environment variable (nullptr: unset): the process's environment, or one a
/// test makes up.
using Lookup = std::function<const char*(const char*)>;

/// The process's environment (std::getenv).
const char* process_environment(const char* name);

/// How one handle's or call's messages go.
struct MessageSettings {
  double timeout = default_timeout_seconds;  // seconds; 0: no limit
  std::size_t chunk_bytes = 0;               // MessageOptions::chunk_bytes
};

/// A text setting and how to name it in an error: "GSR_METHOD" or the option's name.
struct NamedText {
  std::string text;  // empty: unset
  const char* named_by = "";
};

/// One handle's settings.
struct HandleSettings {
  MessageSettings messages;
  bool quiet = false;
  std::optional<std::size_t> prefetch_from_bytes;  // unset: from the cache (prefetch_default)
  NamedText method_table;                          // only when SetupOptions::method is automatic (core parses it)
  NamedText machine_file;                          // auto's machine file (tune reads it)
};

/// The caller's options, the environment for what they leave unset, the defaults for the
/// rest. Throws Error(invalid_argument) naming the first bad value and where it came from
/// ("gsr: GSR_TIMEOUT='soon' is not ...").
MessageSettings resolve(const MessageOptions& options, const Lookup& lookup = process_environment);
HandleSettings resolve(const SetupOptions& options, const Lookup& lookup = process_environment);

/// The machine file `option` names, else GSR_MACHINE's (empty text: none); for the tools,
/// which read it without setting up a handle.
NamedText machine_file(const std::string& option = {}, const Lookup& lookup = process_environment);

/// The timeout of the step that agrees on the settings themselves (they may be bad on
/// one rank): resolve's, or the default if that throws.
double timeout_or_default(const MessageOptions& options, const Lookup& lookup = process_environment) noexcept;

/// What the system says about its caches and CPUs (Linux's sysfs, probed once).
struct CacheProbe {
  std::size_t last_level_bytes = 0;  // 0: not reported
  std::size_t last_level_cpus = 0;   // CPUs sharing that cache
  std::size_t online_cpus = 1;
};
const CacheProbe& probe_cache();

/// The default prefetch threshold: half the last-level cache (32 MiB if none is
/// reported), divided among the ranks that share it: `ranks_on_node` spread evenly over
/// the node's CPUs, each last-level cache serving its own CPUs.
std::size_t prefetch_default(const CacheProbe& cache, int ranks_on_node);

}  // namespace gsr::detail
