// The one module that reads gsr's environment (config/config.hpp), with a made-up
// environment instead of setenv: what each variable sets, that the caller's options win and
// leave the variable unread, the errors that name a bad value, and the default prefetch
// threshold worked by hand from made-up caches.
#include "config/config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using gsr::detail::CacheProbe;
using gsr::detail::Lookup;
using gsr::detail::prefetch_default;
using gsr::detail::resolve;

/// An environment holding `variables` and nothing else.
Lookup environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

/// The message of the gsr::Error that `body` throws (ErrorCode::invalid_argument).
template <class Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(Config, DefaultsWithAnEmptyEnvironment) {
  const gsr::detail::HandleSettings s = resolve(gsr::SetupOptions{}, environment({}));
  EXPECT_EQ(s.messages.timeout, gsr::detail::default_timeout_seconds);
  EXPECT_EQ(s.messages.chunk_bytes, 0u);
  EXPECT_FALSE(s.quiet);
  EXPECT_FALSE(s.prefetch_from_bytes);
  EXPECT_TRUE(s.method_table.text.empty());
  EXPECT_TRUE(s.machine_file.text.empty());
}

TEST(Config, EveryVariableSetsItsSetting) {
  const auto env = environment({{"GSR_TIMEOUT", "2.5"},
                                {"GSR_QUIET", "1"},
                                {"GSR_PREFETCH_FROM_BYTES", "4096"},
                                {"GSR_METHOD", "crystal_router,pairwise:64"},
                                {"GSR_MACHINE", "m.json"}});
  const gsr::detail::HandleSettings s = resolve(gsr::SetupOptions{}, env);
  EXPECT_EQ(s.messages.timeout, 2.5);
  EXPECT_TRUE(s.quiet);
  EXPECT_EQ(s.prefetch_from_bytes, 4096u);
  EXPECT_EQ(s.method_table.text, "crystal_router,pairwise:64");
  EXPECT_STREQ(s.method_table.named_by, "GSR_METHOD");
  EXPECT_EQ(s.machine_file.text, "m.json");
  EXPECT_STREQ(s.machine_file.named_by, "GSR_MACHINE");
  EXPECT_EQ(resolve(gsr::MessageOptions{}, env).timeout, 2.5);
  // Empty means unset, as in a shell's GSR_QUIET= .
  EXPECT_FALSE(resolve(gsr::SetupOptions{}, environment({{"GSR_QUIET", ""}})).quiet);
}

TEST(Config, OptionsWinAndLeaveTheVariableUnread) {
  // Every variable is bad: a setting the caller gives must not read it.
  const auto env = environment({{"GSR_TIMEOUT", "soon"},
                                {"GSR_QUIET", "yes"},
                                {"GSR_PREFETCH_FROM_BYTES", "lots"},
                                {"GSR_METHOD", "fastest"},
                                {"GSR_MACHINE", "env.json"}});
  gsr::SetupOptions options;
  options.messages.timeout = 0;
  options.messages.chunk_bytes = 40;
  options.quiet = false;
  options.prefetch_from_bytes = 0;
  options.method_table = "pairwise";
  options.machine_file = "mine.json";
  const gsr::detail::HandleSettings s = resolve(options, env);
  EXPECT_EQ(s.messages.timeout, 0.0);
  EXPECT_EQ(s.messages.chunk_bytes, 40u);
  EXPECT_FALSE(s.quiet);
  EXPECT_EQ(s.prefetch_from_bytes, 0u);
  EXPECT_EQ(s.method_table.text, "pairwise");
  EXPECT_STREQ(s.method_table.named_by, "method_table");
  EXPECT_EQ(s.machine_file.text, "mine.json");
  // A method asked for by its code reads neither the method table nor the machine file.
  gsr::SetupOptions named = options;
  named.method = gsr::Method::pairwise;
  named.method_table.clear();
  named.machine_file.clear();
  const gsr::detail::HandleSettings n = resolve(named, env);
  EXPECT_TRUE(n.method_table.text.empty());
  EXPECT_TRUE(n.machine_file.text.empty());
}

