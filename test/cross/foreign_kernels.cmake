# cmake -DSOURCE_DIR=<gdr source> -DWORK_DIR=<folder> -DGDR_COMPILE=<gdr-compile>
#       -DFOREIGN_TARGET=aarch64|x86-64-v3|x86-64-v2 [-DCXX=<compiler> -DC=<compiler>] -P foreign_kernels.cmake
# Kernels for another machine, run: gdr-compile writes them for TARGET, the
# program in project/ links them with gdr's runtime built for TARGET and
# checks them against float64 there. aarch64: built with Debian's cross
# compiler (cmake/toolchains/aarch64-linux-gnu.cmake), run under qemu-aarch64;
# x86-64-v3: built natively, run here, and its kernels must hold no 512-bit
# register; x86-64-v2 (SSE: 16 registers of 4 floats, which no other test
# runs) likewise, with no 256-bit register either. Without the cross tools (or an AVX2 CPU for x86-64-v3) the test
# prints "gdr-cross: SKIPPED ..." and ctest reports it skipped
# (SKIP_REGULAR_EXPRESSION: `cmake -P` cannot choose its exit code).
include(${SOURCE_DIR}/test/package/steps.cmake)
set(build ${WORK_DIR}/build)
gdr_forget_configuration(${build})

function(skip why)
  message("gdr-cross: SKIPPED ${FOREIGN_TARGET}: ${why}")
  # Nothing else runs.
  set(skipped ON PARENT_SCOPE)
endfunction()

set(skipped OFF)
set(run_prefix "")
if(FOREIGN_TARGET STREQUAL "aarch64")
  set(sysroot /usr/aarch64-linux-gnu)
  find_program(cross_cxx aarch64-linux-gnu-g++)
  find_program(qemu qemu-aarch64)
  if(NOT cross_cxx)
    skip("aarch64-linux-gnu-g++ not found (Debian package g++-aarch64-linux-gnu; tools/scripts/setup.sh installs it)")
  elseif(NOT qemu)
    skip("qemu-aarch64 not found (Debian package qemu-user; tools/scripts/setup.sh installs it)")
  elseif(NOT EXISTS ${sysroot}/lib/ld-linux-aarch64.so.1)
    skip("${sysroot}/lib/ld-linux-aarch64.so.1 not found (Debian package libc6-dev-arm64-cross)")
  endif()
  set(configure -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
      "-DGDR_TARGET_FLAGS=--target aarch64" "-DGDR_LIBRARY_TARGET_FLAGS=--target cortex-a76" -DVECTOR_WIDTH=4)
  set(run_prefix ${qemu} -L ${sysroot})
  set(elf_machine b700)  # EM_AARCH64 = 183, little-endian
elseif(FOREIGN_TARGET STREQUAL "x86-64-v3")
  file(READ /proc/cpuinfo cpuinfo)
  if(NOT cpuinfo MATCHES " avx2" OR NOT cpuinfo MATCHES " fma")
    skip("this CPU has no AVX2 and FMA to run x86-64-v3 code")
  endif()
  set(configure -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C}
      "-DGDR_TARGET_FLAGS=--target x86-64-v3" "-DGDR_LIBRARY_TARGET_FLAGS=--target x86-64-v3" -DVECTOR_WIDTH=8 -DHELPER_TARGET=x86-64-v3)
  set(elf_machine 3e00)  # EM_X86_64 = 62
  set(forbidden_registers zmm)  # in every kernel object: none of these, some of the others
  set(required_registers ymm)
elseif(FOREIGN_TARGET STREQUAL "x86-64-v2")
  file(READ /proc/cpuinfo cpuinfo)
  foreach(flag ssse3 sse4_2 popcnt cx16)
    if(NOT cpuinfo MATCHES " ${flag}")
      skip("this CPU has no ${flag} to run x86-64-v2 code")
    endif()
  endforeach()
  set(configure -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C}
      "-DGDR_TARGET_FLAGS=--target x86-64-v2" "-DGDR_LIBRARY_TARGET_FLAGS=--target x86-64-v2" -DVECTOR_WIDTH=4 -DHELPER_TARGET=x86-64-v2)
  set(elf_machine 3e00)
  set(forbidden_registers "[yz]mm")
  set(required_registers xmm)
else()
  message(FATAL_ERROR "FOREIGN_TARGET: expected aarch64, x86-64-v3 or x86-64-v2, got '${FOREIGN_TARGET}'")
endif()
if(skipped)
  return()
endif()

