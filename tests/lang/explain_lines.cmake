# The lines of `paracc SRC --explain ARGS` that match REGEX, into OUT (a
# failing paracc fails the test). Shared by the check_*.cmake scripts.
function(paracc_explain_lines out regex)
  execute_process(COMMAND ${PARACC} ${SRC} --explain -o ${WORK}/explain_lines ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "paracc --explain ${ARGN}: exit ${rc}\n${err}")
  endif()
  string(REGEX MATCHALL "${regex}" found "${text}")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Fails unless `paracc SRC --explain ARGS` prints exactly the lines WANT (a
# list; "" for none) that match REGEX.
function(paracc_expect_explain regex want)
  paracc_explain_lines(found "${regex}" ${ARGN})
  if(NOT "${found}" STREQUAL "${want}")
    message(FATAL_ERROR "paracc ${ARGN}: --explain printed\n  ${found}\nexpected\n  ${want}")
  endif()
endfunction()
