# cmake/sanitizers.cmake — GSR_SANITIZE=address;undefined builds everything in this tree
# (library, Fortran module, tools, tests, examples) with those sanitizers, and makes ctest
# run them with the options and leak suppressions of tests/sanitize/. GSR_SANITIZE=thread
# builds with ThreadSanitizer instead (scripts/run-tsan.sh; it excludes address and leak),
# with the race suppressions of tests/sanitize/tsan.supp (MPICH and UCX, not gsr).
#
# UB is fatal (-fno-sanitize-recover), so a test that triggers it fails instead of printing
# a line nobody reads. An installed sanitized libgsr needs the sanitizer runtime linked into
# the program, so gsr::gsr carries the link flags to consumers of the CMake package.
set(GSR_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address;undefined (empty: none)")

set(gsr_known_sanitizers address undefined leak thread)
foreach(sanitizer IN LISTS GSR_SANITIZE)
  if(NOT sanitizer IN_LIST gsr_known_sanitizers)
    message(FATAL_ERROR "GSR_SANITIZE: unknown sanitizer '${sanitizer}' (known: ${gsr_known_sanitizers})")
  endif()
endforeach()

if("thread" IN_LIST GSR_SANITIZE AND ("address" IN_LIST GSR_SANITIZE OR "leak" IN_LIST GSR_SANITIZE))
  message(FATAL_ERROR "GSR_SANITIZE: thread cannot be combined with address or leak")
endif()

if(GSR_SANITIZE)
  list(JOIN GSR_SANITIZE "," gsr_sanitizers)
  set(GSR_SANITIZER_FLAGS -fsanitize=${gsr_sanitizers} -fno-sanitize-recover=all)
  add_compile_options(${GSR_SANITIZER_FLAGS} -fno-omit-frame-pointer)
  add_link_options(${GSR_SANITIZER_FLAGS})
  message(STATUS "gsr: building with -fsanitize=${gsr_sanitizers}")
endif()

# Called once the gsr target exists.
function(gsr_sanitize_exported_targets)
  if(GSR_SANITIZE)
    target_link_options(gsr INTERFACE ${GSR_SANITIZER_FLAGS})
  endif()
endfunction()

# ctest reads this file before running the tests of this build; every test (and mpiexec's
# ranks) inherits the environment set here. The install tests build their consumers with
# LDFLAGS/CFLAGS/FFLAGS, so the consumer programs load the sanitizer runtime first.
function(gsr_sanitize_test_environment)
  if(NOT GSR_SANITIZE)
    return()
  endif()
  set(suppressions ${PROJECT_SOURCE_DIR}/tests/sanitize)
  list(JOIN GSR_SANITIZER_FLAGS " " flags)
  set(script ${PROJECT_BINARY_DIR}/gsr-sanitizer-env.cmake)
  file(WRITE ${script}
    "# Written by cmake/sanitizers.cmake: the sanitizer environment of every test.\n"
    "set(ENV{ASAN_OPTIONS} \"halt_on_error=1:detect_leaks=1\")\n"
    "set(ENV{UBSAN_OPTIONS} \"halt_on_error=1:print_stacktrace=1\")\n"
    "set(ENV{LSAN_OPTIONS} \"suppressions=${suppressions}/lsan.supp:print_suppressions=0\")\n"
    "set(ENV{TSAN_OPTIONS} \"halt_on_error=1:second_deadlock_stack=1:suppressions=${suppressions}/tsan.supp\")\n"
    # UCX (MPICH's transport) patches mmap and friends by default, under TSan's own hooks:
    # the process then crashes at MPI_Init. Without the patching UCX works as usual.
    "set(ENV{UCX_MEM_MMAP_HOOK_MODE} \"none\")\n"
    # hwloc's plugins (libhwloc-plugins, which Open MPI's packages bring in) leak at MPI_Init
    # and are unloaded before the leak check, leaving stacks no suppression can name; MPI
    # needs none of them to run the tests.
    "set(ENV{HWLOC_PLUGINS_PATH} \"${PROJECT_BINARY_DIR}/no-hwloc-plugins\")\n"
    "set(ENV{CFLAGS} \"${flags}\")\n"
    "set(ENV{CXXFLAGS} \"${flags}\")\n"
    "set(ENV{FFLAGS} \"${flags}\")\n"
    "set(ENV{LDFLAGS} \"${flags}\")\n")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
