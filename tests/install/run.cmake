# The install test (CTest: install_consumer), run as a script:
#   cmake -DEMBER_BUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX=...
#         -P tests/install/run.cmake
# 1. `cmake --install` the current build into WORK_DIR/prefix;
# 2. configure, build and run tests/install (find_package(ember), ember::ember) against it;
# 3. compile and run the same program with README.md's pkg-config line, exactly as written.
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
# README.md's own line (`c++ my_program.cpp $(pkg-config --cflags --libs ember) -o my_program`),
# run as written on this test's consumer program, so the documented command cannot drift.
file(STRINGS ${CONSUMER_DIR}/../../README.md readme_line REGEX "pkg-config --cflags --libs ember")
list(LENGTH readme_line n_lines)
if(NOT n_lines EQUAL 1)
  message(FATAL_ERROR "install test: README.md should have one pkg-config line, found ${n_lines}")
endif()
string(STRIP "${readme_line}" readme_line)
set(pc_work ${WORK_DIR}/pkg-config)
file(MAKE_DIRECTORY ${pc_work})
configure_file(${CONSUMER_DIR}/main.cpp ${pc_work}/my_program.cpp COPYONLY)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} sh -c "${readme_line}"
                WORKING_DIRECTORY ${pc_work} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install test: README's line `${readme_line}` failed (${rc})\n${out}\n${err}")
endif()
run("running the pkg-config program" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${lib_dir}
    ${pc_work}/my_program)
message(STATUS "${run_output}")
message(STATUS "install test: find_package(ember) and README's pkg-config line built and ran")
