# One LibTorch program on ember (CTest libtorch_program_<name>), run as a script:
#   cmake -DSOURCE=programs/<name>.cpp -DPREFIX=<installed ember> -DWORK_DIR=... -DCXX=...
#         -DGOLDEN=golden/<name>.txt -P run_program.cmake
# 1. builds the unchanged source with the layer's documented line,
#      c++ -std=c++20 prog.cpp $(pkg-config --cflags --libs ember-libtorch)
#    against the prefix the libtorch_layer_install fixture installed;
# 2. runs it in WORK_DIR (where ./data holds the synthetic MNIST files);
# 3. compares its output with LibTorch's (compare_output.py).
cmake_minimum_required(VERSION 3.25)
foreach(var SOURCE PREFIX WORK_DIR CXX GOLDEN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "libtorch program test: ${var} is not set")
  endif()
endforeach()
get_filename_component(name ${SOURCE} NAME_WE)
file(GLOB_RECURSE pc_files ${PREFIX}/*/ember-libtorch.pc)
if(NOT pc_files)
  message(FATAL_ERROR "libtorch program test: no ember-libtorch.pc under ${PREFIX}")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(lib_dir ${pc_dir} DIRECTORY)

set(binary ${WORK_DIR}/bin/${name})
file(MAKE_DIRECTORY ${WORK_DIR}/bin)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
          sh -c "${CXX} -std=c++20 ${SOURCE} $(pkg-config --cflags --libs ember-libtorch) -o ${binary}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${name}: building with pkg-config ember-libtorch failed (${rc})\n${out}\n${err}")
endif()

set(output ${WORK_DIR}/${name}.out)
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${lib_dir} ${binary}
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_FILE ${output}
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(READ ${output} out)
  message(FATAL_ERROR "${name}: exited with ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/compare_output.py ${GOLDEN} ${output}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${name}: output differs from LibTorch's\n${out}${err}")
endif()
message(STATUS "${name}: built with pkg-config ember-libtorch, ran, matched LibTorch's output")
