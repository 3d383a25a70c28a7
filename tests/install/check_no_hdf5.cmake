# check_no_hdf5.cmake — the gather-scatter library needs only MPI. Run as
#   cmake -DPREFIX=<install prefix> -DLIBDIR=lib -DREADELF=readelf -DPKG_CONFIG=pkg-config
#         -DWITH_IO=ON|OFF -DCONSUMER=<build folder of a target linking gsr::gsr alone>
#         -DBUILD=<gsr's build folder> -P check_no_hdf5.cmake
# Fails when libgsr or libgsr_fortran needs an HDF5 library, when libgsr_io (WITH_IO) does
# not (then the inspection itself is broken), or when the consumer's flags or gsr.pc's
# mention HDF5. Paths under BUILD are left out of the flags looked at: a build folder may be
# named after HDF5 (build-nohdf5).
cmake_minimum_required(VERSION 3.25)
set(problems "")

function(needed_libraries library out)
  execute_process(COMMAND ${READELF} -d ${library} OUTPUT_VARIABLE dynamic RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "check_no_hdf5: ${READELF} -d ${library} failed")
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
  set(${out} "${needed}" PARENT_SCOPE)
endfunction()

foreach(name gsr gsr_fortran)
  set(library ${PREFIX}/${LIBDIR}/lib${name}.so)
  if(NOT EXISTS ${library})
    string(APPEND problems "  ${library} is not installed\n")
    continue()
  endif()
  needed_libraries(${library} needed)
  if(needed MATCHES "[Hh][Dd][Ff]5")
    string(APPEND problems "  lib${name}.so needs HDF5: ${needed}\n")
  endif()
endforeach()
if(WITH_IO)
  needed_libraries(${PREFIX}/${LIBDIR}/libgsr_io.so needed)
  if(NOT needed MATCHES "[Hh][Dd][Ff]5")
    string(APPEND problems "  libgsr_io.so lists no HDF5 library, so this check cannot see one: ${needed}\n")
  endif()
endif()

file(GLOB flag_files ${CONSUMER}/flags.make ${CONSUMER}/link.txt ${CONSUMER}/../../build.ninja)
if(NOT flag_files)
  string(APPEND problems "  no compile or link flags found under ${CONSUMER}\n")
endif()
foreach(file IN LISTS flag_files)
  file(STRINGS ${file} lines)
  string(REPLACE "${BUILD}" "<build>" lines "${lines}")
  string(REGEX MATCHALL "[^;]*[Hh][Dd][Ff]5[^;]*" lines "${lines}")
  if(lines)
    string(APPEND problems "  ${file} mentions HDF5: ${lines}\n")
  endif()
endforeach()

set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
foreach(module gsr gsr-fortran)
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs ${module} OUTPUT_VARIABLE flags RESULT_VARIABLE failed)
  string(REPLACE "${BUILD}" "<build>" flags "${flags}")
  if(failed)
    string(APPEND problems "  pkg-config --cflags --libs ${module} failed\n")
  elseif(flags MATCHES "[Hh][Dd][Ff]5")
    string(APPEND problems "  pkg-config ${module} hands out HDF5 flags: ${flags}\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "check_no_hdf5: the gather-scatter library is not free of HDF5:\n${problems}")
endif()
message(STATUS "check_no_hdf5: libgsr and libgsr_fortran need no HDF5, and gsr::gsr's consumers see none")
