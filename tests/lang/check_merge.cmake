# Which iterators of merge.pc paracc merges into one launch (--explain): the
# frame's rows and columns (apart by a constant), not its corners (their
# indices are products, not provably apart), `tables`' two iterators (their
# bodies call a function of numbers) and nothing of `ordered`; on
# both device targets at -O2, not at -O1, with -fno-merge-launches or for C.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(regex "merged launches: [^\n]* in one launch")
foreach(target cuda opencl)
  paracc_expect_explain("${regex}" "merged launches: t (line 23), s (line 27) in one launch;merged launches: g (line 73), h (line 74) in one launch" --target ${target})
endforeach()
foreach(args "--target;cuda;-O1" "--target;opencl;-fno-merge-launches" "--target;c")
  paracc_expect_explain("${regex}" "" ${args})
endforeach()
