# Finds every dependency from Debian 12's packages and names the package to
# install when one is missing (tools/scripts/setup.sh installs them all).
# Only what the chosen parts need is looked for: the runtime alone
# (GDR_BUILD_COMPILER=OFF, GDR_BUILD_TESTS=OFF) needs a C++ compiler and
# threads, nothing else.
function(gdr_require found package what)
  if(NOT ${found})
    message(FATAL_ERROR "gdr: ${what} not found. Install the Debian package "
      "'${package}' (tools/scripts/setup.sh installs every dependency).")
  endif()
endfunction()

find_package(Threads REQUIRED)
if(GDR_BUILD_TESTS)
  find_package(GTest QUIET)
  gdr_require(GTest_FOUND libgtest-dev "GoogleTest")
endif()

if(GDR_BUILD_COMPILER)
  find_package(LLVM 14 QUIET CONFIG PATHS /usr/lib/llvm-14/lib/cmake/llvm NO_DEFAULT_PATH)
  gdr_require(LLVM_FOUND llvm-14-dev "LLVM 14")
  find_package(MLIR QUIET CONFIG PATHS /usr/lib/llvm-14/lib/cmake/mlir NO_DEFAULT_PATH)
  gdr_require(MLIR_FOUND libmlir-14-dev "MLIR 14")
  find_package(Halide 14 QUIET)
  # Halide's package also looks for PNG and JPEG (its image_io helpers).
  gdr_require(Halide_FOUND "libhalide14-0-dev libpng-dev libjpeg-dev" "Halide 14 (or its PNG/JPEG dependencies)")

  if(NOT MLIR_TABLEGEN_EXE)
    set(MLIR_TABLEGEN_EXE /usr/lib/llvm-14/bin/mlir-tblgen)
  endif()
  list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
  include(TableGen)
  include(AddLLVM)
  include(AddMLIR)
  # LLVM's cmake sets this; we keep our own warnings and RTTI defaults.
  set(LLVM_REQUIRES_RTTI ON)
  add_definitions(${LLVM_DEFINITIONS})

  if(GDR_BUILD_TESTS)
    find_program(GDR_LIT lit.py PATHS /usr/lib/llvm-14/build/utils/lit NO_DEFAULT_PATH)
    find_program(GDR_FILECHECK FileCheck PATHS /usr/lib/llvm-14/bin NO_DEFAULT_PATH)
    gdr_require(GDR_LIT llvm-14-tools "lit (lit.py)")
    gdr_require(GDR_FILECHECK llvm-14-tools "FileCheck")
  endif()

  # Halide 14 loads its autoschedulers as plugins.
  find_file(GDR_ADAMS2019_PLUGIN libautoschedule_adams2019.so
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/halide14 /usr/lib/halide14 NO_DEFAULT_PATH)
  gdr_require(GDR_ADAMS2019_PLUGIN libhalide14-0-dev "Halide's Adams2019 autoscheduler plugin")
endif()

if(GDR_BUILD_PYTHON)
  # FindPython3 (not pybind11's older FindPythonLibs). The interpreter is
  # Python3_EXECUTABLE when given (setup.sh gives Debian's /usr/bin/python3).
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  gdr_require(Python3_FOUND python3-dev "Python 3 with its headers")
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
  gdr_require(pybind11_FOUND pybind11-dev "pybind11")
  # torch, if this interpreter has it with its CMake package: the C++ kernels
  # of torch.ops.gdr (python/CMakeLists.txt).
  # A CUDA or ROCm build of torch (PyPI's default) is left out: its CMake
  # package stops the configure without the CUDA toolkit.
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import torch; print(torch.__version__); print(torch.utils.cmake_prefix_path); print(torch.version.cuda or torch.version.hip or '')"
                  RESULT_VARIABLE gdr_torch_found OUTPUT_VARIABLE gdr_torch_text OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  unset(GDR_TORCH_VERSION)
  if(gdr_torch_found EQUAL 0)
    string(REPLACE "\n" ";" gdr_torch_text "${gdr_torch_text}")
    list(GET gdr_torch_text 0 gdr_torch_version)
    list(GET gdr_torch_text 1 gdr_torch_prefix)
    list(LENGTH gdr_torch_text gdr_torch_lines)
    set(gdr_torch_gpu "")
    if(gdr_torch_lines GREATER 2)
      list(GET gdr_torch_text 2 gdr_torch_gpu)
    endif()
    if(NOT gdr_torch_gpu STREQUAL "")
      message(STATUS "gdr: torch ${gdr_torch_version} is a GPU build (CUDA/ROCm ${gdr_torch_gpu}), whose C++ "
        "package needs that toolkit: torch.ops.gdr runs Python kernels")
    else()
      find_package(Torch CONFIG QUIET PATHS ${gdr_torch_prefix} /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake)
    endif()
    if(Torch_FOUND)
      set(GDR_TORCH_VERSION ${gdr_torch_version})
    elseif(gdr_torch_gpu STREQUAL "")
      message(STATUS "gdr: torch ${gdr_torch_version} without its C++ package: torch.ops.gdr runs Python kernels")
    endif()
  endif()
  if(GDR_BUILD_TESTS)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest, numpy"
                    RESULT_VARIABLE gdr_python_test_modules OUTPUT_QUIET ERROR_QUIET)
    if(NOT gdr_python_test_modules EQUAL 0)
      message(FATAL_ERROR "gdr: ${Python3_EXECUTABLE} cannot import pytest and numpy (the Python tests). "
        "Install the Debian packages 'python3-pytest python3-numpy' and configure with "
        "-DPython3_EXECUTABLE=/usr/bin/python3 (tools/scripts/setup.sh does both), or "
        "-DGDR_BUILD_PYTHON=OFF.")
    endif()
  endif()
endif()
