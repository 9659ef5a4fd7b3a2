# Which clamps the C target's lanes split off in lane_clamps.pc (--explain):
# every clamp of a column that moves evenly from lane to lane and whose
# bounds are known before the row's lanes (before each run of them where the
# lanes run 16 at a time), none of a local of the body that differs between
# lanes; none of it at -O0, with
# -fno-split-clamps or on the device targets. lane_clamps.pc itself checks
# the values.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
set(re "clamps: [^\n]*")
set(tail " split off: the lanes where each is its value run without it (-fno-split-clamps: in every lane)")
set(want "clamps: 3${tail}" "clamps: 3${tail}" "clamps: 2${tail}" "clamps: 2${tail}" "clamps: 2${tail}"
         "clamps: 1${tail}" "clamps: 1${tail}" "clamps: 2${tail}" "clamps: 1${tail}" "clamps: 1${tail}"
         "clamps: 1${tail}")
paracc_expect_explain("${re}" "${want}" --target c)
paracc_expect_explain("${re}" "${want}" --target c -O1)
paracc_expect_explain("${re}" "" --target c -O0)
paracc_expect_explain("${re}" "" --target c -fno-split-clamps)
paracc_expect_explain("${re}" "" --target opencl)
