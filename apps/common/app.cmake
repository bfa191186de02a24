# morph_add_app(NAME SOURCES... [LIBS base...]) builds NAME.<flavour> for every
# MPI flavour with libmorph and libmorph-prof, linked with the shared helpers and, for each
# base name in LIBS, the library <base>_<flavour>. Included by every example's
# CMakeLists.txt (the folders are visited in alphabetical order, so the
# function cannot be defined once in apps/common).
#
# -ffp-contract=off keeps the compiler from fusing a multiply and an add in
# one place and not in another: the examples compare their results bitwise
# with a serial recomputation of the same arithmetic.
function(morph_add_app name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  foreach(fl ${MORPH_MPI_FLAVORS})
    if(NOT TARGET morph_${fl})
      continue()
    endif()
    add_executable(${name}.${fl} ${A_SOURCES})
    target_compile_options(${name}.${fl} PRIVATE -ffp-contract=off)
    set(libs app_common_${fl})
    foreach(l ${A_LIBS})
      list(APPEND libs ${l}_${fl})
    endforeach()
    # libmorph-prof measures MPI time, which libmorph reports to morphd for
    # the efficiency-driven policies (docs/workload-comparison.md).
    target_link_libraries(${name}.${fl} PRIVATE ${libs} morph_prof_${fl} morph_${fl}
                                                morph::mpi_${fl} m)
  endforeach()
endfunction()
