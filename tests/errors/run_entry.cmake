# run_entry.cmake — runs a program and checks it against one entry of the error catalogue
# (docs/errors.md): the exit code the entry gives (`**Exit code:**`; 0 for an entry reported
# on stderr, `**Code:** none`) and every one of its key words in stdout or stderr.
#   cmake -DDOC=docs/errors.md -DENTRY=E-TOOL-CHECK-UNREADABLE -DCOMMAND="prog|arg|arg"
#         [-DENV="NAME=value"] [-DTIMEOUT=60] -P run_entry.cmake
# `|` separates the command's words (ctest would split on `;`). Running and checking is
# tests/support/run_expect.cmake's.
cmake_minimum_required(VERSION 3.25)
file(READ "${DOC}" doc)
string(FIND "${doc}" "\n### ${ENTRY}\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${ENTRY} is not an entry of ${DOC}")
endif()
string(SUBSTRING "${doc}" ${start} -1 rest)
string(SUBSTRING "${rest}" 1 -1 rest)
string(FIND "${rest}" "\n#" end)
if(NOT end EQUAL -1)
  string(SUBSTRING "${rest}" 0 ${end} rest)
endif()

if(rest MATCHES "\n- \\*\\*Exit code:\\*\\* `([^`]*)`")
  set(expect_rc "${CMAKE_MATCH_1}")
elseif(rest MATCHES "\n- \\*\\*Code:\\*\\* none")
  set(expect_rc 0)
else()
  message(FATAL_ERROR "${ENTRY} gives neither an exit code nor 'Code: none'")
endif()
if(NOT rest MATCHES "\n- \\*\\*Key words:\\*\\* ([^\n]*)")
  message(FATAL_ERROR "${ENTRY} has no key words")
endif()
string(REGEX MATCHALL "`[^`]*`" words "${CMAKE_MATCH_1}")

# The key words become run_expect's patterns ("|"-separated, as on its command line).
set(PATTERNS "")
foreach(quoted IN LISTS words)
  string(REGEX REPLACE "^`(.*)`$" "\\1" word "${quoted}")
  string(APPEND PATTERNS "${word}|")
endforeach()
set(EXPECT_RC "${expect_rc}")
set(LABEL "${ENTRY}")
include(${CMAKE_CURRENT_LIST_DIR}/../support/run_expect.cmake)
