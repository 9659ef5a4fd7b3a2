# Which atomic updates of histograms.pc paracc counts per work-group (per
# thread on the C target) (--explain): every one whose matrix fits local
# memory, on every target from -O1; none at -O0 or with
# -fno-work-group-histograms; `big` (8 x 1024 elements) never.
# histograms.pc itself checks the counts.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "work-group histograms: [^\n]*")
set(kept "work-group histograms: atomic updates in global memory (big: more than 4096 elements)")
foreach(target c opencl cuda)
  if(target STREQUAL "c")
    set(how "by each thread in a copy of its own, added to the matrix once per thread")
  else()
    set(how "in local memory by each work-group, added to the matrix once per work-group")
  endif()
  set(want "work-group histograms: hist (256), weighted (256) counted ${how}"
           "work-group histograms: counts (100) counted ${how}"
           "work-group histograms: channels (768) counted ${how}"
           "work-group histograms: some (32) counted ${how}"
           "${kept}"
           "work-group histograms: hist (256) counted ${how}")
  paracc_expect_explain("${re}" "${want}" --target ${target})
  paracc_expect_explain("${re}" "${want}" --target ${target} -O1)
  foreach(off "-O0" "-fno-work-group-histograms")
    set(none "")
    foreach(i RANGE 5)
      list(APPEND none "work-group histograms: atomic updates in global memory (${off})")
    endforeach()
    paracc_expect_explain("${re}" "${none}" --target ${target} ${off})
  endforeach()
endforeach()
