# Which arrays of local_arrays.pc paracc puts in the work-group's local memory
# (--explain): on the device targets from -O1, every array indexed by data or
# by a loop of run-time length, the work-group shrunk where the slices would
# pass 32 KB; one of 32 KB a work-item and the iterator with a border rule
# keep theirs on the stack; arrays of constant indices or whose element's
# address is taken are not named. None at -O0, with -fno-local-arrays or on
# the C target. local_arrays.pc itself checks the values.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "local arrays: [^\n]*")
set(want "local arrays: hv (16 float) in local memory, a slice per work-item (16384 bytes per work-group of 256)"
         "local arrays: acc (8 int) in local memory, a slice per work-item (8192 bytes per work-group of 256)"
         "local arrays: seen (32 int) in local memory, a slice per work-item (32768 bytes per work-group of 256)"
         "local arrays: slot (256 int) in local memory, a slice per work-item (32768 bytes per work-group of 32, shrunk to fit)"
         "local arrays: many (8192 int) on each work-item's stack (32768 bytes per work-item: a work-group of 32 would need 1048576, more than 32768)"
         "local arrays: up (4 int) on each work-item's stack (the iterator reads through a border rule)"
         "local arrays: q (4 int), q (6 float) in local memory, a slice per work-item (10240 bytes per work-group of 256)")
foreach(target opencl cuda)
  paracc_expect_explain("${re}" "${want}" --target ${target})
  paracc_expect_explain("${re}" "${want}" --target ${target} -O1)
  paracc_expect_explain("${re}" "" --target ${target} -O0)
  paracc_expect_explain("${re}" "" --target ${target} -fno-local-arrays)
endforeach()
paracc_expect_explain("${re}" "" --target c)
