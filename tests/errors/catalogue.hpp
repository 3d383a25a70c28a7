// catalogue.hpp — the error catalogue (docs/errors.md) as the tests of tests/errors read
// it: each entry's identifier, code and key words. The tests take what they expect from
// here, not from the library, so a message or code that drifts from the page fails them.
//
//   expect_entry("E-ARG-DOM", [&] { h.apply(...); }, "dom 9");    // C++: throws gsr::Error
//   gs(...); expect_c_entry("E-ARG-DOM", "gs dom 9");               // C: the last error
#pragma once

#ifndef GSR_ERRORS_DOC
#error "GSR_ERRORS_DOC must name docs/errors.md"
#endif

#include <gsr/error.hpp>
#include <gsr/gs.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace gsr_errors {

struct Entry {
  std::string id;
  std::string code;                    // "invalid_argument", ... ("" if the entry has none)
  std::vector<std::string> key_words;  // every one must occur in the message
};

/// The backticked items of `line`, in order.
inline std::vector<std::string> backticked(const std::string& line) {
  std::vector<std::string> items;
  for (std::size_t open = line.find('`'); open != std::string::npos; open = line.find('`', open)) {
    const std::size_t close = line.find('`', open + 1);
    if (close == std::string::npos) break;
    items.push_back(line.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return items;
}

inline std::map<std::string, Entry> read_catalogue() {
  std::map<std::string, Entry> entries;
  std::ifstream in(GSR_ERRORS_DOC);
  std::string line;
  Entry* current = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("### E-", 0) == 0) {
      const std::string id = line.substr(4);
      current = &entries[id];
      current->id = id;
    } else if (line.rfind("## ", 0) == 0) {
      current = nullptr;
    } else if (current && line.rfind("- **Code:** ", 0) == 0) {
      const auto items = backticked(line);
      if (!items.empty()) current->code = items.front();
    } else if (current && line.rfind("- **Key words:** ", 0) == 0) {
      current->key_words = backticked(line);
    }
  }
  return entries;
}

/// The entry `id` of docs/errors.md; a test failure (and an empty entry) if there is none.
inline const Entry& entry(const std::string& id) {
  static const std::map<std::string, Entry> entries = read_catalogue();
  static const Entry none;
  const auto found = entries.find(id);
  if (found == entries.end()) {
    ADD_FAILURE() << id << " is not an entry of " << GSR_ERRORS_DOC;
    return none;
  }
  return found->second;
}

/// The value of a code name as the catalogue's table lists it (gsr::ErrorCode, GSR_ERR_*).
inline int code_value(const std::string& name) {
  static const std::map<std::string, int> values = {{"ok", GSR_SUCCESS},
                                                    {"invalid_argument", GSR_ERR_INVALID_ARGUMENT},
                                                    {"mismatch", GSR_ERR_MISMATCH},
                                                    {"remote", GSR_ERR_REMOTE},
                                                    {"state", GSR_ERR_STATE},
                                                    {"io", GSR_ERR_IO},
                                                    {"mpi", GSR_ERR_MPI},
                                                    {"internal", GSR_ERR_INTERNAL},
                                                    {"timeout", GSR_ERR_TIMEOUT}};
  const auto found = values.find(name);
  return found == values.end() ? -1 : found->second;
}

inline int world_rank_of() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// `code` and `message` are what entry `id` says: its code and every key word.
inline void expect_matches(const std::string& id, int code, const std::string& message, const std::string& what) {
  const Entry& e = entry(id);
  EXPECT_EQ(code, code_value(e.code)) << id << " (" << what << ") on rank " << world_rank_of() << ": expected code "
                                      << e.code << ", message \"" << message << "\"";
  EXPECT_FALSE(e.key_words.empty()) << id << " has no key words";
  for (const std::string& word : e.key_words)
    EXPECT_NE(message.find(word), std::string::npos)
        << id << " (" << what << ") on rank " << world_rank_of() << ": message \"" << message
        << "\" lacks the key words \"" << word << "\"";
}

/// Runs `call`, which must throw the gsr::Error of entry `id`; returns its message.
template <class Call>
std::string expect_entry(const std::string& id, Call&& call, const std::string& what) {
  try {
    call();
    ADD_FAILURE() << id << " (" << what << ") on rank " << world_rank_of() << ": no error";
  } catch (const gsr::Error& e) {
    expect_matches(id, static_cast<int>(e.code()), e.what(), what);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << id << " (" << what << "): not a gsr::Error: " << e.what();
  }
  return {};
}

/// The last C call failed as entry `id` says, and its message names `function`
/// ("gsr: <function>: ..."); clears the error. Returns the message.
inline std::string expect_c_entry(const std::string& id, const std::string& function, const std::string& what) {
  const std::string message = gsr_last_error_message();
  expect_matches(id, gsr_last_error(), message, what);
  EXPECT_EQ(message.rfind("gsr: " + function + ": ", 0), 0u) << id << " (" << what << "): \"" << message << "\"";
  gsr_clear_error();
  return message;
}

}  // namespace gsr_errors
