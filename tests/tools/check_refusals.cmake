# check_refusals.cmake — command lines the tools must refuse (issue 27): each run must end
# with the expected exit code on every rank, say what is wrong (the option and the value),
# leave the files it was given untouched and write nothing it was asked to. One script runs
# them all, so the cases cost a few process starts rather than a ctest test each.
#   cmake -DGROUP=serial -DMESH=gsr-mesh -DMODEL=gsr-model -DDIR=work -P check_refusals.cmake
#   cmake -DGROUP=mpi -DBENCH=gsr-bench -DCHECK=gsr-check -DMPIEXEC=mpiexec -DNP_FLAG=-n
#         -DMESHES=meshes -DDIR=work -P check_refusals.cmake
# Errors: E-TOOL-OUTPUT-CLASH, E-TOOL-OUTPUT-UNWRITABLE, E-TOOL-MESH-TOO-LARGE,
# E-TOOL-MODEL-BOUNDS, E-TOOL-MACHINE-FILE, E-SETUP-GSR-MACHINE (docs/errors.md).
cmake_minimum_required(VERSION 3.25)
if(NOT CASE_TIMEOUT)
  set(CASE_TIMEOUT 60)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/../support/scratch.cmake)
gsr_clear_scratch("${DIR}")
set(failures "")

# Machine files: one good, two with a "format" of the wrong JSON type, and a folder.
file(WRITE ${DIR}/machine.json
     "{\"format\": \"gsr-machine\", \"alpha_seconds\": 1e-6, \"beta_seconds_per_byte\": 1e-9}\n")
file(WRITE ${DIR}/format_number.json "{\"format\": 1, \"alpha_seconds\": 1e-6, \"beta_seconds_per_byte\": 1e-9}\n")
file(WRITE ${DIR}/format_null.json "{\"format\": null}\n")
file(WRITE ${DIR}/alpha_string.json "{\"format\": \"gsr-machine\", \"alpha_seconds\": \"fast\"}\n")
file(MAKE_DIRECTORY ${DIR}/machine_folder.json)

# refuse(<name> RC <code|nonzero> [RANKS_RC <code>] [PATTERNS ...] [ABSENT_PATTERNS ...]
#        [UNTOUCHED files] [ABSENT files] [ENV NAME=value] COMMAND ...)
# RANKS_RC: the command is run under mpiexec through each_rank.sh, which prints the rank's
# exit code and then exits 0, and every rank's code must be this; RC is then not looked at
# (Open MPI's mpiexec kills the other ranks as soon as one exits non-zero, before they could
# print theirs).
function(refuse name)
  cmake_parse_arguments(R "" "RC;RANKS_RC" "PATTERNS;ABSENT_PATTERNS;UNTOUCHED;ABSENT;ENV;COMMAND" ${ARGN})
  foreach(f IN LISTS R_UNTOUCHED)
    if(NOT EXISTS ${f})
      file(WRITE ${f} "keep me: ${name}\n")
    endif()
    file(SHA256 ${f} before_${f})
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${R_ENV} ${R_COMMAND}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${CASE_TIMEOUT})
  set(all "${out}${err}")
  set(problems "")
  if(NOT rc MATCHES "^[0-9]+$")
    list(APPEND problems "did not exit normally: ${rc}")
  elseif(DEFINED R_RANKS_RC)
    # each_rank.sh exits 0; the ranks' own codes are checked below.
  elseif(R_RC STREQUAL "nonzero")
    if(rc EQUAL 0)
      list(APPEND problems "exit code 0, expected non-zero")
    endif()
  elseif(NOT rc EQUAL R_RC)
    list(APPEND problems "exit code ${rc}, expected ${R_RC}")
  endif()
  if(DEFINED R_RANKS_RC)
    string(REGEX MATCHALL "rank-exit-code=[0-9]+" codes "${all}")
    list(LENGTH codes count)
    list(REMOVE_DUPLICATES codes)
    if(NOT count EQUAL 2 OR NOT codes STREQUAL "rank-exit-code=${R_RANKS_RC}")
      list(APPEND problems "the ranks' exit codes are [${codes}] (${count} ranks), expected ${R_RANKS_RC} on both")
    endif()
  endif()
  foreach(pattern IN LISTS R_PATTERNS)
    string(FIND "${all}" "${pattern}" where)
    if(where EQUAL -1)
      list(APPEND problems "the output does not contain: ${pattern}")
    endif()
  endforeach()
  foreach(pattern IN LISTS R_ABSENT_PATTERNS)
    string(FIND "${all}" "${pattern}" where)
    if(NOT where EQUAL -1)
      list(APPEND problems "the output contains: ${pattern}")
    endif()
  endforeach()
  foreach(f IN LISTS R_UNTOUCHED)
    if(NOT EXISTS ${f})
      list(APPEND problems "${f} was removed")
    else()
      file(SHA256 ${f} after)
      if(NOT after STREQUAL before_${f})
        list(APPEND problems "${f} was changed")
      endif()
    endif()
  endforeach()
  foreach(f IN LISTS R_ABSENT)
    if(EXISTS ${f})
      list(APPEND problems "${f} was written")
    endif()
  endforeach()
  if(problems)
    string(REPLACE ";" "\n  " problems "${problems}")
    message("FAILED ${name}:\n  ${problems}\n--- exit code ${rc}; output ---\n${all}---")
    set(failures "${failures} ${name}" PARENT_SCOPE)
  else()
    message("ok ${name}")
  endif()