TEST(Config, BadValuesNameTheVariable) {
  const gsr::SetupOptions none;
  EXPECT_EQ(error_of([&] {
              resolve(none, environment({{"GSR_TIMEOUT", "soon"}}));
            }),
            "gsr: GSR_TIMEOUT='soon' is not a number of seconds >= 0.1 (0 turns the limit off)");
  // Below the minimum (0.1 s), however small, and however it is written.
  for (const char* tiny : {"1e-9", "1e-320", "0.05", "-1e-320"})
    EXPECT_EQ(error_of([&] {
                resolve(none, environment({{"GSR_TIMEOUT", tiny}}));
              }),
              std::string("gsr: GSR_TIMEOUT='") + tiny + "' is not a number of seconds >= 0.1 (0 turns the limit off)");
  EXPECT_EQ(resolve(none, environment({{"GSR_TIMEOUT", "0.1"}})).messages.timeout, 0.1);
  EXPECT_EQ(resolve(none, environment({{"GSR_TIMEOUT", "0"}})).messages.timeout, 0.0);
  EXPECT_NE(error_of([&] {
              resolve(none, environment({{"GSR_TIMEOUT", "-1"}}));
            }).find("GSR_TIMEOUT='-1'"),
            std::string::npos);
  EXPECT_EQ(error_of([&] {
              resolve(none, environment({{"GSR_PREFETCH_FROM_BYTES", "-1"}}));
            }),
            "gsr: GSR_PREFETCH_FROM_BYTES='-1' is not a number of bytes (an integer >= 0; 0 asks for the hints on "
            "every call)");
  EXPECT_EQ(error_of([&] {
              resolve(none, environment({{"GSR_QUIET", "yes"}}));
            }),
            "gsr: GSR_QUIET='yes' is not 0 or 1 (1 silences the setup summaries)");
  gsr::MessageOptions negative;
  negative.timeout = -1;
  EXPECT_NE(error_of([&] { resolve(negative, environment({})); }).find("MessageOptions::timeout"), std::string::npos);
  gsr::MessageOptions tiny;
  tiny.timeout = 1e-9;
  EXPECT_EQ(error_of([&] { resolve(tiny, environment({})); }),
            "gsr: MessageOptions::timeout = 1e-09 is not a number of seconds >= 0.1 (0 turns the limit off)");
  // The first step's own timeout survives a bad value, which that step then reports.
  EXPECT_EQ(gsr::detail::timeout_or_default({}, environment({{"GSR_TIMEOUT", "soon"}})),
            gsr::detail::default_timeout_seconds);
  EXPECT_EQ(gsr::detail::timeout_or_default({}, environment({{"GSR_TIMEOUT", "7"}})), 7.0);
}

TEST(Config, DefaultPrefetchThresholdSharesTheCache) {
  const std::size_t mib = std::size_t{1} << 20;
  // 32 MiB shared by all 8 CPUs: half of it over the ranks on the node.
  const CacheProbe node{32 * mib, 8, 8};
  EXPECT_EQ(prefetch_default(node, 1), 16 * mib);
  EXPECT_EQ(prefetch_default(node, 4), 4 * mib);
  EXPECT_EQ(prefetch_default(node, 0), 16 * mib);  // no count: one rank
  // Two complexes of 4 CPUs, 16 MiB each: 4 ranks spread evenly put 2 on each.
  const CacheProbe complexes{16 * mib, 4, 8};
  EXPECT_EQ(prefetch_default(complexes, 4), 4 * mib);
  EXPECT_EQ(prefetch_default(complexes, 1), 8 * mib);
  // No cache reported: 32 MiB for the whole node.
  EXPECT_EQ(prefetch_default(CacheProbe{0, 0, 4}, 2), 8 * mib);
}

}  // namespace
