# cmake -DSOURCE_DIR=<gdr source> -DWORK_DIR=<folder> -DCXX=<compiler> -DC=<compiler>
#       -DLINKER_FLAGS=<flags> [-DGDR_COMPILE=<gdr-compile>] [-DCACHE_DIR=<kernel cache>]
#       -P runtime_only_package.cmake
# Configures gdr with the runtime alone (GDR_BUILD_COMPILER=OFF,
# GDR_BUILD_TESTS=OFF) as on a machine with only CMake, Ninja and a C++
# compiler: every optional package is hidden from find_package. Builds and
# installs it, checks that nothing installed is built with -march=native and
# that the package has no JIT, and, given a gdr-compile, builds the AOT
# example against it.
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)
set(build ${WORK_DIR}/build)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${prefix})
gdr_forget_configuration(${build})

set(hidden "")
foreach(package LLVM MLIR Halide HalideHelpers GTest fmt benchmark PNG JPEG ZLIB Python3)
  list(APPEND hidden -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
# Halide's runtime header too (it would add gdr::halide_abi).
list(APPEND hidden -DGDR_HALIDE_RUNTIME_INCLUDE_DIR=GDR_HALIDE_RUNTIME_INCLUDE_DIR-NOTFOUND)
gdr_step("configure the runtime alone" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -G Ninja
         -DCMAKE_BUILD_TYPE=Release -DGDR_BUILD_COMPILER=OFF -DGDR_BUILD_TESTS=OFF ${hidden}
         -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C} "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
gdr_step("build" COMMAND ${CMAKE_COMMAND} --build ${build} -j 2)
gdr_step("install into ${prefix}" COMMAND ${CMAKE_COMMAND} --install ${build} --prefix ${prefix})

# The runtime's compile commands: all twelve sources, none with -march=native.
gdr_compile_commands(${build} ${SOURCE_DIR}/runtime commands)
list(LENGTH commands n)
if(NOT n EQUAL 12)
  message(FATAL_ERROR "expected the runtime's 12 compile commands, found ${n}:\n${commands}")
endif()
foreach(entry IN LISTS commands)
  if(entry MATCHES "-march=native")
    message(FATAL_ERROR "the runtime is built with -march=native: ${entry}")
  endif()
endforeach()
# The baselines (built for the tools, not installed) keep it: the check sees it.
gdr_compile_commands(${build} ${SOURCE_DIR}/baselines baselines)
if(NOT baselines MATCHES "-march=native")
  message(FATAL_ERROR "baselines/ should be built with -march=native:\n${baselines}")
endif()

# A runtime package: headers without jit.h, no JIT targets, the runtime tools.
foreach(f include/gdr/runtime.h include/gdr/loader.h include/gdr/kernel_abi.h
          lib/cmake/gdr/gdrConfig.cmake lib/cmake/gdr/gdrRuntimeTargets.cmake lib/pkgconfig/gdr.pc
          lib/libgdr_runtime.a bin/gdr-run bin/gdr-bench)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
foreach(f include/gdr/jit.h lib/cmake/gdr/gdrJitTargets.cmake lib/libgdr_jit.a bin/gdr-compile)
  if(EXISTS ${prefix}/${f})
    message(FATAL_ERROR "a runtime-only install has ${prefix}/${f}")
  endif()
endforeach()
gdr_step("gdr-run --version" COMMAND ${prefix}/bin/gdr-run --version
         EXPECT "^gdr-run [0-9]+\\.[0-9]+\\.[0-9]+\nruntime only: ")

# Asking this package for the JIT fails, saying why.
set(ask ${WORK_DIR}/ask-for-jit)
file(WRITE ${ask}/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)\nproject(ask LANGUAGES CXX)\n"
     "find_package(gdr CONFIG REQUIRED COMPONENTS jit)\n")
file(REMOVE_RECURSE ${ask}/build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${ask} -B ${ask}/build -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
                -DCMAKE_CXX_COMPILER=${CXX} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \n]+" " " err "${err}")
if(rc EQUAL 0 OR NOT err MATCHES "component 'jit': this gdr was built without the compiler")
  message(FATAL_ERROR "find_package(gdr COMPONENTS jit) on a runtime-only install: ${rc}\n${err}")
endif()
message(STATUS "find_package(gdr COMPONENTS jit) refused: ok")

if(GDR_COMPILE)
  set(example ${WORK_DIR}/aot)
  gdr_forget_configuration(${example})
  gdr_step("configure the aot example against the runtime" COMMAND ${CMAKE_COMMAND}
           -S ${SOURCE_DIR}/docs/examples/aot -B ${example} -G Ninja -DCMAKE_BUILD_TYPE=Release
           -DCMAKE_PREFIX_PATH=${prefix} -DGDR_COMPILE=${GDR_COMPILE} ${hidden}
           -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
  gdr_step("build the aot example" COMMAND ${CMAKE_COMMAND} --build ${example} -j 2)
  gdr_step("run the aot example" COMMAND ${example}/aot_example EXPECT "aot example: ok\n")
endif()
