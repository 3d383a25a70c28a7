// config/config.cpp — see config.hpp.
#include "config/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>

namespace gsr::detail {
namespace {

/// The variable's text, or nullptr when it is unset or empty (which means unset too).
const char* variable(const Lookup& lookup, const char* name) {
  const char* text = lookup(name);
  return text && *text ? text : nullptr;
}

std::string quoted(const char* name, const char* text) { return std::string("gsr: ") + name + "='" + text + "'"; }

// A limit below min_timeout_seconds (other than 0) is shorter than one collective step may
// take on a busy machine: every setup would fail, blaming another rank.
bool usable_timeout(double seconds) {
  return std::isfinite(seconds) && (seconds == 0 || seconds >= min_timeout_seconds);
}

const std::string timeout_expected = "is not a number of seconds >= 0.1 (0 turns the limit off)";

double checked_timeout(double seconds) {
  if (!usable_timeout(seconds)) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", seconds);
    throw Error(ErrorCode::invalid_argument,
                std::string("gsr: MessageOptions::timeout = ") + text + " " + timeout_expected);
  }
  return seconds;
}

double timeout_variable(const char* text) {
  char* end = nullptr;
  errno = 0;
  double seconds = std::strtod(text, &end);
  // A value too small for a double (1e-320) is below the minimum like 1e-9, not unreadable.
  if (errno == ERANGE && std::fabs(seconds) < 1) errno = 0, seconds = seconds < 0 ? -1 : 1e-300;
  if (errno != 0 || end == text || *end != '\0' || !usable_timeout(seconds))
    throw Error(ErrorCode::invalid_argument, quoted("GSR_TIMEOUT", text) + " " + timeout_expected);
  return seconds;
}

std::size_t prefetch_variable(const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (!std::isdigit(static_cast<unsigned char>(text[0])) || errno != 0 || *end != '\0')
    throw Error(ErrorCode::invalid_argument,
                quoted("GSR_PREFETCH_FROM_BYTES", text) +
                    " is not a number of bytes (an integer >= 0; 0 asks for the hints on every call)");
  return static_cast<std::size_t>(value);
}

bool quiet_variable(const char* text) {
  if (std::string_view(text) == "0") return false;
  if (std::string_view(text) == "1") return true;
  throw Error(ErrorCode::invalid_argument,
              quoted("GSR_QUIET", text) + " is not 0 or 1 (1 silences the setup summaries)");
}

NamedText text_setting(const std::string& option, const char* option_name, const Lookup& lookup, const char* name) {
  if (!option.empty()) return {option, option_name};
  const char* text = variable(lookup, name);
  return text ? NamedText{text, name} : NamedText{};
}

/// Linux's count of a cpulist such as "0-3,8-11".
std::size_t count_cpus(const std::string& list) {
  std::size_t cpus = 0;
  std::size_t at = 0;
  while (at < list.size()) {
    char* end = nullptr;
    const unsigned long first = std::strtoul(list.c_str() + at, &end, 10);
    unsigned long last = first;
    if (*end == '-') last = std::strtoul(end + 1, &end, 10);
    if (last >= first) cpus += last - first + 1;
    at = static_cast<std::size_t>(end - list.c_str());
    if (at < list.size() && list[at] == ',')
      ++at;
    else
      break;
  }
  return cpus;
}

/// The outermost cache of the first CPU, from Linux's sysfs: its size ("32768K") and how
/// many CPUs share it ("0-1", "0-7,64-71"); 0 bytes when it cannot be read. (sysconf's
/// _SC_LEVEL3_CACHE_SIZE reports the whole package's L3 on chips made of several core
/// complexes: 384 MiB where a core shares 32 MiB.)
CacheProbe read_cache_probe() {
  CacheProbe probe;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream in(dir + "size");
    std::string text;
    if (!(in >> text)) break;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    std::size_t scale = 1;
    if (*end == 'K')
      scale = 1024;
    else if (*end == 'M')
      scale = 1024 * 1024;
    const auto bytes = static_cast<std::size_t>(value) * scale;
    if (bytes <= probe.last_level_bytes) continue;
    std::ifstream shared(dir + "shared_cpu_list");
    std::string list;
    shared >> list;
    probe.last_level_bytes = bytes;
    probe.last_level_cpus = std::max<std::size_t>(count_cpus(list), 1);
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  probe.online_cpus = online > 0 ? static_cast<std::size_t>(online) : 1;
  return probe;
}

}  // namespace

const char* process_environment(const char* name) { return std::getenv(name); }

MessageSettings resolve(const MessageOptions& options, const Lookup& lookup) {
  MessageSettings settings;
  if (options.timeout)
    settings.timeout = checked_timeout(*options.timeout);
  else if (const char* text = variable(lookup, "GSR_TIMEOUT"))
    settings.timeout = timeout_variable(text);
  settings.chunk_bytes = options.chunk_bytes;
  return settings;
}

HandleSettings resolve(const SetupOptions& options, const Lookup& lookup) {
  HandleSettings settings;
  settings.messages = resolve(options.messages, lookup);
  if (options.prefetch_from_bytes)
    settings.prefetch_from_bytes = options.prefetch_from_bytes;
  else if (const char* text = variable(lookup, "GSR_PREFETCH_FROM_BYTES"))
    settings.prefetch_from_bytes = prefetch_variable(text);
  if (options.quiet)
    settings.quiet = *options.quiet;
  else if (const char* text = variable(lookup, "GSR_QUIET"))
    settings.quiet = quiet_variable(text);
  // A method asked for by its code leaves no choice to a table; auto alone reads a machine file.
  if (options.method == Method::automatic) {
    settings.method_table = text_setting(options.method_table, "method_table", lookup, "GSR_METHOD");
    settings.machine_file = machine_file(options.machine_file, lookup);
  }
  return settings;
}

NamedText machine_file(const std::string& option, const Lookup& lookup) {
  return text_setting(option, "machine_file", lookup, "GSR_MACHINE");
}

double timeout_or_default(const MessageOptions& options, const Lookup& lookup) noexcept {
  try {
    return resolve(options, lookup).timeout;
  } catch (...) {
    return default_timeout_seconds;
  }
}

const CacheProbe& probe_cache() {
  static const CacheProbe probe = read_cache_probe();
  return probe;
}

std::size_t prefetch_default(const CacheProbe& cache, int ranks_on_node) {
  const std::size_t cpus = std::max<std::size_t>(cache.online_cpus, 1);
  const std::size_t bytes = cache.last_level_bytes > 0 ? cache.last_level_bytes : std::size_t{32} << 20;
  const std::size_t sharing_cpus = cache.last_level_bytes > 0 ? std::min(cache.last_level_cpus, cpus) : cpus;
  const auto ranks = static_cast<std::size_t>(std::max(ranks_on_node, 1));
  // Ranks per cache, evenly spread: ceil(ranks x its CPUs / the node's CPUs).
  const std::size_t sharing = std::max<std::size_t>(1, (ranks * sharing_cpus + cpus - 1) / cpus);
  return bytes / 2 / sharing;
}

}  // namespace gsr::detail
