# build_with_wrappers.cmake — builds the install-test consumers the way a Makefile would:
# MPI's compiler wrappers with gsr's flags, no CMake package. Run with cmake -P and
#   -DROUTE=flags       plain -I/-L/-l flags under PREFIX (wrappers MPICC, MPICXX, MPIFORT)
#   -DROUTE=pkg-config  flags and the wrappers' names from gsr.pc and gsr-fortran.pc
#                       (PKG_CONFIG, with PKG_CONFIG_PATH pointing into PREFIX)
# plus -DPREFIX= -DLIBDIR= -DINCLUDEDIR= (relative to PREFIX) -DSOURCE_DIR= -DOUT=.
# Writes OUT/gslib_consumer_c, OUT/gslib_consumer_cxx, OUT/nek_consumer, OUT/consumer.
cmake_minimum_required(VERSION 3.20)
foreach(var ROUTE PREFIX LIBDIR INCLUDEDIR SOURCE_DIR OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_with_wrappers.cmake: -D${var}= is missing")
  endif()
endforeach()
file(MAKE_DIRECTORY ${OUT})

# Runs one command (a list) in OUT, where the compilers leave their .mod files, failing the
# test with its output if it fails.
function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${OUT}
                  RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " line "${ARGN}")
  if(failed)
    message(FATAL_ERROR "${what} failed (${failed}):\n  ${line}\n${out}")
  endif()
  message(STATUS "${what}: ${line}")
endfunction()

# pkg_config(<out> args...): the output of pkg-config, as a list of arguments.
function(pkg_config out)
  execute_process(COMMAND ${PKG_CONFIG} ${ARGN} RESULT_VARIABLE failed
                  OUTPUT_VARIABLE text ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(failed)
    message(FATAL_ERROR "pkg-config ${ARGN} failed: ${error}")
  endif()
  separate_arguments(text UNIX_COMMAND "${text}")
  set(${out} ${text} PARENT_SCOPE)
endfunction()

set(c_source ${SOURCE_DIR}/c_consumer/gslib_consumer.c)
set(cxx_source ${SOURCE_DIR}/cxx_consumer/gslib_consumer.cpp)
set(nek_source ${SOURCE_DIR}/fortran_consumer/nek_consumer.f)
set(module_source ${SOURCE_DIR}/fortran_consumer/consumer.f90)
# gsr's headers must compile without a warning. The C++ build drops -Werror: the wrappers put
# MPI's headers on a plain -I path, and Open MPI's C++ bindings (which its mpi.h includes in
# C++) warn under -Wextra; the CMake routes, where MPI's headers are system headers, keep it.
set(strict -Wall -Wextra -pedantic -Werror)
set(strict_cxx -Wall -Wextra -pedantic)

if(ROUTE STREQUAL "flags")
  foreach(var MPICC MPICXX MPIFORT)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "build_with_wrappers.cmake: -D${var}= is missing")
    endif()
  endforeach()
  set(include ${PREFIX}/${INCLUDEDIR})
  set(lib ${PREFIX}/${LIBDIR})
  set(gslib_cflags -I${include}/gsr)
  set(c_libs -L${lib} -lgsr)
  set(fortran_cflags -I${include}/gsr)
  set(fortran_libs -L${lib} -lgsr_fortran -lgsr)
  set(rpath -Wl,-rpath,${lib})
elseif(ROUTE STREQUAL "pkg-config")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "build_with_wrappers.cmake: -DPKG_CONFIG= is missing")
  endif()
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
  pkg_config(MPICC --variable=mpicc gsr)
  pkg_config(MPICXX --variable=mpicxx gsr)
  pkg_config(MPIFORT --variable=mpifort gsr)
  pkg_config(c_cflags --cflags gsr)
  pkg_config(gslib_only --variable=gslib_cflags gsr)
  set(gslib_cflags ${c_cflags} ${gslib_only})
  pkg_config(c_libs --libs gsr)
  pkg_config(fortran_cflags --cflags gsr-fortran)
  pkg_config(fortran_libs --libs gsr-fortran)
  pkg_config(rpath --variable=rpath_flags gsr)
else()
  message(FATAL_ERROR "build_with_wrappers.cmake: ROUTE is '${ROUTE}', not flags or pkg-config")
endif()

# CFLAGS, CXXFLAGS, FFLAGS and LDFLAGS from the environment, as make would use them (a
# sanitized build's tests set them so that the consumers load the sanitizer runtime first).
foreach(var CFLAGS CXXFLAGS FFLAGS LDFLAGS)
  separate_arguments(env_${var} UNIX_COMMAND "$ENV{${var}}")
endforeach()

run("C (${MPICC})" ${MPICC} -std=c99 ${strict} ${env_CFLAGS} ${gslib_cflags} ${c_source} ${c_libs} -lm ${rpath}
    ${env_LDFLAGS} -o ${OUT}/gslib_consumer_c)
run("C++ (${MPICXX})" ${MPICXX} -std=c++11 ${strict_cxx} ${env_CXXFLAGS} ${gslib_cflags} ${cxx_source} ${c_libs}
    ${rpath} ${env_LDFLAGS} -o ${OUT}/gslib_consumer_cxx)
# MPI_LIBRARY_DIRS (comma-separated): -L folders for the Fortran links, where Debian's Open
# MPI wrapper would otherwise take -lmpi from the MPI alternatives (docs/installing.md).
set(mpi_link_dirs "")
if(MPI_LIBRARY_DIRS)
  string(REPLACE "," ";" dirs "${MPI_LIBRARY_DIRS}")
  foreach(dir IN LISTS dirs)
    list(APPEND mpi_link_dirs -L${dir})
  endforeach()
endif()
list(PREPEND fortran_libs ${mpi_link_dirs})
run("F77 (${MPIFORT})" ${MPIFORT} ${env_FFLAGS} ${nek_source} ${fortran_libs} ${rpath} ${env_LDFLAGS}
    -o ${OUT}/nek_consumer)
run("Fortran module (${MPIFORT})" ${MPIFORT} ${env_FFLAGS} ${fortran_cflags} ${module_source}
    ${fortran_libs} ${rpath} ${env_LDFLAGS} -o ${OUT}/consumer)
