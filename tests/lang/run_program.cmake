# parac_run_program(ASSIGNMENT LABEL), for the -P scripts of tests/lang: runs
# EXE with ASSIGNMENT and PARAC_CACHE_DIR=${CACHE} in its environment, its
# standard output in `out`; `skipped` is TRUE when it found no device (exit
# 77, or a self-checking program's failure that says so); any other failure
# stops the script, naming LABEL.
macro(parac_run_program assignment label)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${assignment} PARAC_CACHE_DIR=${CACHE} ${EXE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(skipped FALSE)
  if(rc EQUAL 77 OR (NOT rc EQUAL 0 AND "${out}${err}" MATCHES "no CUDA device"))
    set(skipped TRUE)
    message("no device: skipped")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: exit ${rc}\n${out}\n${err}")
  endif()
endmacro()
