# CTest libtorch_cmake_project, run as a script: configures cmake_project/ (find_package(Torch)
# with Torch_DIR under PREFIX), builds it, runs each program and compares its output with
# LibTorch's golden file.
cmake_minimum_required(VERSION 3.25)
foreach(var PREFIX WORK_DIR GENERATOR CXX PROGRAMS_DIR GOLDEN_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "libtorch cmake project test: ${var} is not set")
  endif()
endforeach()
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "libtorch cmake project: ${what} failed (${rc})\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run("configuring with Torch_DIR" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/cmake_project
    -B ${WORK_DIR} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
    -DTorch_DIR=${PREFIX}/share/cmake/Torch -DPROGRAMS_DIR=${PROGRAMS_DIR})
run("building" ${CMAKE_COMMAND} --build ${WORK_DIR})
foreach(name tensor_basics autograd_function)
  run("running ${name}" sh -c "cd ${WORK_DIR}/.. && ${WORK_DIR}/${name} > ${WORK_DIR}/${name}.out")
  run("comparing ${name} with LibTorch's output" /usr/bin/python3
      ${CMAKE_CURRENT_LIST_DIR}/compare_output.py ${GOLDEN_DIR}/${name}.txt ${WORK_DIR}/${name}.out)
endforeach()
message(STATUS "find_package(Torch) with Torch_DIR: built, ran, matched LibTorch's output")
