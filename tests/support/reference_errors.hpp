// reference_errors.hpp — helpers for the bad-input tests: run a call, expect a gsr::Error
// with a given code whose message names the problem.
#pragma once

#include <gsr/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

namespace gsr_test {

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

/// True if `message` contains any of `words` (case-insensitive).
inline bool mentions_any(const std::string& message, std::initializer_list<const char*> words) {
  const std::string m = lower(message);
  for (const char* w : words)
    if (m.find(lower(w)) != std::string::npos) return true;
  return false;
}

inline std::string code_name(gsr::ErrorCode code) {
  switch (code) {
    case gsr::ErrorCode::ok:
      return "ok";
    case gsr::ErrorCode::invalid_argument:
      return "invalid_argument";
    case gsr::ErrorCode::mismatch:
      return "mismatch";
    case gsr::ErrorCode::remote:
      return "remote";
    case gsr::ErrorCode::state:
      return "state";
    case gsr::ErrorCode::io:
      return "io";
    case gsr::ErrorCode::mpi:
      return "mpi";
    case gsr::ErrorCode::internal:
      return "internal";
  }
  return "code " + std::to_string(int(code));
}

/// Runs `call`; expects a gsr::Error with code `code` and a message mentioning one of `words`.
template <class Call>
void expect_error(Call&& call, gsr::ErrorCode code, std::initializer_list<const char*> words, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << what << ": no exception (expected gsr::Error " << code_name(code) << ")";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(code_name(e.code()), code_name(code)) << what << ": message \"" << e.what() << "\"";
    EXPECT_TRUE(mentions_any(e.what(), words)) << what << ": message \"" << e.what() << "\" does not name the problem";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw a non-gsr exception: " << e.what();
  }
}

}  // namespace gsr_test
