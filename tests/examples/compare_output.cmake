# Runs an example under mpiexec and compares its standard output with a file of expected
# lines, typed in from Tables 1-4 of docs/concepts.md.
#   cmake -DMPIEXEC=... -DNP=2 -DPROGRAM=... -DEXPECTED=... -P compare_output.cmake
cmake_policy(SET CMP0007 NEW)
execute_process(COMMAND ${MPIEXEC} -n ${NP} ${PROGRAM}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status
                TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} on ${NP} ranks exited with ${status}\n${output}\n${errors}")
endif()
file(READ ${EXPECTED} expected)
if(NOT output STREQUAL expected)
  string(REPLACE "\n" ";" got_lines "${output}")
  string(REPLACE "\n" ";" want_lines "${expected}")
  list(LENGTH want_lines n)
  set(report "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    list(GET want_lines ${i} want)
    list(LENGTH got_lines have)
    if(i LESS have)
      list(GET got_lines ${i} got)
    else()
      set(got "<missing>")
    endif()
    if(NOT got STREQUAL want)
      string(APPEND report "line ${i}:\n  expected: ${want}\n  got:      ${got}\n")
    endif()
  endforeach()
  message(FATAL_ERROR "output of ${PROGRAM} on ${NP} ranks differs from ${EXPECTED}\n${report}\n"
                      "full output:\n${output}\n${errors}")
endif()
message(STATUS "output matches ${EXPECTED}")
