# Which regions of the sharpening run whole work-items untested (--explain):
# those of several outputs and one row per work-item (the inner upsampling on
# CUDA; with OpenCL, which does not if-convert, the final stage too, which then
# keeps 2 outputs and one row), none of several rows; not at -O0, with
# -fno-whole-items or for the C target.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(regex "whole work-items: the [0-9]+ outputs")
paracc_expect_explain("${regex}" "whole work-items: the 2 outputs" --target cuda)
paracc_expect_explain("${regex}" "whole work-items: the 2 outputs;whole work-items: the 2 outputs" --target opencl)
foreach(args "--target;cuda;-O0" "--target;cuda;-fno-whole-items" "--target;opencl;-fno-whole-items" "--target;c")
  paracc_expect_explain("${regex}" "" ${args})
endforeach()
