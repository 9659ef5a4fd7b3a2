# Which runs of thread_strips.pc give each thread strips of its own
# (--explain): the C target from -O1; not at -O0, with -fno-thread-strips,
# -fno-strips, -fno-fold-storage or -fno-skip-zeroing, nor on a device
# target; the two runs whose threads must share each strip say why.
# thread_strips.pc itself checks the values with 1 to 4 threads in strips
# of several heights.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "stage 1 of [0-9]+ iterators run strip by strip from line [0-9]+, a thread running every stage over its own strips; for a strip of rows \\[r, r \\+ S\\) it computes rows \\[r [-+] [0-9]+, r \\+ S [-+] [0-9]+\\)")
set(want "stage 1 of 3 iterators run strip by strip from line 47, a thread running every stage over its own strips; for a strip of rows [r, r + S) it computes rows [r + 0, r + S + 4)"
         "stage 1 of 2 iterators run strip by strip from line 61, a thread running every stage over its own strips; for a strip of rows [r, r + S) it computes rows [r - 1, r + S + 1)"
         "stage 1 of 4 iterators run strip by strip from line 68, a thread running every stage over its own strips; for a strip of rows [r, r + S) it computes rows [r - 6, r + S + 3)"
         "stage 1 of 6 iterators run strip by strip from line 77, a thread running every stage over its own strips; for a strip of rows [r, r + S) it computes rows [r - 5, r + S + 8)")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-thread-strips)
paracc_expect_explain("${re}" "" --target c -fno-strips)
paracc_expect_explain("${re}" "" --target c -fno-fold-storage)
paracc_expect_explain("${re}" "" --target c -fno-skip-zeroing)
paracc_expect_explain("${re}" "" --target opencl)
set(re "strips of each thread's own: no \\([a-z ,']+")
set(want "strips of each thread's own: no (a stage that touches side, which is not the run's alone, computes rows beyond its strip for the stages after it"
         "strips of each thread's own: no (t is neither the run's alone, written before read, nor touched at each stage's own row only")
paracc_expect_explain("${re}" "${want}" --target c)
set(re "storage folded: only the run uses [a-z ]+: each kept as a ring per thread")
set(want "storage folded: only the run uses g d: each kept as a ring per thread"
         "storage folded: only the run uses t: each kept as a ring per thread"
         "storage folded: only the run uses p q r: each kept as a ring per thread"
         "storage folded: only the run uses a b: each kept as a ring per thread")
paracc_expect_explain("${re}" "${want}" --target c)
