# The Fortran and Python bindings as installed (docs/fortran.md,
# docs/python.md); included by packaging/CMakeLists.txt once the C
# libraries exist.
#
# Fortran, per flavour with the modules (src/fortran), MORPH_FORTRAN_TAG
# naming the compiler's module format (cmake/MorphLanguages.cmake):
#   libmorph-<fl>-f08.so (SONAME .so.0) and .a: the modules' code and their
#     C side, linked with libmorph-<fl>.so; exports only the modules'
#     symbols (libmorph-f08.map)
#   morph.mod, morph_f08.mod in <libdir>/fortran/<compiler>/morph-<fl>/ (a
#     module file belongs to one compiler's module format and one MPI's
#     mpi_f08.mod; Debian keeps MPI's own in the same kind of folder)
#   morph-<fl>-f08.pc; the CMake target morph::<fl>_f08 (and _f08_static)
# Python: the package morph in MORPH_PYTHON_DIR (src/python), component
# `python`, which deb.cmake makes the package python3-morph.
set(MORPH_BUILT_FORTRAN "")
foreach(fl ${MORPH_FORTRAN_FLAVORS})
  if(NOT TARGET morph_fortran_${fl} OR NOT TARGET morph_lib_${fl})
    continue()
  endif()
  set(moddir ${CMAKE_INSTALL_LIBDIR}/fortran/${MORPH_FORTRAN_TAG}/morph-${fl})
  add_library(morph_lib_${fl}_f08 SHARED $<TARGET_OBJECTS:morph_fortran_${fl}>)
  add_library(morph_lib_${fl}_f08_static STATIC $<TARGET_OBJECTS:morph_fortran_${fl}>)
  foreach(t morph_lib_${fl}_f08 morph_lib_${fl}_f08_static)
    set_target_properties(${t} PROPERTIES OUTPUT_NAME morph-${fl}-f08 LINKER_LANGUAGE Fortran
                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
                          ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
    # mpi_f08's module folder: a program using morph_f08 uses mpi_f08.
    get_target_property(mpif_incs morph::mpif_${fl} INTERFACE_INCLUDE_DIRECTORIES)
    get_target_property(mpif_libs morph::mpif_${fl} INTERFACE_LINK_LIBRARIES)
    target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${moddir}> ${mpif_incs})
  endforeach()
  set_target_properties(morph_lib_${fl}_f08 PROPERTIES EXPORT_NAME ${fl}_f08
                        VERSION ${PROJECT_VERSION} SOVERSION ${MORPH_SOVERSION}
                        LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/libmorph-f08.map)
  set_target_properties(morph_lib_${fl}_f08_static PROPERTIES EXPORT_NAME ${fl}_f08_static)
  target_link_options(morph_lib_${fl}_f08 PRIVATE
                      -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/libmorph-f08.map
                      -Wl,--no-undefined)
  target_link_libraries(morph_lib_${fl}_f08 PUBLIC morph_lib_${fl} ${mpif_libs}
                        PRIVATE $<BUILD_INTERFACE:morph::mpi_${fl}>)
  target_link_libraries(morph_lib_${fl}_f08_static INTERFACE morph_lib_${fl}_static ${mpif_libs})
  install(TARGETS morph_lib_${fl}_f08 morph_lib_${fl}_f08_static EXPORT morphTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
  install(FILES ${CMAKE_BINARY_DIR}/fortran/${fl}/morph.mod ${CMAKE_BINARY_DIR}/fortran/${fl}/morph_f08.mod
          DESTINATION ${moddir} COMPONENT dev)
  set(MORPH_PC_FLAVOUR ${fl})
  set(MORPH_PC_MODDIR ${moddir})
  string(REGEX REPLACE "[^/]+" ".." MORPH_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  configure_file(morph-f08.pc.in ${CMAKE_CURRENT_BINARY_DIR}/morph-${fl}-f08.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/morph-${fl}-f08.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
  list(APPEND MORPH_BUILT_FORTRAN ${fl})
endforeach()

# The README's example in Fortran and Python, beside examples/minimal.c.
if(MORPH_BUILT_FORTRAN)
  install(FILES ${CMAKE_SOURCE_DIR}/examples/minimal.f90
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT doc)
endif()
if(TARGET morph_python)
  install(PROGRAMS ${CMAKE_SOURCE_DIR}/examples/minimal.py
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT doc)
endif()
