cmake_minimum_required(VERSION 3.25)
# check_progress.cmake — gsr-check --progress writes its steps on stderr and leaves stdout
# exactly as without it; without --progress (stderr not a terminal) stderr stays empty.
#   cmake -DCHECK=gsr-check -DMPIEXEC=mpiexec -DRANKS=2 -DMESH=file.h5 -P check_progress.cmake
# A fixed method: the automatic choice records timings, which differ from run to run.
set(run ${MPIEXEC} -n ${RANKS} ${CHECK} ${MESH} --json --method pairwise)
execute_process(COMMAND ${run} RESULT_VARIABLE plain_rc OUTPUT_VARIABLE plain_out ERROR_VARIABLE plain_err
                TIMEOUT 60)
execute_process(COMMAND ${run} --progress RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message("--- stderr with --progress ---\n${err}")
if(NOT plain_rc EQUAL 0 OR NOT rc EQUAL 0)
  message(FATAL_ERROR "exit codes ${plain_rc} (plain) and ${rc} (--progress), expected 0 and 0")
endif()
if(NOT plain_err STREQUAL "")
  message(FATAL_ERROR "without --progress and without a terminal, stderr should be empty:\n${plain_err}")
endif()
if(NOT out STREQUAL plain_out)
  message(FATAL_ERROR "--progress changed stdout:\n--- plain ---\n${plain_out}--- with --progress ---\n${out}")
endif()
# One line per step (stderr is a pipe), from 0% to 100%, naming the steps.
foreach(pattern "]   0%  0 / " "reading ${MESH}" "setting up gather-scatter" "comparing method pairwise"
                "] 100%  " " steps  done\n")
  string(FIND "${err}" "${pattern}" where)
  if(where EQUAL -1)
    message(FATAL_ERROR "stderr does not contain: ${pattern}")
  endif()
endforeach()
string(FIND "${err}" "\r" carriage_return)
if(NOT carriage_return EQUAL -1)
  message(FATAL_ERROR "stderr is not a terminal, yet the progress redraws in place (\\r)")
endif()