endfunction()

if(GROUP STREQUAL "serial")
  # ---- gsr-mesh: its own files, and what the format holds ---------------------------------
  refuse(mesh_output_is_its_sidecar RC 1 UNTOUCHED ${DIR}/mesh.xmf
         PATTERNS "gsr-mesh: error: its XDMF sidecar '${DIR}/mesh.xmf' is the same file as -o '${DIR}/mesh.xmf'"
         COMMAND ${MESH} box --dim 2 --elements 2,2 --order 2 -o ${DIR}/mesh.xmf)
  refuse(mesh_two_element_output_is_its_sidecar RC 1 UNTOUCHED ${DIR}/two.xmf
         PATTERNS "gsr-mesh: error: its XDMF sidecar '${DIR}/./two.xmf' is the same file as -o"
         COMMAND ${MESH} two-element -o ${DIR}/./two.xmf)
  file(MAKE_DIRECTORY ${DIR}/folder.xmf)
  refuse(mesh_sidecar_is_a_folder RC 1 ABSENT ${DIR}/folder.h5
         PATTERNS "its XDMF sidecar '${DIR}/folder.xmf' is a folder"
         COMMAND ${MESH} two-element -o ${DIR}/folder.h5)
  refuse(mesh_output_folder_missing RC 1 ABSENT ${DIR}/missing
         PATTERNS "-o '${DIR}/missing/x.h5': its folder '${DIR}/missing' does not exist"
         COMMAND ${MESH} two-element -o ${DIR}/missing/x.h5)
  refuse(mesh_elements_overflow RC 1 ABSENT ${DIR}/big.h5
         PATTERNS "--elements 2305843009213693953,8 at order 1 makes 1.84e+19 elements"
                  "more than the mesh format's 64-bit ids and indices hold"
         COMMAND ${MESH} box --dim 2 --elements 2305843009213693953,8 --order 1 -o ${DIR}/big.h5)
  refuse(mesh_entries_overflow RC 1 ABSENT ${DIR}/big.h5
         PATTERNS "--elements 2147483648,2147483648 at order 1 makes 1.84e+19 entries (ids of /mesh/global_ids)"
         COMMAND ${MESH} box --dim 2 --elements 2147483648,2147483648 --order 1 --no-coordinates -o ${DIR}/big.h5)

  # ---- gsr-model: bounds of the command line ----------------------------------------------
  refuse(model_ranks_sequence_overflow RC nonzero
         PATTERNS "--ranks: '5000000000000000000' is not a rank count (a whole number from 2 to 4194304)"
         COMMAND ${MODEL} --ranks 2,4,...,5000000000000000000)
  refuse(model_ranks_too_many RC nonzero PATTERNS "--ranks: '1073741824' is not a rank count"
         COMMAND ${MODEL} --ranks 1073741824)
  refuse(model_ranks_not_a_number RC nonzero PATTERNS "--ranks: 'abc' is not a rank count"
         COMMAND ${MODEL} --ranks abc)
  refuse(model_ranks_endless_sequence RC nonzero PATTERNS "--ranks: more than 1000 rank counts"
         COMMAND ${MODEL} --ranks 2,3,...,4000000)
  refuse(model_elements_overflow RC nonzero
         PATTERNS "--elements: a box of 1.33e+36 elements (1099511627776 x 1099511627776 x 1099511627776), more than the 2^40"
         COMMAND ${MODEL} --elements 1099511627776,1099511627776,1099511627776 --ranks 2)
  refuse(model_weak_box_too_large RC nonzero
         PATTERNS "--elements-per-rank: at --ranks 2048, a box of 2.2e+12 elements"
         COMMAND ${MODEL} --elements-per-rank 1073741824 --ranks 2,2048)
  refuse(model_alpha_nan RC nonzero PATTERNS "--alpha: 'nan' is not a finite number of seconds > 0"
         COMMAND ${MODEL} --alpha nan --beta nan --ranks 2)
  refuse(model_beta_negative RC nonzero PATTERNS "--beta: '-1' is not a finite number of seconds > 0"
         ABSENT_PATTERNS "179769313486231570"
         COMMAND ${MODEL} --beta -1 --ranks 2)
  refuse(model_periodic_axis_not_in_box RC nonzero PATTERNS "--periodic: axis z is not an axis of a 2-D box (--box 2d)"
         COMMAND ${MODEL} --box 2d --periodic z --ranks 2)

  # ---- gsr-model: its files ---------------------------------------------------------------
  refuse(model_json_and_csv_one_file RC 2 UNTOUCHED ${DIR}/model_out
         PATTERNS "gsr-model: error: --csv '${DIR}/model_out' is the same file as --json '${DIR}/model_out'"
         COMMAND ${MODEL} --ranks 2 --json ${DIR}/model_out --csv ${DIR}/model_out)
  refuse(model_json_over_machine_file RC 2 UNTOUCHED ${DIR}/machine.json
         PATTERNS "--json '${DIR}/./machine.json' is the same file as --machine '${DIR}/machine.json', which this run reads"
         COMMAND ${MODEL} --ranks 2 --machine ${DIR}/machine.json --json ${DIR}/./machine.json)
  refuse(model_json_folder_missing RC 2 ABSENT ${DIR}/missing
         PATTERNS "--json '${DIR}/missing/m.json': its folder '${DIR}/missing' does not exist"
         COMMAND ${MODEL} --ranks 2 --json ${DIR}/missing/m.json)
  refuse(model_machine_format_number RC 2
         PATTERNS "--machine '${DIR}/format_number.json': is not a gsr machine file (its \"format\" is 1, not \"gsr-machine\")"
         COMMAND ${MODEL} --ranks 2 --machine ${DIR}/format_number.json)
  refuse(model_machine_member_type RC 2 PATTERNS "\"alpha_seconds\" is \"fast\", not a number of seconds > 0"
         COMMAND ${MODEL} --ranks 2 --machine ${DIR}/alpha_string.json)
