# The Python package: python/parac (pure Python) and its C extension
# parac._parac (src/python/module.c) linked with the static library. Built
# where Python's development files are found (the project's .venv first, as
# the tests use it), never in the sanitizer builds (an instrumented module
# cannot load into a plain interpreter). `pip install .` (pyproject.toml)
# drives this file through scikit-build-core.
option(PARAC_PYTHON "Build the Python extension when Python's development files are found" ON)
set(PARAC_HAVE_PYTHON_MODULE OFF)
if(PARAC_PYTHON AND NOT PARAC_SANITIZE AND NOT PARAC_TSAN)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python)
    set(Python3_EXECUTABLE ${PROJECT_SOURCE_DIR}/.venv/bin/python)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_Development.Module_FOUND)
    set(PARAC_HAVE_PYTHON_MODULE ON)
    Python3_add_library(parac_python MODULE WITH_SOABI ${PROJECT_SOURCE_DIR}/src/python/module.c
      ${PROJECT_SOURCE_DIR}/src/python/cuda_array.c ${PROJECT_SOURCE_DIR}/src/python/ops.c
      ${PROJECT_SOURCE_DIR}/src/python/errors.c ${PROJECT_SOURCE_DIR}/src/python/copy.c)
    set_target_properties(parac_python PROPERTIES OUTPUT_NAME _parac
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python/parac C_VISIBILITY_PRESET hidden)
    target_link_libraries(parac_python PRIVATE parac_static)
    target_compile_options(parac_python PRIVATE ${PARAC_C_WARNINGS})
    # the package's Python files beside the module, so build/python is importable
    file(GLOB parac_py_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/parac/*.py ${PROJECT_SOURCE_DIR}/python/parac/*.cu)
    add_custom_target(parac_python_files ALL
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/python/parac
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${parac_py_files} ${PROJECT_BINARY_DIR}/python/parac/)
    add_dependencies(parac_python parac_python_files)
    # the type stub, generated from the registry by the module just built
    set(parac_stub ${PROJECT_BINARY_DIR}/python/parac/__init__.pyi)
    add_custom_command(OUTPUT ${parac_stub}
      COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_BINARY_DIR}/python
        ${Python3_EXECUTABLE} -c "import sys, parac._registry as r; r.write_stub(sys.argv[1])" ${parac_stub}
      DEPENDS parac_python parac_python_files ${parac_py_files}
      COMMENT "parac/__init__.pyi from the operation registry" VERBATIM)
    add_custom_target(parac_python_stub ALL DEPENDS ${parac_stub})
    # where parac.compile(target='opencl') finds the headers and the shared
    # library in the build tree (an installed package has them inside)
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/python/parac/_build_paths.py CONTENT
"\"\"\"The build tree's headers and shared library (written by CMake; not installed).\"\"\"
INCLUDE_DIRS = [\"${PROJECT_SOURCE_DIR}/include\", \"${PROJECT_BINARY_DIR}/include\"]
LIB_DIR = \"$<TARGET_FILE_DIR:parac_shared>\"
")
    if(SKBUILD)
      install(TARGETS parac_python LIBRARY DESTINATION parac COMPONENT python)
      install(FILES ${PROJECT_BINARY_DIR}/python/parac/__init__.pyi DESTINATION parac COMPONENT python)
      if(TARGET paracc) # parac.compile runs it
        install(TARGETS paracc RUNTIME DESTINATION parac/bin COMPONENT python)
      endif()
      # parac.compile(target='opencl') links paracc's host code with these.
      # One file under its soname: a wheel holds no symbolic links, so the
      # usual three names would be three copies of the library.
      install(FILES $<TARGET_FILE:parac_shared> DESTINATION parac/lib RENAME $<TARGET_SONAME_FILE_NAME:parac_shared>
              COMPONENT python)
      install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/parac DESTINATION parac/include COMPONENT python
              FILES_MATCHING PATTERN "*.h")
      install(FILES ${PROJECT_BINARY_DIR}/include/parac/config.h DESTINATION parac/include/parac COMPONENT python)
    endif()
  endif()
endif()
