# Which loops of strip_loops.pc run inside their run's strips (--explain):
# the C target from -O1; not at -O0, with -fno-strip-loops, -fno-strips,
# -fno-fold-storage or -fno-skip-zeroing, nor on a device target; the four
# loops that must stay around their runs say why. strip_loops.pc itself
# checks the values in strips of several heights.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "stage 1 of [0-9]+ iterators run strip by strip from line [0-9]+ with the loops? of line [0-9]+")
set(want "stage 1 of 3 iterators run strip by strip from line 40 with the loops of line 38")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-strip-loops)
paracc_expect_explain("${re}" "" --target c -fno-strips)
paracc_expect_explain("${re}" "" --target c -fno-fold-storage)
paracc_expect_explain("${re}" "" --target c -fno-skip-zeroing)
paracc_expect_explain("${re}" "" --target opencl)
set(re "loops inside the strips: no \\(the loop of line [0-9]+: [a-z ,']+")
set(want "loops inside the strips: no (the loop of line 59: a stage that touches acc, which the rounds carry, computes rows beyond its strip for the stages after it"
         "loops inside the strips: no (the loop of line 68: m is neither the run's alone, written before read, nor touched at each stage's own row only"
         "loops inside the strips: no (the loop of line 77: an index of a matrix the run writes reads a counter"
         "loops inside the strips: no (the loop of line 92: a stage's space is not of host scalars and constants")
paracc_expect_explain("${re}" "${want}" --target c)
set(re "storage folded: only the run uses [a-z ]+: each kept as a ring per thread")
set(want "storage folded: only the run uses d s: each kept as a ring per thread"
         "storage folded: only the run uses t: each kept as a ring per thread")
paracc_expect_explain("${re}" "${want}" --target c)
