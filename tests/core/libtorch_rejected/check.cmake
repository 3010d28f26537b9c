# Compiles one LibTorch idiom that ember refuses (-fsyntax-only) and passes when the compiler
# fails with the message that its first line's "// expect: ..." names (ember's spelling).
#   cmake -DCXX=<compiler> -DINCLUDE=<ember/include> -DSOURCE=<file.cpp> -P check.cmake
file(STRINGS ${SOURCE} expect_line REGEX "^// expect: " LIMIT_COUNT 1)
if(NOT expect_line)
  message(FATAL_ERROR "${SOURCE}: no '// expect: <message>' line")
endif()
string(REGEX REPLACE "^// expect: " "" expected "${expect_line}")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${INCLUDE} ${SOURCE}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but ember should refuse it with: ${expected}")
endif()
string(FIND "${out}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE} failed without the expected message '${expected}':\n${out}")
endif()
message(STATUS "refused with: ${expected}")
