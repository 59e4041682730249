# Cross builds for 64-bit ARM Linux with Debian 12's cross compiler
# (g++-aarch64-linux-gnu, whose libc is in /usr/aarch64-linux-gnu):
#   cmake -G Ninja -S . -B build-aarch64 -DGDR_BUILD_COMPILER=OFF -DGDR_BUILD_TESTS=OFF \
#         -DGDR_BUILD_TOOLS=OFF -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# builds the runtime (and gdr::halide_abi) for aarch64. Programs built this
# way run here under qemu-user: qemu-aarch64 -L /usr/aarch64-linux-gnu PROGRAM.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(GDR_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${GDR_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${GDR_CROSS_TRIPLE}-g++)
# Libraries, headers and packages come from the target's root only; programs
# (cmake, ninja, gdr-compile) from this machine.
set(CMAKE_FIND_ROOT_PATH /usr/${GDR_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# add_test() and try_run() run the target's programs through qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${GDR_CROSS_TRIPLE})
