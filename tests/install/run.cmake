# The install test (CTest: install_consumer), run as a script:
#   cmake -DEMBER_BUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX=...
#         -P tests/install/run.cmake
# 1. `cmake --install` the current build into WORK_DIR/prefix;
# 2. configure, build and run tests/install (find_package(ember), ember::ember) against it;
# 3. compile and run a one-liner with the flags from `pkg-config --cflags --libs ember`.
cmake_minimum_required(VERSION 3.25)

foreach(var EMBER_BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install test: ${var} is not set")
  endif()
endforeach()

# Runs a command; fails the test with its output when it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (${rc})\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# 1. Install.
run("cmake --install" ${CMAKE_COMMAND} --install ${EMBER_BUILD_DIR} --prefix ${prefix})

# 2. The CMake consumer.
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON)
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run("running the consumer" ${WORK_DIR}/consumer/consumer)
message(STATUS "${run_output}")

# 3. pkg-config. ember.pc is found wherever GNUInstallDirs put it (lib, lib64, lib/<arch>).
file(GLOB_RECURSE pc_files ${prefix}/*/ember.pc)
if(NOT pc_files)
  message(FATAL_ERROR "install test: no ember.pc under ${prefix}")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(lib_dir ${pc_dir} DIRECTORY)
# ember.pc names the prefix chosen at configure time, so point it at this one; a static
# libember also needs its private dependencies (Libs.private), which --static adds.
set(pkg_args --define-variable=prefix=${prefix} --cflags --libs)
if(NOT EXISTS ${lib_dir}/libember.so)
  list(APPEND pkg_args --static)
endif()
run("pkg-config" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} pkg-config ${pkg_args} ember)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
file(WRITE ${WORK_DIR}/oneliner.cpp
     "#include <ember/ember.h>\nint main() { return ember::zeros({2, 3}).numel() == 6 ? 0 : 1; }\n")
run("compiling with pkg-config's flags" ${CXX} ${WORK_DIR}/oneliner.cpp ${flags}
    -o ${WORK_DIR}/oneliner)
run("running the pkg-config one-liner" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${lib_dir}
    ${WORK_DIR}/oneliner)
message(STATUS "install test: find_package(ember) and pkg-config consumers built and ran")
