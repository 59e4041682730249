# cmake -DBUILD_DIR=<gdr build> -DSOURCE_DIR=<gdr source> -DWORK_DIR=<folder>
#       -DC=<compiler> -DCXX=<compiler> -DLINKER_FLAGS=<flags> -DCACHE_DIR=<kernel cache>
#       -P install_and_run_examples.cmake
# Installs the build into WORK_DIR/prefix (afresh), checks what was
# installed, then configures docs/examples/jit and docs/examples/aot against
# it with find_package, builds and runs them (each checks its own results),
# and builds the AOT example once more from gdr.pc with pkg-config.
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${prefix})

gdr_step("install into ${prefix}" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Only the user-facing headers: the compiler's stay in the source tree.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
list(SORT headers)
set(expected gdr/halide_chunked_abi.h gdr/jit.h gdr/kernel_abi.h gdr/kernel_info.h gdr/loader.h gdr/runtime.h gdr/status.h gdr/tensors.h
             gdr/thread_pool.h)
if(NOT headers STREQUAL expected)
  message(FATAL_ERROR "installed headers: ${headers}\nexpected: ${expected}")
endif()
foreach(f lib/cmake/gdr/gdrConfig.cmake lib/cmake/gdr/gdrConfigVersion.cmake
          lib/cmake/gdr/gdrRuntimeTargets.cmake lib/cmake/gdr/gdrJitTargets.cmake
          lib/cmake/gdr/gdrToolTargets.cmake lib/pkgconfig/gdr.pc lib/libgdr_runtime.a
          lib/libgdr_jit.a bin/gdr-compile bin/gdr-run bin/gdr-opt bin/gdr-tune bin/gdr-bench)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()

# gdr::runtime's link interface: threads and libdl, nothing of the compiler.
file(READ ${prefix}/lib/cmake/gdr/gdrRuntimeTargets.cmake runtime_targets)
string(REGEX MATCH "set_target_properties\\(gdr::runtime PROPERTIES[^)]*\\)" runtime_props "${runtime_targets}")
if(NOT runtime_props MATCHES "INTERFACE_LINK_LIBRARIES \"Threads::Threads;dl\"")
  message(FATAL_ERROR "gdr::runtime's interface is not threads and libdl:\n${runtime_props}")
endif()
if(runtime_targets MATCHES "LLVM|MLIR|Halide")
  message(FATAL_ERROR "gdrRuntimeTargets.cmake names LLVM, MLIR or Halide:\n${runtime_targets}")
endif()

# Nothing that goes into the installed libraries is built with -march=native
# (the baselines, which are not installed, are: the check can see it).
foreach(folder runtime jit compiler dialect schedules baselines)
  gdr_compile_commands(${BUILD_DIR} ${SOURCE_DIR}/${folder} commands)
  list(LENGTH commands n)
  if(n EQUAL 0)
    message(FATAL_ERROR "no compile commands for ${folder}/ in ${BUILD_DIR}/compile_commands.json")
  endif()
  foreach(entry IN LISTS commands)
    string(FIND "${entry}" "-march=native" native)
    if(folder STREQUAL "baselines" AND native EQUAL -1)
      message(FATAL_ERROR "baselines/ should be built with -march=native: ${entry}")
    elseif(NOT folder STREQUAL "baselines" AND NOT native EQUAL -1)
      message(FATAL_ERROR "installed code built with -march=native: ${entry}")
    endif()
  endforeach()
endforeach()

# The installed tools run from the prefix and say which build they are.
gdr_step("installed gdr-compile --version" COMMAND ${prefix}/bin/gdr-compile --version
         EXPECT "^gdr-compile [0-9]+\\.[0-9]+\\.[0-9]+\nLLVM 14[.0-9]*, Halide 14[.0-9]*\ncode generator sources [0-9a-f]+ ")

set(examples ${SOURCE_DIR}/docs/examples)
set(configure_flags -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${C} -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
foreach(example jit aot)
  set(build ${WORK_DIR}/${example})
  gdr_forget_configuration(${build})
  gdr_step("configure the ${example} example" COMMAND ${CMAKE_COMMAND} -S ${examples}/${example}
           -B ${build} ${configure_flags})
  gdr_step("build the ${example} example" COMMAND ${CMAKE_COMMAND} --build ${build} -j 2)
endforeach()

# Each example checks itself and exits non-zero on a mismatch; the output
# says what ran. warm_up compiles, the run reuses: one miss and one hit per route.
gdr_step("run the jit example" COMMAND ${WORK_DIR}/jit/jit_example ENV GDR_CACHE_DIR=${CACHE_DIR}
         EXPECT "auto +ran recurrent w[0-9]+-vt[0-9]+-u[0-9]+-p[0-9]+(-t[12])? \\((default|tuned)\\) \\(kernel gdr_recurrent_f32_k32_v48__[^)]*\\): max relative error [^ ]+ against the reference: match\nchunked +ran chunked c[0-9]+-w[0-9]+ .*: match\nkernel caches: in process 2 hits, 2 misses;.*\njit example: ok\n")
gdr_step("run the aot example" COMMAND ${WORK_DIR}/aot/aot_example
         EXPECT "^gdr_recurrent_f32_k32_v48__w8_vt16_u1_p2: max relative error [^ ]+ against float64: match\naot example: ok\n")

# gdr_add_kernel_library: a kernel of each route as a library target, the
# program linked with those and gdr::runtime only, so nothing of LLVM, MLIR
# or Halide may be among its shared libraries; a chunked .so loaded too.
set(build ${WORK_DIR}/kernel-library)
gdr_forget_configuration(${build})
gdr_step("configure the gdr_add_kernel_library project" COMMAND ${CMAKE_COMMAND}
         -S ${SOURCE_DIR}/test/package/kernel_library -B ${build} ${configure_flags} -DGDR_EXAMPLES_DIR=${examples})
gdr_step("build the gdr_add_kernel_library project" COMMAND ${CMAKE_COMMAND} --build ${build} -j 2)
gdr_step("ldd of the gdr_add_kernel_library program" COMMAND ldd ${build}/kernel_library_example
         OUTPUT_VARIABLE ldd_out)
if(ldd_out MATCHES "LLVM|MLIR|Halide|libclang")
  message(FATAL_ERROR "the program links a compiler library:\n${ldd_out}")
endif()
foreach(lib decode prefill prefill_long prefill_readout)
  if(NOT EXISTS ${build}/${lib}/${lib}.a OR NOT EXISTS ${build}/${lib}/${lib}.h)
    message(FATAL_ERROR "gdr_add_kernel_library(${lib}) wrote no ${lib}.a and ${lib}.h in ${build}/${lib}")
  endif()
endforeach()
gdr_step("run the gdr_add_kernel_library program" COMMAND ${build}/kernel_library_example
         EXPECT "decode T=1: [^\n]*match\ndecode T=29: [^\n]*match\nprefill T=40: [^\n]*match\nprefill T=7: [^\n]*match\nprefill_long T=130: [^\n]*match\nprefill_readout T=70: [^\n]*match\nloaded_prefill T=70: [^\n]*match\nkernel libraries: ok\n")

# The AOT example's link line taken from gdr.pc alone.
gdr_step("pkg-config gdr" COMMAND pkg-config --cflags --libs gdr ENV PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
         OUTPUT_VARIABLE pc_flags)
string(STRIP "${pc_flags}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
gdr_step("build the aot example with pkg-config" COMMAND ${CXX} -std=c++17 -O2 ${LINKER_FLAGS}
         -DGDR_KERNEL=gdr_recurrent_f32_k32_v48__w8_vt16_u1_p2 -I${WORK_DIR}/aot/kernel
         ${examples}/aot/main.cpp ${WORK_DIR}/aot/kernel/recurrent.o ${pc_flags}
         -o ${WORK_DIR}/aot_example_pkg_config)
gdr_step("run the pkg-config build" COMMAND ${WORK_DIR}/aot_example_pkg_config EXPECT "aot example: ok\n")

# A plugin: the static runtime linked into a shared library, which needs it
# built as position-independent code. The calls pull in every object of it.
file(WRITE ${WORK_DIR}/plugin.cpp [=[
#include <gdr/loader.h>
#include <gdr/runtime.h>
extern "C" int gdr_plugin_check() {
  gdr::Kernel kernel;
  return gdr::run(gdr::Tensors{}).ok() + gdr::load_kernel("none.so", "f", &kernel).ok();
}
]=])
gdr_step("link the runtime into a shared library" COMMAND ${CXX} -std=c++17 -shared -fPIC ${LINKER_FLAGS}
         ${WORK_DIR}/plugin.cpp ${pc_flags} -o ${WORK_DIR}/libplugin.so)
