# What --explain says of choice.pc's fusion choices (fuse_choice.c): on both
# device targets at -O2 the staged, across and repeated functions' fused
# iterators are timed by the search against their statements not fused, the
# accumulation (which reads what it writes) is not; no choices at -O1, with
# -fno-search-variants or for the C target. The examples' unsharp mask has
# three ways: staged, stencils recomputed, not fused.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(regex "fusion choice: [^\n]*")
foreach(target cuda opencl)
  if(target STREQUAL cuda)
    set(S PARAC_CU_SEARCH)
  else()
    set(S PARAC_CL_SEARCH)
  endif()
  set(want "fusion choice: the search (${S}) times this fused region against 1: not fused (h, v: 2 kernels)"
           "fusion choice: the search (${S}) times this fused region against 1: not fused (e, o: 2 kernels)"
           "fusion choice: not checked by the search (it runs each way more than once): they read B, which they write"
           "fusion choice: the search (${S}) times this fused region against 1: not fused (g, r: 2 kernels)")
  paracc_expect_explain("${regex}" "${want}" --target ${target})
  paracc_explain_lines(alts "region [a-zA-Z0-9_]*_c1a1: alternative 1 of fusion choice 1" --target ${target})
  list(LENGTH alts n)
  if(NOT n EQUAL 6)
    message(FATAL_ERROR "--target ${target}: ${n} regions of alternatives, expected 6 (h, v; e, o; g, r)\n${alts}")
  endif()
endforeach()
foreach(args "--target;cuda;-O1" "--target;opencl;-fno-search-variants" "--target;c")
  paracc_expect_explain("${regex}" "" ${args})
endforeach()
set(SRC ${CMAKE_CURRENT_LIST_DIR}/../../examples/unsharp.pc)
paracc_expect_explain("${regex}"
  "fusion choice: the search (PARAC_CU_SEARCH) times this fused region against 1: stencils recomputed, no local-memory stages (g, h, v: 3 kernels); 2: not fused (g, h, v, o: 4 kernels)"
  --target cuda)
