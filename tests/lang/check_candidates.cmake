# Every candidate kernel paracc planned for the search, forced in turn
# (VAR=k: PARAC_CL_VARIANT or PARAC_CU_VARIANT): each run checks the
# program's outputs against its reference. Regions with fewer candidates
# run the model's kernel.
foreach(k 1 2 3 4)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${VAR}=${k} PARAC_CACHE_DIR=${CACHE} ${EXE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 77)
    message("no device: skipped")
    return()
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "candidate ${k}: exit ${rc}\n${out}\n${err}")
  endif()
endforeach()
