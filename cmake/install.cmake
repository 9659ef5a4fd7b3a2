# Installation: headers, both libraries, the CMake package and a pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/parac DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/parac/config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/parac)
install(TARGETS parac_static parac_shared EXPORT paracTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT paracTargets NAMESPACE parac:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parac)

configure_package_config_file(cmake/paracConfig.cmake.in
  ${PROJECT_BINARY_DIR}/paracConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parac)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/paracConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/paracConfig.cmake ${PROJECT_BINARY_DIR}/paracConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/parac)

# pkg-config: private dependencies matter for static linking.
set(PARAC_PC_PRIVATE "-lpng -ljpeg -lz -lfftw3f -lm")
if(PARAC_HAVE_TIFF)
  string(APPEND PARAC_PC_PRIVATE " -ltiff")
endif()
if(FFTW3F_OMP_LIB)
  string(APPEND PARAC_PC_PRIVATE " -lfftw3f_omp")
endif()
if(PARAC_HAVE_CUDA)
  string(APPEND PARAC_PC_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart_static -ldl -lrt -lpthread")
endif()
if(PARAC_HAVE_OPENCL)
  string(APPEND PARAC_PC_PRIVATE " -lOpenCL")
endif()
file(RELATIVE_PATH PARAC_PC_UP "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/parac.pc.in ${PROJECT_BINARY_DIR}/parac.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/parac.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
