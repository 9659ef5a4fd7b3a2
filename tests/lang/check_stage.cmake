# Which stages of stage.pc paracc computes in local memory (--explain): G
# then R in chain's reader, S then T in smooth's, the image I (loaded) then M
# in pair's; on both device targets at -O2,
# not at -O1, with -fno-stage-stencils or for C.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(regex "local-memory stages: [^\n]*")
set(want "local-memory stages: G 38x70 cells (parac_sg0), R 38x64 cells (parac_sg1): 20368 bytes per work-group of 32x64 outputs"
         "local-memory stages: S 38x70 cells (parac_sg0), T 38x64 cells (parac_sg1): 40736 bytes per work-group of 32x64 outputs"
         "local-memory stages: I 40x72 cells (parac_sg0), M 40x64 cells (parac_sg1): 21760 bytes per work-group of 32x64 outputs")
foreach(target cuda opencl)
  paracc_expect_explain("${regex}" "${want}" --target ${target})
endforeach()
foreach(args "--target;cuda;-O1" "--target;opencl;-fno-stage-stencils" "--target;c")
  paracc_expect_explain("${regex}" "" ${args})
endforeach()
