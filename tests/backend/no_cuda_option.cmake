# The option that src/backend/cuda/no_cuda.cpp's message tells users to set
# (`rebuild with -DNAME=ON`) must be one that CMakeLists.txt declares: renaming the option
# without the message, or the message without the option, fails here. Run as cmake -DSOURCE_DIR=<repo> -P no_cuda_option.cmake.
file(READ ${SOURCE_DIR}/src/backend/cuda/no_cuda.cpp message_source)
string(REGEX MATCH "rebuild with -D([A-Za-z0-9_]+)=ON" named "${message_source}")
if(NOT named)
  message(FATAL_ERROR "src/backend/cuda/no_cuda.cpp: no 'rebuild with -D<option>=ON' in its message")
endif()
set(option_name ${CMAKE_MATCH_1})
file(READ ${SOURCE_DIR}/CMakeLists.txt lists)
string(FIND "${lists}" "option(${option_name} " declared)
if(declared EQUAL -1)
  message(FATAL_ERROR "no_cuda's message names -D${option_name}=ON, which CMakeLists.txt does not declare")
endif()
message(STATUS "no_cuda's message names -D${option_name}=ON, declared in CMakeLists.txt")