if(FOREIGN_TARGET STREQUAL "aarch64")
  # gdr's runtime on its own, as a user cross-builds and installs it: the
  # toolchain file, the runtime alone; every installed library is aarch64.
  set(runtime_build ${WORK_DIR}/runtime-build)
  set(runtime_prefix ${WORK_DIR}/runtime-prefix)
  gdr_forget_configuration(${runtime_build})
  file(REMOVE_RECURSE ${runtime_prefix})
  gdr_step("cross-configure the runtime alone" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${runtime_build} -G Ninja
           -DCMAKE_BUILD_TYPE=Release -DGDR_BUILD_COMPILER=OFF -DGDR_BUILD_TESTS=OFF -DGDR_BUILD_TOOLS=OFF
           -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake)
  gdr_step("cross-build the runtime" COMMAND ${CMAKE_COMMAND} --build ${runtime_build})
  gdr_step("install the cross-built runtime" COMMAND ${CMAKE_COMMAND} --install ${runtime_build} --prefix ${runtime_prefix})
  foreach(lib libgdr_runtime.a libgdr_halide_abi.a)
    if(NOT EXISTS ${runtime_prefix}/lib/${lib})
      message(FATAL_ERROR "the cross-built runtime installed no lib/${lib}")
    endif()
    gdr_step("machine of ${lib}" COMMAND /usr/lib/llvm-14/bin/llvm-readelf -h ${runtime_prefix}/lib/${lib}
             OUTPUT_VARIABLE headers)
    string(REGEX MATCHALL "Machine: +[^\n]*" machines "${headers}")
    list(REMOVE_DUPLICATES machines)
    if(NOT machines MATCHES "^Machine: +AArch64$")
      message(FATAL_ERROR "${lib}: ${machines}, expected AArch64 only")
    endif()
  endforeach()
endif()

gdr_step("configure for ${FOREIGN_TARGET}" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/cross/project -B ${build}
         -G Ninja -DCMAKE_BUILD_TYPE=Release -DGDR_SOURCE_DIR=${SOURCE_DIR} -DGDR_COMPILE=${GDR_COMPILE}
         ${configure})
gdr_step("build for ${FOREIGN_TARGET}" COMMAND ${CMAKE_COMMAND} --build ${build})

# The program and every kernel object are the target's ELF files (e_machine).
file(GLOB objects ${build}/kernels/*.o ${build}/helper_*/*.o)
file(GLOB libraries ${build}/libraries/*.so)
foreach(f ${build}/foreign_kernels ${build}/load_kernels ${objects} ${libraries})
  file(READ ${f} machine OFFSET 18 LIMIT 2 HEX)
  if(NOT machine STREQUAL elf_machine)
    message(FATAL_ERROR "${f}: ELF machine ${machine}, expected ${elf_machine} for ${FOREIGN_TARGET}")
  endif()
endforeach()
if(DEFINED forbidden_registers)
  foreach(o ${objects} ${libraries})
    gdr_step("disassemble ${o}" COMMAND /usr/lib/llvm-14/bin/llvm-objdump -d ${o} OUTPUT_VARIABLE listing)
    if(listing MATCHES "${forbidden_registers}")
      message(FATAL_ERROR "${o} (${FOREIGN_TARGET}) uses registers wider than its vectors (${forbidden_registers})")
    endif()
    if(NOT listing MATCHES "${required_registers}")
      message(FATAL_ERROR "${o} (${FOREIGN_TARGET}) uses none of its vector registers (${required_registers})")
    endif()
  endforeach()
endif()
gdr_step("run on ${FOREIGN_TARGET}" COMMAND ${run_prefix} ${build}/foreign_kernels EXPECT "foreign kernels: ok\n"
         OUTPUT_VARIABLE out)
message("${out}")

# The libraries through gdr::load_kernel (both routes, each .so with what it
# needs inside), on a CPU that has their features.
file(READ ${build}/libraries.txt library_args)
gdr_step("load and run the libraries on ${FOREIGN_TARGET}" COMMAND ${run_prefix} ${build}/load_kernels ${library_args}
         EXPECT "loaded kernels: ok\n" OUTPUT_VARIABLE out)
message("${out}")
if(FOREIGN_TARGET STREQUAL "aarch64")
  # A Cortex-A53 (ARMv8.0) lacks the dot product the cortex-a76 libraries may
  # use: the loader refuses them, naming the file and the feature.
  execute_process(COMMAND ${qemu} -cpu cortex-a53 -L ${sysroot} ${build}/load_kernels ${library_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 3 OR NOT out MATCHES "refused: [^\n]*/recurrent.so: kernel '[^']*' needs the CPU feature dotprod, which this CPU lacks")
    message(FATAL_ERROR "load_kernels on a cortex-a53: exit ${rc}, expected 3 and a refusal naming dotprod:\n${out}${err}")
  endif()
  message(STATUS "cortex-a76 libraries refused on a cortex-a53: ${out}")
endif()
