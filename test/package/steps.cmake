# Helpers of the package tests' scripts (cmake -P): run a step, time it, stop
# the test with the step's output when it fails.

# gdr_step(<name> COMMAND <cmd...> [ENV <VAR=value>...] [EXPECT <regex>] [OUTPUT_VARIABLE <var>])
function(gdr_step name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPECT;OUTPUT_VARIABLE" "COMMAND;ENV")
  string(TIMESTAMP start "%s")
  if(arg_ENV)
    set(command ${CMAKE_COMMAND} -E env ${arg_ENV} ${arg_COMMAND})
  else()
    set(command ${arg_COMMAND})
  endif()
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step '${name}' failed (${rc}): ${command}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  if(arg_EXPECT AND NOT out MATCHES "${arg_EXPECT}")
    message(FATAL_ERROR "step '${name}': output does not match '${arg_EXPECT}':\n${out}\n--- stderr\n${err}")
  endif()
  message(STATUS "${name}: ${seconds} s")
  if(arg_OUTPUT_VARIABLE)
    set(${arg_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# A fresh configure that keeps the build folder's objects: CMake forgets
# every cached answer (compilers, packages), Ninja still skips up-to-date
# objects.
function(gdr_forget_configuration dir)
  file(REMOVE ${dir}/CMakeCache.txt)
endfunction()

# The compile commands of `dir` (compile_commands.json) whose file is under
# `source_folder`, one "file<TAB>command" per list entry.
function(gdr_compile_commands dir source_folder out)
  file(READ ${dir}/compile_commands.json json)
  string(JSON n LENGTH "${json}")
  math(EXPR last "${n} - 1")
  set(result "")
  foreach(i RANGE ${last})
    string(JSON file GET "${json}" ${i} file)
    string(JSON command GET "${json}" ${i} command)
    string(FIND "${file}" "${source_folder}/" at)
    if(at EQUAL 0)
      list(APPEND result "${file}\t${command}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()
