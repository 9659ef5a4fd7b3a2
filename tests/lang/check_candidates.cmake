# Every candidate kernel paracc planned for the search, forced in turn
# (VAR=k: PARAC_CL_VARIANT or PARAC_CU_VARIANT), or every alternative of
# its fusion choices (PARAC_CL_FUSION or PARAC_CU_FUSION, KS="1;2"): each
# run checks the program's outputs against its reference. Regions with
# fewer candidates run the model's kernel; choices with fewer alternatives
# their last.
include(${CMAKE_CURRENT_LIST_DIR}/run_program.cmake)
if(NOT DEFINED KS)
  set(KS 1 2 3 4)
endif()
foreach(k ${KS})
  parac_run_program(${VAR}=${k} "candidate ${k}")
  if(skipped)
    return()
  endif()
endforeach()
