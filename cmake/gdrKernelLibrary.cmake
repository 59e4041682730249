# gdr_add_kernel_library(<name> ROUTE recurrent|chunked K <n> V <n>
#                        [SCHEDULE <text>] [TARGET <target>] [DECAY channel|scalar]
#                        [READOUTS <n>] [GDR_COMPILE <gdr-compile>])
#
# In the spirit of Halide's add_halide_library: runs gdr-compile at build
# time and defines the library target <name> (an imported static library)
# whose consumers get the kernel's header <name>.h and link <name>.a (the
# kernel as `int32_t <name>(const gdr_kernel_args*)` with `<name>_info`, and
# for the chunked route its Halide runtime and gdr's Halide bridge) and
# gdr::runtime, nothing else:
#
#   gdr_add_kernel_library(decode ROUTE recurrent K 128 V 128 SCHEDULE w16-vt64-u1-p2)
#   target_link_libraries(app PRIVATE decode)      # #include "decode.h"; decode_kernel(&k)
#
# SCHEDULE is the route's schedule text (recurrent w16-vt64-u1-p2, chunked
# c16-w16; default: the target's default). DECAY and READOUTS are the
# kernel's form (gdr-compile's --decay and --readouts). TARGET is gdr-compile's --target
# (host, x86-64-v3, aarch64, cortex-a76, ...); default: host, or in a cross
# build (CMAKE_CROSSCOMPILING) for an aarch64 CMAKE_SYSTEM_PROCESSOR,
# aarch64. GDR_COMPILE defaults to the GDR_COMPILE variable, else the
# package's gdr::gdr-compile (COMPONENTS tools), else a build tree's
# gdr-compile target. The files go to ${CMAKE_CURRENT_BINARY_DIR}/<name>/.
function(gdr_add_kernel_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ROUTE;K;V;SCHEDULE;TARGET;DECAY;READOUTS;GDR_COMPILE" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gdr_add_kernel_library(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_ROUTE MATCHES "^(recurrent|chunked)$")
    message(FATAL_ERROR "gdr_add_kernel_library(${name}): ROUTE must be recurrent or chunked, got '${arg_ROUTE}'")
  endif()
  foreach(size K V)
    if(NOT arg_${size} MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "gdr_add_kernel_library(${name}): ${size} must be a positive integer, got '${arg_${size}}'")
    endif()
  endforeach()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "gdr_add_kernel_library(${name}): the name must be a C identifier (it names the kernel)")
  endif()

  set(compile "${arg_GDR_COMPILE}")
  if(NOT compile AND GDR_COMPILE)
    set(compile "${GDR_COMPILE}")
  endif()
  # A command name (gdr-compile on PATH) becomes its path: DEPENDS needs a
  # file. A path (with a slash) or a generator expression stays as given.
  if(compile AND NOT compile MATCHES "/" AND NOT compile MATCHES "^\\$<")
    unset(gdr_compile_program CACHE)  # (find_program's NO_CACHE needs CMake 3.21)
    find_program(gdr_compile_program NAMES "${compile}")
    set(found "${gdr_compile_program}")
    unset(gdr_compile_program CACHE)
    if(NOT found)
      message(FATAL_ERROR "gdr_add_kernel_library(${name}): GDR_COMPILE '${compile}' is neither a path nor a "
                          "command on PATH")
    endif()
    set(compile "${found}")
  endif()
  if(NOT compile)
    if(TARGET gdr::gdr-compile)
      set(compile $<TARGET_FILE:gdr::gdr-compile>)
    elseif(TARGET gdr-compile)
      set(compile $<TARGET_FILE:gdr-compile>)
    else()
      message(FATAL_ERROR "gdr_add_kernel_library(${name}): no gdr-compile: find_package(gdr COMPONENTS tools), "
                          "or with add_subdirectory(gdr) set GDR_BUILD_TOOLS ON before it, or set GDR_COMPILE "
                          "(a path or a command on PATH)")
    endif()
  endif()

  set(target "${arg_TARGET}")
  if(NOT target)
    set(target host)
    if(CMAKE_CROSSCOMPILING)
      if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
        set(target aarch64)
      else()
        message(FATAL_ERROR "gdr_add_kernel_library(${name}): a cross build for ${CMAKE_SYSTEM_PROCESSOR} needs TARGET")
      endif()
    endif()
  endif()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  file(MAKE_DIRECTORY ${dir})
  set(flags --route ${arg_ROUTE} --K ${arg_K} --V ${arg_V} --target ${target} --name ${name} --archive 1)
  if(arg_SCHEDULE)
    list(APPEND flags --schedule ${arg_SCHEDULE})
  endif()
  if(arg_DECAY)
    list(APPEND flags --decay ${arg_DECAY})
  endif()
  if(arg_READOUTS)
    list(APPEND flags --readouts ${arg_READOUTS})
  endif()
  set(depends)
  if(arg_ROUTE STREQUAL "chunked")
    # The bridge for the target's architecture: the one this project has.
    if(TARGET gdr::halide_abi)
      list(APPEND flags --halide-abi $<TARGET_FILE:gdr::halide_abi>)
      list(APPEND depends $<TARGET_FILE:gdr::halide_abi>)
    elseif(CMAKE_CROSSCOMPILING)
      message(FATAL_ERROR "gdr_add_kernel_library(${name}): a chunked kernel in a cross build needs gdr::halide_abi "
                          "built for the target (gdr's runtime with HalideRuntime.h)")
    endif()
  endif()
  add_custom_command(OUTPUT ${dir}/${name}.a ${dir}/${name}.h BYPRODUCTS ${dir}/${name}.o
    COMMAND ${compile} ${flags} --out ${dir}/${name}
    DEPENDS ${compile} ${depends}
    COMMENT "gdr-compile ${name}: ${arg_ROUTE} K=${arg_K} V=${arg_V} ${arg_SCHEDULE} for ${target}"
    VERBATIM)
  add_custom_target(${name}.update DEPENDS ${dir}/${name}.a ${dir}/${name}.h)

  add_library(${name} STATIC IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES IMPORTED_LOCATION ${dir}/${name}.a
                        INTERFACE_INCLUDE_DIRECTORIES ${dir} INTERFACE_LINK_LIBRARIES gdr::runtime)
  add_dependencies(${name} ${name}.update)
endfunction()
