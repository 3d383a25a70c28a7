# Runs a program under mpiexec and requires each of the regular expressions EXPECT to match
# its standard output plus error, exit status 0, all within TIMEOUT seconds. Lists (ARGS,
# EXPECT) are separated by "@@", which survives add_test's quoting.
#   cmake -DMPIEXEC=... -DNP=2 -DPROGRAM=... -DARGS="a@@b" -DENV="GSR_TIMEOUT=2" \
#         -DEXPECT="re1@@re2" -DTIMEOUT=60 -P expect_output.cmake
string(REPLACE "@@" ";" ARGS "${ARGS}")
string(REPLACE "@@" ";" EXPECT "${EXPECT}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${MPIEXEC} -n ${NP} ${PROGRAM} ${ARGS}
                OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT ${TIMEOUT})
set(all "${output}\n${errors}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} on ${NP} ranks exited with '${status}'\n${all}")
endif()
foreach(pattern IN LISTS EXPECT)
  if(NOT all MATCHES "${pattern}")
    message(FATAL_ERROR "${PROGRAM} ${ARGS}: nothing matches '${pattern}' in\n${all}")
  endif()
endforeach()
message(STATUS "every expected line found in\n${all}")
