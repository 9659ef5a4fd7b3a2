# Which iterators of hoist.pc have loads hoisted out of both arms of an if
# (--explain): `both`'s two elements only, on every target from -O1; none
# at -O0.
include(${CMAKE_CURRENT_LIST_DIR}/explain_lines.cmake)
macro(hoisted out)
  paracc_explain_lines(${out} "hoisted loads: [^\n]*" ${ARGN})
endmacro()
set(want "hoisted loads: 2 matrix elements that both arms of an if read, loaded before it")
foreach(args "--target;cuda" "--target;opencl" "--target;c" "--target;opencl;-O1")
  hoisted(found ${args})
  if(NOT found STREQUAL want)
    message(FATAL_ERROR "paracc ${args} hoisted:\n  ${found}\nexpected:\n  ${want}")
  endif()
endforeach()
hoisted(found --target cuda -O0)
if(found)
  message(FATAL_ERROR "paracc -O0 hoisted: ${found}")
endif()
