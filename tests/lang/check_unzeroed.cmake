# Which declared matrices of unzeroed.pc the C target leaves unzeroed
# (--explain): those whose first use writes a box of them and whose every
# later read lies inside it, at -O1 and up; none at -O0, with
# -fno-skip-zeroing or on the device targets (their device copies start as
# zeros). unzeroed.pc itself checks the values, each function called twice.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "function [a-z_]+: not zeroed[^\n]*")
set(tail "(-fno-skip-zeroing: zeroed)")
set(want "function inside: not zeroed, every element written before any is read: t u ${tail}"
         "function planes: not zeroed, every element written before any is read: t ${tail}")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-skip-zeroing)
paracc_expect_explain("${re}" "" --target opencl)
