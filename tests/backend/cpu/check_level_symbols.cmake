# The ODR check of the per-level kernel objects (Note [CPU levels] in src/backend/cpu/dispatch.h):
# a function that a level's object defines for the linker (strong, weak or ifunc) must be in
# ember::cpu::<level> — or be a weak one renamed <symbol>.<level> by cmake/cpu_level_compile.sh —
# or the linker could hand one level's code to another level's callers. Data symbols are not
# checked: they hold no instructions. Fails listing every offending symbol.
#   cmake -DLEVEL=avx2 -DOBJECTS="a.o|b.o" -DNM=nm -P check_level_symbols.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
set(offending "")
set(in_level 0)
foreach(object ${objects})
  execute_process(COMMAND ${NM} -p -C --defined-only ${object} OUTPUT_VARIABLE listing
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line ${lines})
    if(NOT line MATCHES "^[0-9a-f]* ([TWi]) (.*)$")
      continue()
    endif()
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    string(FIND "${name}" "ember::cpu::${LEVEL}::" at)
    if(at GREATER_EQUAL 0)
      math(EXPR in_level "${in_level} + 1")
    elseif(NOT name MATCHES "\\[clone \\.${LEVEL}\\]$")  # renamed <symbol>.<level>
      get_filename_component(file ${object} NAME)
      list(APPEND offending "${file}: ${type} ${name}")
    endif()
  endforeach()
endforeach()
if(offending)
  list(LENGTH offending count)
  list(JOIN offending "\n  " text)
  message(FATAL_ERROR "${count} functions outside ember::cpu::${LEVEL} in the ${LEVEL} objects:\n  ${text}")
endif()
if(in_level EQUAL 0)
  message(FATAL_ERROR "no function of ember::cpu::${LEVEL} in ${OBJECTS}: wrong objects?")
endif()
message(STATUS "${LEVEL}: ${in_level} functions, all in ember::cpu::${LEVEL} or renamed")
