# Lint every manual page in MAN_DIR with mandoc and/or groff (whichever of
# MANDOC and GROFF is set) and fail on any warning. Run by ctest as
#   cmake -DMAN_DIR=... -DMANDOC=... -DGROFF=... -P lint.cmake
# The pages are globbed here, at test time, so a new page is linted at once.

file(GLOB pages ${MAN_DIR}/*.[1-8])
if(NOT pages)
  message(FATAL_ERROR "man-lint: no manual pages in ${MAN_DIR}")
endif()

set(failed 0)
foreach(page IN LISTS pages)
  get_filename_component(name ${page} NAME)
  set(page_failed 0)
  if(MANDOC)
    # -W warning: warnings and errors count, style hints do not.
    execute_process(COMMAND ${MANDOC} -T lint -W warning ${page}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0 OR out)
      message(SEND_ERROR "man-lint: mandoc on ${name} (exit ${rc}):\n${out}")
      set(page_failed 1)
    endif()
  endif()
  if(GROFF)
    # groff exits 0 on warnings, so any output on stderr is the failure.
    execute_process(COMMAND ${GROFF} -t -man -ww -z ${page}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0 OR out)
      message(SEND_ERROR "man-lint: groff on ${name} (exit ${rc}):\n${out}")
      set(page_failed 1)
    endif()
  endif()
  if(page_failed)
    set(failed 1)
  else()
    message(STATUS "man-lint: ${name} ok")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "man-lint: fix the warnings above")
endif()
