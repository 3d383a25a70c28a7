# run_expect.cmake — runs one command and checks its exit code and output, for tests that
# must see a program fail in a particular way (ctest alone checks one or the other).
#   cmake -DCOMMAND="prog|arg|arg" -DEXPECT_RC=2|nonzero|0 [-DPATTERNS="text|text"]
#         [-DEMPTY_STDERR=1] [-DENV="NAME=value|NAME=value"] [-DTIMEOUT=60] [-DLABEL=name]
#         -P run_expect.cmake
# `|` separates list items (ctest would split on `;`). Each pattern is a plain substring
# that must occur in stdout or stderr. tests/errors/run_entry.cmake takes EXPECT_RC and
# PATTERNS from an entry of docs/errors.md and then includes this file.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" command "${COMMAND}")
string(REPLACE "|" ";" environment "${ENV}")
if(NOT TIMEOUT)
  set(TIMEOUT 60)
endif()
if(LABEL)
  set(LABEL "${LABEL}: ")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${environment} ${command}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
set(all "${out}${err}")
message("${LABEL}exit code ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${LABEL}did not exit normally (hang or crash): ${rc}")
endif()
if(EXPECT_RC STREQUAL "nonzero")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${LABEL}expected a non-zero exit code, got 0")
  endif()
elseif(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "${LABEL}expected exit code ${EXPECT_RC}, got ${rc}")
endif()
if(PATTERNS)
  string(REPLACE "|" ";" patterns "${PATTERNS}")
  foreach(pattern IN LISTS patterns)
    string(FIND "${all}" "${pattern}" where)
    if(where EQUAL -1)
      message(FATAL_ERROR "${LABEL}the output does not contain: ${pattern}")
    endif()
  endforeach()
endif()
if(EMPTY_STDERR AND NOT err STREQUAL "")
  message(FATAL_ERROR "${LABEL}expected nothing on stderr")
endif()