elseif(GROUP STREQUAL "mpi")
  # Each rank runs the program under sh, prints its own exit code and exits 0, so that
  # mpiexec lets every rank finish (see refuse()).
  file(WRITE ${DIR}/each_rank.sh [=["$@"
code=$?
echo "rank-exit-code=$code"
exit 0
]=])
  set(ranks ${MPIEXEC} ${NP_FLAG} 2 sh ${DIR}/each_rank.sh)
  set(tiny --elements 1 --order 2 --repeats 1 --calls 1)
  # ---- gsr-bench: its files, checked on every rank before anything is measured --------------
  refuse(bench_calibrate_and_json_one_file RC 2 RANKS_RC 2 UNTOUCHED ${DIR}/bench_machine.json
         PATTERNS "gsr-bench: error: --json '${DIR}/bench_machine.json' is the same file as --calibrate"
         COMMAND ${ranks} ${BENCH} ${tiny} --calibrate ${DIR}/bench_machine.json --json ${DIR}/bench_machine.json)
  refuse(bench_json_and_csv_one_file RC 2 RANKS_RC 2 UNTOUCHED ${DIR}/bench_out
         PATTERNS "--csv '${DIR}/./bench_out' is the same file as --json '${DIR}/bench_out'"
         COMMAND ${ranks} ${BENCH} ${tiny} --json ${DIR}/bench_out --csv ${DIR}/./bench_out)
  refuse(bench_json_over_gsr_machine RC 2 RANKS_RC 2 UNTOUCHED ${DIR}/machine.json
         ENV GSR_MACHINE=${DIR}/machine.json
         PATTERNS "--json '${DIR}/machine.json' is the same file as GSR_MACHINE '${DIR}/machine.json'"
         COMMAND ${ranks} ${BENCH} ${tiny} --json ${DIR}/machine.json)
  refuse(bench_json_folder_missing RC 2 RANKS_RC 2 ABSENT ${DIR}/missing
         PATTERNS "--json '${DIR}/missing/b.json': its folder '${DIR}/missing' does not exist"
         ABSENT_PATTERNS "bounds, us per call"
         COMMAND ${ranks} ${BENCH} ${tiny} --json ${DIR}/missing/b.json)
  refuse(bench_json_is_a_folder RC 2 RANKS_RC 2
         PATTERNS "--json '${DIR}' is a folder, not a file" ABSENT_PATTERNS "bounds, us per call"
         COMMAND ${ranks} ${BENCH} ${tiny} --json ${DIR})
  # ---- machine files: every JSON type checked, the file named as it was given ---------------
  refuse(bench_machine_format_number RC 2 RANKS_RC 2
         PATTERNS "gsr-bench: error: gsr: --machine '${DIR}/format_number.json': is not a gsr machine file (its \"format\" is 1"
         COMMAND ${ranks} ${BENCH} ${tiny} --machine ${DIR}/format_number.json)
  refuse(bench_machine_folder RC 2 RANKS_RC 2 PATTERNS "--machine '${DIR}/machine_folder.json': is a folder, not a file"
         COMMAND ${ranks} ${BENCH} ${tiny} --machine ${DIR}/machine_folder.json)
  refuse(bench_gsr_machine_format_null RC 2 RANKS_RC 2 ENV GSR_MACHINE=${DIR}/format_null.json
         PATTERNS "GSR_MACHINE='${DIR}/format_null.json': is not a gsr machine file (its \"format\" is null"
         COMMAND ${ranks} ${BENCH} ${tiny})
  # gs_setup (auto reads GSR_MACHINE): E-SETUP-GSR-MACHINE, not an internal error.
  refuse(check_gsr_machine_format_number RC 1 RANKS_RC 1 ENV GSR_MACHINE=${DIR}/format_number.json
         PATTERNS "GSR_MACHINE='${DIR}/format_number.json': is not a gsr machine file (its \"format\" is 1"
                  "(write one with gsr-bench --calibrate; docs/scaling.md)"
         COMMAND ${ranks} ${CHECK} ${MESHES}/two_element.h5)
else()
  message(FATAL_ERROR "GROUP must be serial or mpi")
endif()

if(failures)
  message(FATAL_ERROR "refusals that did not hold:${failures}")
endif()
