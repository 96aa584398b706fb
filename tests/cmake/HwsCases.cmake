# hws_add_cases(PREFIX TARGET SOURCE LABELS [LAUNCHER cmd...] [ENVIRONMENT k=v...])
#
# Registers every case of a task.h test binary as its own ctest test,
# named PREFIX/CASE. The cases are read from the TEST(...) and
# TEST_TIMEOUT(..., seconds) lines of SOURCE at configure time, and from
# the WQ_TEST(...) and WQ_TEST_TIMEOUT(..., seconds, ...) lines that wrap
# them (tests/unit/wq-util.h), so a new case is registered by writing it,
# nowhere else.

set(HWS_UNIT_DEFAULT_TIMEOUT 60) # HWS_TEST_DEFAULT_TIMEOUT in task.h

# Sanitizers slow the threaded tests down several times: scale the
# timeouts (the harness's own watchdog and ctest's) rather than the work.
if(HWS_SANITIZE)
  set(HWS_UNIT_TIMEOUT_SCALE 4)
else()
  set(HWS_UNIT_TIMEOUT_SCALE 1)
endif()

function(hws_add_cases prefix target src)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "LABELS;LAUNCHER;ENVIRONMENT")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
  file(STRINGS ${src} case_lines REGEX "^(WQ_)?TEST(_TIMEOUT)?\\(")
  if(NOT case_lines)
    message(FATAL_ERROR "${src} defines no TEST() cases")
  endif()
  foreach(line IN LISTS case_lines)
    if(line MATCHES "^(WQ_)?TEST\\(([A-Za-z0-9_]+)[,)]")
      set(case ${CMAKE_MATCH_2})
      set(timeout ${HWS_UNIT_DEFAULT_TIMEOUT})
    elseif(line MATCHES "^(WQ_)?TEST_TIMEOUT\\(([A-Za-z0-9_]+), *([0-9]+)[,)]")
      set(case ${CMAKE_MATCH_2})
      set(timeout ${CMAKE_MATCH_3})
    else()
      message(FATAL_ERROR "${src}: cannot parse test case line: ${line}")
    endif()
    math(EXPR timeout "${timeout} * ${HWS_UNIT_TIMEOUT_SCALE} + 30")
    add_test(NAME ${prefix}/${case} COMMAND ${arg_LAUNCHER} $<TARGET_FILE:${target}> ${case})
    set_tests_properties(${prefix}/${case} PROPERTIES
      TIMEOUT ${timeout}
      LABELS "${arg_LABELS}"
      ENVIRONMENT "HWS_TEST_TIMEOUT_SCALE=${HWS_UNIT_TIMEOUT_SCALE};${arg_ENVIRONMENT}")
  endforeach()
endfunction()
