# without_hdf5.cmake — gather-scatter needs only MPI: configures this source tree with
# -DGSR_WITH_HDF5=OFF and every find_package(HDF5) disabled (one left behind fails the
# configure), builds libgsr, libgsr_fortran and the threads test (whose mesh-file case is
# left out there), checks that none of them needs an HDF5 library and that gsr_io is not a
# target, and runs the test at P = 2. Unoptimized, to keep the extra build short. Run as
#   cmake -DSOURCE=<gsr source> -DBUILD=<scratch folder> -DGENERATOR=<generator>
#         -DCONFIGURE_ARGS=<a|b|...: compilers and MPI of the parent build> -DREADELF=readelf
#         -DMPIEXEC=<mpiexec> -DNUMPROC_FLAG=-n -DPREFLAGS=<a|b> -P without_hdf5.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" configure_args "${CONFIGURE_ARGS}")
string(REPLACE "|" ";" preflags "${PREFLAGS}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(failed)
    message(FATAL_ERROR "without_hdf5: ${what} failed:\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run("configuring with -DGSR_WITH_HDF5=OFF"
    ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR} --fresh
    -DGSR_WITH_HDF5=OFF -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON -DGSR_BUILD_EXAMPLES=OFF -DGSR_CLIENTS_DIR=
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_Fortran_FLAGS_DEBUG=-O0
    ${configure_args})
run("listing the targets" ${CMAKE_COMMAND} --build ${BUILD} --target help)
if(output MATCHES "gsr_io|gsr-check|gsr-mesh")
  message(FATAL_ERROR "without_hdf5: a target that needs HDF5 is configured without it:\n${output}")
endif()
run("building libgsr, libgsr_fortran and the threads test"
    ${CMAKE_COMMAND} --build ${BUILD} --target gsr gsr_fortran threads -j 2)

foreach(binary src/libgsr.so fortran/libgsr_fortran.so tests/threads/threads)
  run("reading ${binary}" ${READELF} -d ${BUILD}/${binary})
  if(output MATCHES "NEEDED[^\n]*[Hh][Dd][Ff]5")
    message(FATAL_ERROR "without_hdf5: ${binary} needs an HDF5 library:\n${output}")
  endif()
endforeach()
run("the threads test at P = 2" ${MPIEXEC} ${NUMPROC_FLAG} 2 ${preflags} ${BUILD}/tests/threads/threads)
if(output MATCHES "MeshFiles")
  message(FATAL_ERROR "without_hdf5: the threads test ran its mesh-file case without HDF5:\n${output}")
endif()
message(STATUS "without_hdf5: libgsr, libgsr_fortran and the threads test build and pass without HDF5")
