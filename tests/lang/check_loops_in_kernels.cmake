# Which host loops of loops_in_kernels.pc run inside their iterator's kernel
# (--explain): from -O1 on every target, the loop of run-time length around
# one iterator and the nest without braces; on the device targets also the
# offsets' loops around the chain staged in local memory (their body one
# iterator after staging; on the C target three iterators). None of the
# loops that must stay on the host, none at -O0 or with
# -fno-loops-in-kernels; and the reasons --explain gives for the loops around
# one iterator that stay. loops_in_kernels.pc itself checks the values.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "host loops in the kernel: the loop of [^\n]*")
set(tail "each work-item running its outputs' rounds (one launch; -fno-loops-in-kernels)")
set(staged "host loops in the kernel: the loop of line 51 (sy), inside it line 52 (sx), ${tail}")
set(plain "host loops in the kernel: the loop of line 72 (k), ${tail}"
          "host loops in the kernel: the loop of line 81 (i, j), inside it line 82 (q), ${tail}")
foreach(target opencl cuda)
  paracc_expect_explain("${re}" "${staged};${plain}" --target ${target})
  paracc_expect_explain("${re}" "${staged};${plain}" --target ${target} -O1 -fstage-stencils)
  paracc_expect_explain("${re}" "" --target ${target} -O0)
  paracc_expect_explain("${re}" "" --target ${target} -fno-loops-in-kernels)
endforeach()
paracc_expect_explain("${re}" "${plain}" --target c)
paracc_expect_explain("${re}" "" --target c -O0)
# and why the loops around one iterator that stay on the host do
set(re2 "host loop: [^\n]*")
set(kept "host loop: the loop of line 96 launches it every round: the iterator's space depends on it"
         "host loop: the loop of line 105 launches it every round: its init does not declare integer counters of host values"
         "host loop: the loop of line 108 launches it every round: the iterator's body jumps"
         "host loop: the loop of line 125 launches it every round: the iterator has border rules")
foreach(target c opencl cuda)
  paracc_expect_explain("${re2}" "${kept}" --target ${target})
  paracc_expect_explain("${re2}" "" --target ${target} -O0)
endforeach()
