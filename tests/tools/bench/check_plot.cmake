# check_plot.cmake — runs scripts/plot_bench.py on gsr-bench JSON files and checks that it
# wrote a PNG for each rank count:
#   cmake -DPYTHON=/usr/bin/python3 -DSCRIPT=plot_bench.py -DOUT=dir -DINPUTS="a.json|b.json"
#         -DEXPECT="bench_np1.png|bench_np2.png" -P check_plot.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" inputs "${INPUTS}")
string(REPLACE "|" ";" expect "${EXPECT}")
include(${CMAKE_CURRENT_LIST_DIR}/../../support/scratch.cmake)
gsr_clear_scratch("${OUT}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" --out "${OUT}" ${inputs}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message("exit code: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot_bench.py failed")
endif()
foreach(png IN LISTS expect)
  if(NOT EXISTS "${OUT}/${png}")
    message(FATAL_ERROR "no ${OUT}/${png}")
  endif()
  file(READ "${OUT}/${png}" signature LIMIT 8 HEX)
  if(NOT signature STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${OUT}/${png} is not a PNG (starts ${signature})")
  endif()
endforeach()
