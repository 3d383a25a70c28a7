# cmake/valgrind.cmake — memcheck tests (label "valgrind"): a unit test program, an MPI
# program at P = 2 and the prefetch test (its look-ahead must stop at the end of the plan's
# array, which only a memory checker sees) run under valgrind, failing on any memory error or any block
# definitely (or indirectly) lost. MPICH's own noise is suppressed by tests/sanitize/valgrind.supp.
# On by default where valgrind is installed; off in sanitized builds (valgrind cannot run
# AddressSanitizer's programs). ctest -LE valgrind skips them.
find_program(GSR_VALGRIND valgrind)
if(GSR_VALGRIND AND NOT GSR_SANITIZE)
  set(gsr_valgrind_default ON)
else()
  set(gsr_valgrind_default OFF)
endif()
option(GSR_VALGRIND_TESTS "Run a unit and an MPI test under valgrind memcheck" ${gsr_valgrind_default})

# gsr_add_valgrind_test(<name> RANKS <P> COMMAND <program> [args...])
function(gsr_add_valgrind_test name)
  cmake_parse_arguments(V "" "RANKS" "COMMAND" ${ARGN})
  set(memcheck ${GSR_VALGRIND} --tool=memcheck --error-exitcode=99 --leak-check=full
      --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --track-fds=no
      --suppressions=${PROJECT_SOURCE_DIR}/tests/sanitize/valgrind.supp)
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${V_RANKS} ${MPIEXEC_PREFLAGS}
                   ${memcheck} ${V_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 PROCESSORS ${V_RANKS}
                       LABELS "valgrind;mpi;np${V_RANKS}")
endfunction()

function(gsr_add_valgrind_tests)
  if(NOT GSR_VALGRIND_TESTS OR NOT GSR_VALGRIND OR GSR_SANITIZE)
    return()
  endif()
  gsr_add_valgrind_test(valgrind_unit_names RANKS 1 COMMAND $<TARGET_FILE:unit_names>)
  gsr_add_valgrind_test(valgrind_capi_setup_free_np2 RANKS 2
                        COMMAND $<TARGET_FILE:capi_setup_free_cycles> 20)
  gsr_add_valgrind_test(valgrind_methods_prefetch RANKS 1
                        COMMAND $<TARGET_FILE:methods_prefetch> --gtest_filter=*pairwise*)
endfunction()
