# Installation: headers, the shared library, a CMake package (find_package(gsr CONFIG)
# giving gsr::gsr) and a pkg-config file gsr.pc.
include(CMakePackageConfigHelpers)

install(TARGETS gsr EXPORT gsrTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gsr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(GSR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gsr)
install(EXPORT gsrTargets NAMESPACE gsr:: DESTINATION ${GSR_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gsrConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gsrConfig.cmake
                              INSTALL_DESTINATION ${GSR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gsrConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gsrConfig.cmake ${PROJECT_BINARY_DIR}/gsrConfigVersion.cmake
        DESTINATION ${GSR_CMAKE_DIR})

# The .pc file finds its prefix relative to itself, so `cmake --install --prefix P` works.
file(RELATIVE_PATH GSR_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" GSR_PC_TO_PREFIX "${GSR_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gsr.pc.in ${PROJECT_BINARY_DIR}/gsr.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gsr.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
