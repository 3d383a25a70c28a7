# Installation: headers, the shared libraries, a CMake package (find_package(gsr) giving
# gsr::gsr and gsr::gsr_fortran; its component io gives gsr::io and gsr::io_fortran) and
# pkg-config files (gsr.pc, gsr-io.pc; fortran/ adds the Fortran ones), recording which MPI
# gsr was built with. docs/installing.md shows each way of consuming them.
include(CMakePackageConfigHelpers)

# gsr_install_library(<target> <export set> [Fortran module files...]): one of gsr's
# libraries into the install tree (and the package's export set), its modules beside the
# headers. fortran/ uses it too.
function(gsr_install_library target export)
  install(TARGETS ${target} EXPORT ${export}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(ARGN)
    install(FILES ${ARGN} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gsr)
  endif()
endfunction()

gsr_install_library(gsr gsrTargets)
# Mesh I/O (gsr_io, and the Fortran module's gsr_io_fortran) is the package's component io,
# an export set of its own that gsrConfig.cmake loads only when asked for; without HDF5 it
# is not built, and mesh.h and mesh.hpp are not installed.
if(GSR_WITH_HDF5)
  gsr_install_library(gsr_io gsrIoTargets)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gsr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
else()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gsr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          PATTERN mesh.h EXCLUDE PATTERN mesh.hpp EXCLUDE)
endif()

# The MPI this build uses, as the installed package reports it and checks it against the
# consumer's: the first line of MPI_Get_library_version (e.g. "MPICH Version: 4.0.2",
# "Open MPI v4.1.4, ...") and the compiler wrappers.
string(REGEX REPLACE "[\r\n].*" "" GSR_MPI_LIBRARY_VERSION "${MPI_C_LIBRARY_VERSION_STRING}")
string(REGEX REPLACE "[ \t]+" " " GSR_MPI_LIBRARY_VERSION "${GSR_MPI_LIBRARY_VERSION}")
string(STRIP "${GSR_MPI_LIBRARY_VERSION}" GSR_MPI_LIBRARY_VERSION)
if(GSR_MPI_LIBRARY_VERSION STREQUAL "" OR GSR_MPI_LIBRARY_VERSION STREQUAL "NOTFOUND")
  message(WARNING "MPI_Get_library_version could not be run at configure time (cross-compiling?): "
                  "the installed gsr cannot warn consumers who find another MPI implementation")
  set(GSR_MPI_LIBRARY_VERSION "")
endif()

set(GSR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gsr)
install(EXPORT gsrTargets NAMESPACE gsr:: DESTINATION ${GSR_CMAKE_DIR})
if(GSR_WITH_HDF5)
  install(EXPORT gsrIoTargets NAMESPACE gsr:: DESTINATION ${GSR_CMAKE_DIR})
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gsrConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gsrConfig.cmake
                              INSTALL_DESTINATION ${GSR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gsrConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gsrConfig.cmake ${PROJECT_BINARY_DIR}/gsrConfigVersion.cmake
        DESTINATION ${GSR_CMAKE_DIR})

# gsr.pc requires the pkg-config module of the MPI found above: the first of the usual
# modules whose -I directories hold the same mpi.h as the build's. Without one, gsr.pc
# carries the MPI flags itself.
function(gsr_pc_mpi_flags)
  set(build_mpi_h "")
  foreach(dir IN LISTS MPI_C_HEADER_DIR MPI_C_INCLUDE_DIRS)
    if(EXISTS ${dir}/mpi.h)
      file(REAL_PATH ${dir}/mpi.h build_mpi_h)
      break()
    endif()
  endforeach()
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND AND build_mpi_h)
    foreach(module mpich ompi-c mvapich2 impi)
      execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --cflags-only-I ${module}
                      OUTPUT_VARIABLE cflags RESULT_VARIABLE failed ERROR_QUIET
                      OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(failed)
        continue()
      endif()
      separate_arguments(cflags UNIX_COMMAND "${cflags}")
      foreach(flag IN LISTS cflags)
        string(REGEX REPLACE "^-I" "" dir "${flag}")
        if(EXISTS ${dir}/mpi.h)
          file(REAL_PATH ${dir}/mpi.h module_mpi_h)
          if(module_mpi_h STREQUAL build_mpi_h)
            set(GSR_PC_MPI_REQUIRES ${module} PARENT_SCOPE)
            return()
          endif()
        endif()
      endforeach()
    endforeach()
  endif()
  set(cflags "")
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND cflags " -I${dir}")
  endforeach()
  set(libs "")
  foreach(library IN LISTS MPI_C_LIBRARIES)
    get_filename_component(dir ${library} DIRECTORY)
    get_filename_component(name ${library} NAME_WE)
    string(REGEX REPLACE "^lib" "" name "${name}")
    string(APPEND libs " -L${dir} -l${name}")
  endforeach()
  set(GSR_PC_MPI_REQUIRES "" PARENT_SCOPE)
  set(GSR_PC_MPI_CFLAGS "${cflags}" PARENT_SCOPE)
  set(GSR_PC_MPI_LIBS "${libs}" PARENT_SCOPE)
  message(STATUS "gsr.pc: no pkg-config module of this MPI found; writing its flags into gsr.pc")
endfunction()
gsr_pc_mpi_flags()

# The .pc file finds its prefix relative to itself, so `cmake --install --prefix P` works.
file(RELATIVE_PATH GSR_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" GSR_PC_TO_PREFIX "${GSR_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gsr.pc.in ${PROJECT_BINARY_DIR}/gsr.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gsr.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(GSR_WITH_HDF5)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/gsr-io.pc.in ${PROJECT_BINARY_DIR}/gsr-io.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/gsr-io.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
