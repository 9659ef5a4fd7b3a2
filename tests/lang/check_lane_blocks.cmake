# How the C target runs the lanes of lane_blocks.pc's iterators (--explain):
# blocks of 16 lanes where a loop the same for every lane holds statements
# that differ (with the locals kept per lane between them), statements that
# are the same for every lane once per row, and the plain
# form around the whole body where nothing is the same or a continue leaves
# a statement that differs; none of it at -O0, with -fno-lane-blocks or on
# the device targets. lane_blocks.pc itself checks the values.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "lanes: [^\n]*")
set(hint " (-fno-lane-blocks: around the whole body)")
set(plain "lanes: around the whole body (nothing the same for every lane ahead of the rest or around what differs)")
set(blocks "lanes: 16 at a time: loops the same for every lane once per 16 lanes, what differs inside them as SIMD loops over the lanes")
set(want
  "${plain}"
  "${blocks} (1 local kept per lane)${hint}"
  "${blocks} (1 local kept per lane); 3 statements the same for every lane once per row${hint}"
  "${blocks} (1 local kept per lane)${hint}"
  "${blocks} (6 locals kept per lane)${hint}"
  "${blocks} (1 local kept per lane)${hint}"
  "${blocks} (1 local kept per lane)${hint}"
  "${blocks} (1 local kept per lane)${hint}"
  "${plain}"
  "${blocks} (1 local kept per lane)${hint}"
  "${blocks} (1 local kept per lane)${hint}"
  "lanes: around the rest of the body, 1 statement the same for every lane once per row${hint}"
  "lanes: around the rest of the body, 2 statements the same for every lane once per row${hint}"
  "lanes: around the whole body (a continue out of a statement that differs between lanes)")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-lane-blocks)
paracc_expect_explain("${re}" "" --target opencl)
