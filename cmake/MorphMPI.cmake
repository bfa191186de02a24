# Debian ships Open MPI and MPICH side by side; morph builds every MPI target
# once per implementation so that one CTest run exercises both.
#
#   MORPH_MPI_FLAVORS        list of found flavours: ompi mpich
#   morph::mpi_<flavour>     imported target with that MPI's headers and libs
#   MORPH_MPIRUN_<flavour>   its launcher
find_package(PkgConfig REQUIRED)
set(MORPH_MPI_FLAVORS "")
pkg_check_modules(MORPH_OMPI IMPORTED_TARGET ompi-c)
if(MORPH_OMPI_FOUND)
  find_program(MORPH_MPIRUN_ompi NAMES mpirun.openmpi mpirun)
  add_library(morph::mpi_ompi ALIAS PkgConfig::MORPH_OMPI)
  list(APPEND MORPH_MPI_FLAVORS ompi)
endif()
pkg_check_modules(MORPH_MPICH IMPORTED_TARGET mpich)
if(MORPH_MPICH_FOUND)
  find_program(MORPH_MPIRUN_mpich NAMES mpiexec.mpich mpiexec.hydra)
  add_library(morph::mpi_mpich ALIAS PkgConfig::MORPH_MPICH)
  list(APPEND MORPH_MPI_FLAVORS mpich)
endif()
if(NOT MORPH_MPI_FLAVORS)
  message(FATAL_ERROR "morph needs Open MPI or MPICH: run scripts/setup.sh")
endif()
message(STATUS "morph: MPI flavours: ${MORPH_MPI_FLAVORS}")

# morph_add_mpi_executable(NAME SOURCES... LIBS ...) builds NAME.<flavour>
# for every flavour, linked with libmorph and libmorph-prof (MPI time, for
# the policies) built for the same MPI.
function(morph_add_mpi_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  foreach(fl ${MORPH_MPI_FLAVORS})
    add_executable(${name}.${fl} ${A_SOURCES})
    target_link_libraries(${name}.${fl} PRIVATE morph_prof_${fl} morph_${fl} morph::mpi_${fl}
                                                ${A_LIBS} m)
  endforeach()
endfunction()
