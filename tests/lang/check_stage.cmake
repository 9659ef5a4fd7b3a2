# Which stages of stage.pc paracc computes in local memory (--explain): G
# then R in chain's reader, S then T in smooth's, the image I (loaded) then M
# in pair's; on both device targets at -O2,
# not at -O1, with -fno-stage-stencils or for C.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
macro(staged out)
  paracc_explain_lines(${out} "local-memory stages: [^\n]*" ${ARGN})
endmacro()
set(want "local-memory stages: G 38x70 cells (parac_sg0), R 38x64 cells (parac_sg1): 20368 bytes per work-group of 32x64 outputs"
         "local-memory stages: S 38x70 cells (parac_sg0), T 38x64 cells (parac_sg1): 40736 bytes per work-group of 32x64 outputs"
         "local-memory stages: I 40x72 cells (parac_sg0), M 40x64 cells (parac_sg1): 21760 bytes per work-group of 32x64 outputs")
foreach(target cuda opencl)
  staged(found --target ${target})
  if(NOT found STREQUAL want)
    message(FATAL_ERROR "paracc --target ${target} staged:\n  ${found}\nexpected:\n  ${want}")
  endif()
endforeach()
foreach(args "--target;cuda;-O1" "--target;opencl;-fno-stage-stencils" "--target;c")
  staged(found ${args})
  if(found)
    message(FATAL_ERROR "paracc ${args} staged: ${found}")
  endif()
endforeach()
