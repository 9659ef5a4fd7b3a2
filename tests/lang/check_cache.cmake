# The blur's fused horizontal mean is computed once per row and column a
# work-item holds (plan_cache.c): 6 rows x 8 columns instead of 3 x 4 x 8
# (--explain), on both device targets; not at -O0. check_blur.c checks the
# values of every variant.
foreach(args "--target;cuda" "--target;opencl" "--target;cuda;-O0")
  execute_process(COMMAND ${PARACC} ${SRC} --explain -o ${WORK}/cache_explain ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "paracc --explain ${args}: exit ${rc}\n${err}")
  endif()
  string(FIND "${text}" "recomputed once per held row and column: 48 values a work-item (parac_fc0), not 96" at)
  if(args MATCHES "O0")
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "paracc ${args} cached a recomputed value")
    endif()
  elseif(at EQUAL -1)
    message(FATAL_ERROR "paracc ${args}: no cached recomputed value in\n${text}")
  endif()
endforeach()
