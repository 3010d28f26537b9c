# The ODR check of the per-level kernel objects (Note [CPU levels] in src/backend/cpu/dispatch.h):
# a function that a level's object defines for the linker (strong, weak or ifunc) must be in
# ember::cpu::<level> — or be a weak one renamed <symbol>.<level> by cmake/cpu_level_compile.sh —
# or the linker could hand one level's code to another level's callers. Data symbols are not
# checked: they hold no instructions. Fails listing every offending symbol.
# The same for the COMDAT groups that hold code: the linker keeps one group per signature, so a
# group named outside the level (say the D5 group of a destructor whose D1/D2 were renamed) could
# be replaced by another level's and leave this object's calls pointing into a discarded one.
# A signature is the level's when it names the level's namespace (<length><level> in the mangled
# name, as in N5ember3cpu4avx2) or carries the .<level> suffix.
#   cmake -DLEVEL=avx2 -DOBJECTS="a.o|b.o" -DNM=nm -DREADELF=readelf -P check_level_symbols.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
set(offending "")
set(in_level 0)
foreach(object ${objects})
  # With precompiled headers $<TARGET_OBJECTS> lists the level's cmake_pch.hxx.gch too: no code.
  if(object MATCHES "\\.(gch|pch)$")
    continue()
  endif()
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
    # A renamed <symbol>.<level>: GNU nm writes "[clone .<level>]", llvm-nm "(.<level>)".
    elseif(NOT name MATCHES "(\\[clone \\.${LEVEL}\\]|\\(\\.${LEVEL}\\))$")
      get_filename_component(file ${object} NAME)
      list(APPEND offending "${file}: ${type} ${name}")
    endif()
  endforeach()
  execute_process(COMMAND ${READELF} -gW ${object} OUTPUT_VARIABLE groups RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${READELF} failed on ${object}")
  endif()
  string(LENGTH "${LEVEL}" length)
  string(REPLACE "\n" ";" lines "${groups}")
  set(signature "")
  foreach(line ${lines})
    if(line MATCHES "COMDAT group section .*\\[(.*)\\] contains")
      set(signature "${CMAKE_MATCH_1}")
    elseif(signature AND line MATCHES "\\] +\\.text")
      string(FIND "${signature}" "${length}${LEVEL}" at)
      if(at LESS 0 AND NOT signature MATCHES "\\.${LEVEL}$")
        get_filename_component(file ${object} NAME)
        list(APPEND offending "${file}: code in COMDAT group ${signature}")
      endif()
      set(signature "")
    endif()
  endforeach()
endforeach()
if(offending)
  list(LENGTH offending count)
  list(JOIN offending "\n  " text)
  message(FATAL_ERROR "${count} functions or code groups outside ember::cpu::${LEVEL} in the ${LEVEL} objects:\n  ${text}")
endif()
if(in_level EQUAL 0)
  message(FATAL_ERROR "no function of ember::cpu::${LEVEL} in ${OBJECTS}: wrong objects?")
endif()
message(STATUS "${LEVEL}: ${in_level} functions, all in ember::cpu::${LEVEL} or renamed")
