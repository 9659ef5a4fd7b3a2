# Which iterators of strips.pc run in strips of rows (--explain): the C
# target from -O1, not at -O0, with -fno-strips or on a device target;
# rewritten's run stops before the stage that writes its rules' matrix
# again; planes' 3D output, which only its writer touches, orders nothing.
# strips.pc itself checks the values in strips of several heights.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "strips of rows: stage 1 of [0-9]+ iterators run strip by strip from line [0-9]+")
set(want "strips of rows: stage 1 of 3 iterators run strip by strip from line 35"
         "strips of rows: stage 1 of 2 iterators run strip by strip from line 42"
         "strips of rows: stage 1 of 5 iterators run strip by strip from line 49"
         "strips of rows: stage 1 of 2 iterators run strip by strip from line 59"
         "strips of rows: stage 1 of 2 iterators run strip by strip from line 73"
         "strips of rows: stage 1 of 2 iterators run strip by strip from line 79"
         "strips of rows: stage 1 of 2 iterators run strip by strip from line 88")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-strips)
paracc_expect_explain("${re}" "" --target opencl)
# storage folding: the declared matrices only a run uses, every element
# written before any is read, kept as rings of rows (not ranges' d, read at
# a column its writer leaves; not rules' t, read through rules for rows)
set(re "storage folded: only the run uses [a-z ]+:")
set(want "storage folded: only the run uses g:" "storage folded: only the run uses a b:"
         "storage folded: only the run uses t:")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "" --target c -fno-fold-storage)
paracc_expect_explain("${re}" "" --target c -fno-skip-zeroing)
paracc_expect_explain("${re}" "" --target c -fno-strips)
