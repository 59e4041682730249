# cmake -DSOURCE_DIR=<gdr source> -DWORK_DIR=<folder> -DCXX=<compiler> -DC=<compiler>
#       -DLINKER_FLAGS=<flags> -P subproject.cmake
# Configures test/package/subproject, a parent project that adds gdr with
# add_subdirectory (runtime alone; its tests and tools default to off there),
# builds it and runs its check of the reference route against float64.
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)
gdr_forget_configuration(${WORK_DIR})
gdr_step("configure the parent project" COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/subproject
         -B ${WORK_DIR} -G Ninja -DCMAKE_BUILD_TYPE=Release -DGDR_SOURCE_DIR=${SOURCE_DIR}
         -DGDR_BUILD_COMPILER=OFF -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
         -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C} "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
gdr_step("build" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} -j 2)
gdr_step("run" COMMAND ${WORK_DIR}/reference_check EXPECT "subproject: reference route, .*: ok\n")
