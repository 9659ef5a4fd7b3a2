# Run paracc on an erroneous program: it must fail with status 1, print every
# "// expect: ..." line of the file among its diagnostics, and write nothing.
# an earlier build's output of a program that compiled then must not count
file(REMOVE ${OUT}.c ${OUT}.cl ${OUT}.cu)
execute_process(COMMAND ${PARACC} ${SRC} --target ${TARGET} -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "paracc exited with '${rc}', expected 1\n${err}")
endif()
file(STRINGS ${SRC} expects REGEX "^// expect: ")
if(NOT expects)
  message(FATAL_ERROR "${SRC} has no '// expect:' line")
endif()
foreach(line ${expects})
  string(REGEX REPLACE "^// expect: " "" want "${line}")
  string(FIND "${err}" "${want}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "missing diagnostic: ${want}\n--- got:\n${err}")
  endif()
endforeach()
if(EXISTS ${OUT}.c OR EXISTS ${OUT}.cl OR EXISTS ${OUT}.cu)
  message(FATAL_ERROR "paracc wrote output despite errors")
endif()
