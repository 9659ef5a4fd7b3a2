# Every candidate kernel paracc planned for the search, forced in turn
# (VAR=k: PARAC_CL_VARIANT or PARAC_CU_VARIANT): each run checks the
# program's outputs against its reference. Regions with fewer candidates
# run the model's kernel.
include(${CMAKE_CURRENT_LIST_DIR}/run_program.cmake)
foreach(k 1 2 3 4)
  parac_run_program(${VAR}=${k} "candidate ${k}")
  if(skipped)
    return()
  endif()
endforeach()
