# Which iterators of merge.pc paracc merges into one launch (--explain): the
# frame's rows and columns (apart by a constant), not its corners (their
# indices are products, not provably apart) and nothing of `ordered`; on
# both device targets at -O2, not at -O1, with -fno-merge-launches or for C.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
macro(merged out)
  paracc_explain_lines(${out} "merged launches: [^\n]* in one launch" ${ARGN})
endmacro()
set(want "merged launches: t (line 23), s (line 27) in one launch")
foreach(target cuda opencl)
  merged(found --target ${target})
  if(NOT found STREQUAL want)
    message(FATAL_ERROR "paracc --target ${target} merged:\n  ${found}\nexpected:\n  ${want}")
  endif()
endforeach()
foreach(args "--target;cuda;-O1" "--target;opencl;-fno-merge-launches" "--target;c")
  merged(found ${args})
  if(found)
    message(FATAL_ERROR "paracc ${args} merged: ${found}")
  endif()
endforeach()
