# Install rules and the CMake package. `cmake --install build --prefix P`:
#   P/bin/gdr-*                        the tools this build has
#   P/include/gdr/*.h                  the user-facing headers (runtime, jit)
#   P/lib/libgdr_*.a                   the runtime, and the JIT with the
#                                      internal libraries it links
#   P/lib/cmake/gdr/gdrConfig.cmake    find_package(gdr CONFIG): gdr::runtime,
#                                      gdr::jit, gdr::gdr-compile, ...
#   P/lib/pkgconfig/gdr.pc             the runtime, for pkg-config
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GDR_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gdr)

# Only what a program includes: the runtime's API (runtime.h includes
# thread_pool.h) and the JIT's. The compiler's own headers stay internal.
install(FILES
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/runtime.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/status.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/tensors.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/kernel_abi.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/kernel_info.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/loader.h
  ${PROJECT_SOURCE_DIR}/runtime/include/gdr/thread_pool.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gdr)

set(gdr_runtime_export gdr_runtime)
if(TARGET gdr_halide_abi)
  install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/gdr/halide_chunked_abi.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gdr)
  list(APPEND gdr_runtime_export gdr_halide_abi)
endif()
install(TARGETS ${gdr_runtime_export} EXPORT gdrRuntimeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT gdrRuntimeTargets NAMESPACE gdr:: DESTINATION ${GDR_CMAKE_INSTALL_DIR})

if(GDR_BUILD_COMPILER)
  install(FILES ${PROJECT_SOURCE_DIR}/jit/include/gdr/jit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gdr)
  # gdr::jit is static: every library it links, PRIVATE or not, is part of
  # its link line, so each must be in the export set. Their headers are not
  # installed (their include folders are $<BUILD_INTERFACE:...>). An
  # internal library added to gdr_compiler later goes in this list too;
  # install(EXPORT) names any that is missing.
  set(gdr_jit_export gdr_jit gdr_compiler gdr_dialect gdr_schedules)
  if(TARGET gdr_support)
    list(APPEND gdr_jit_export gdr_support)
  endif()
  install(TARGETS ${gdr_jit_export} EXPORT gdrJitTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT gdrJitTargets NAMESPACE gdr:: DESTINATION ${GDR_CMAKE_INSTALL_DIR})
endif()

if(GDR_BUILD_TOOLS)
  # Installed tools find LLVM's and Halide's shared libraries where the
  # build did (/usr/lib/llvm-14/lib is not on the loader's default path).
  set_target_properties(${GDR_TOOLS} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS ${GDR_TOOLS} EXPORT gdrToolTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT gdrToolTargets NAMESPACE gdr:: DESTINATION ${GDR_CMAKE_INSTALL_DIR})
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gdrConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gdrConfig.cmake INSTALL_DESTINATION ${GDR_CMAKE_INSTALL_DIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gdrConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gdrConfig.cmake ${PROJECT_BINARY_DIR}/gdrConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/gdrKernelLibrary.cmake DESTINATION ${GDR_CMAKE_INSTALL_DIR})

# gdr.pc locates the prefix from its own folder, so the install can move.
file(RELATIVE_PATH GDR_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" GDR_PC_TO_PREFIX "${GDR_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gdr.pc.in ${PROJECT_BINARY_DIR}/gdr.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gdr.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
