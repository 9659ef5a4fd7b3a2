# Which iterators of hoist.pc have loads hoisted out of both arms of an if
# (--explain): `both`'s two elements only, on every target from -O1; none
# at -O0.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(regex "hoisted loads: [^\n]*")
foreach(args "--target;cuda" "--target;opencl" "--target;c" "--target;opencl;-O1")
  paracc_expect_explain("${regex}" "hoisted loads: 2 matrix elements that both arms of an if read, loaded before it" ${args})
endforeach()
paracc_expect_explain("${regex}" "" --target cuda -O0)
