# What the Fortran and Python bindings (src/fortran, src/python) need, found
# once for the whole build. Each binding is built when its tools are there
# (scripts/setup.sh installs them), and in neither sanitizer nor fuzzing
# builds: their programs are not instrumented and could not load an
# instrumented library, and a Python extension cannot load ASan first.
#
#   MORPH_FORTRAN_FLAVORS   MPI flavours with a Fortran wrapper (mpif90)
#   morph::mpif_<flavour>   that MPI's Fortran module folder and libraries
#   MORPH_FORTRAN_TAG       the compiler's module format, naming the folder
#                           the .mod files are installed in
#   MORPH_PYTHON            Debian's /usr/bin/python3 (its mpi4py and NumPy;
#                           not a python3 of PATH, which may be another one)
#   MORPH_PYTHON_FLAVOR     the MPI flavour mpi4py is built with (ompi for
#                           Debian's), or empty: no Python binding
#   MORPH_PYTHON_INCLUDES   Python's, mpi4py's and NumPy's header folders
#   MORPH_PYTHON_EXT_SUFFIX the extension module's suffix
set(MORPH_FORTRAN_FLAVORS "")
set(MORPH_PYTHON_FLAVOR "")
if(MORPH_SANITIZE OR MORPH_FUZZ)
  return()
endif()

include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
endif()

# morph::mpif_<fl> from the flavour's Fortran wrapper: its -I folders
# (where mpi_f08.mod is; Open MPI's pkg-config module lacks it) for Fortran
# sources only, and its -l libraries found in its -L folders.
function(morph_fortran_mpi fl wrapper compile_flag link_flag)
  find_program(MORPH_MPIF90_${fl} NAMES ${wrapper})
  if(NOT MORPH_MPIF90_${fl})
    return()
  endif()
  execute_process(COMMAND ${MORPH_MPIF90_${fl}} ${compile_flag} OUTPUT_VARIABLE cflags
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc1)
  execute_process(COMMAND ${MORPH_MPIF90_${fl}} ${link_flag} OUTPUT_VARIABLE lflags
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc2)
  if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
    return()
  endif()
  separate_arguments(words UNIX_COMMAND "${cflags} ${lflags}")
  set(incs "")
  set(dirs "")
  set(names "")
  foreach(w ${words})
    if(w MATCHES "^-I(.+)")
      list(APPEND incs "$<$<COMPILE_LANGUAGE:Fortran>:${CMAKE_MATCH_1}>")
    elseif(w MATCHES "^-L(.+)")
      list(APPEND dirs ${CMAKE_MATCH_1})
    elseif(w MATCHES "^-l(.+)")
      list(APPEND names ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set(libs "")
  foreach(n ${names})
    find_library(MORPH_MPIF_LIB_${fl}_${n} NAMES ${n} HINTS ${dirs})
    if(MORPH_MPIF_LIB_${fl}_${n})
      list(APPEND libs ${MORPH_MPIF_LIB_${fl}_${n}})
    endif()
  endforeach()
  add_library(morph::mpif_${fl} INTERFACE IMPORTED GLOBAL)
  set_target_properties(morph::mpif_${fl} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${incs}"
                        INTERFACE_LINK_LIBRARIES "${libs}")
  set(MORPH_FORTRAN_FLAVORS ${MORPH_FORTRAN_FLAVORS} ${fl} PARENT_SCOPE)
endfunction()

if(CMAKE_Fortran_COMPILER)
  if(ompi IN_LIST MORPH_MPI_FLAVORS)
    morph_fortran_mpi(ompi "mpif90.openmpi;mpifort.openmpi" -showme:compile -showme:link)
  endif()
  if(mpich IN_LIST MORPH_MPI_FLAVORS)
    morph_fortran_mpi(mpich "mpif90.mpich;mpifort.mpich" -compile-info -link-info)
  endif()
endif()
if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
  # gfortran 8 to 14 all write module format 15 (Debian's gfortran-mod-15).
  set(MORPH_FORTRAN_TAG gfortran-mod-15)
elseif(CMAKE_Fortran_COMPILER)
  string(TOLOWER "${CMAKE_Fortran_COMPILER_ID}-${CMAKE_Fortran_COMPILER_VERSION}" MORPH_FORTRAN_TAG)
endif()
message(STATUS "morph: Fortran bindings for: ${MORPH_FORTRAN_FLAVORS}")

# Python: Debian's interpreter and its mpi4py (whose MPI decides the
# flavour the extension is built for: it shares the process with it).
set(MORPH_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with mpi4py and NumPy (Debian's)")
set(probe [=[
import importlib.util, sysconfig
import mpi4py, numpy
print(mpi4py.get_include()); print(numpy.get_include())
print(sysconfig.get_paths()["include"]); print(sysconfig.get_config_var("EXT_SUFFIX"))
print(importlib.util.find_spec("mpi4py.MPI").origin)
]=])
execute_process(COMMAND ${MORPH_PYTHON} -c "${probe}" OUTPUT_VARIABLE out ERROR_QUIET
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc EQUAL 0)
  string(REPLACE "\n" ";" out "${out}")
  list(GET out 0 1 2 MORPH_PYTHON_INCLUDES)
  list(GET out 3 MORPH_PYTHON_EXT_SUFFIX)
  list(GET out 4 mpi4py_so)
  execute_process(COMMAND ldd ${mpi4py_so} OUTPUT_VARIABLE libs ERROR_QUIET)
  if(libs MATCHES "libmpich\\.so" AND mpich IN_LIST MORPH_MPI_FLAVORS)
    set(MORPH_PYTHON_FLAVOR mpich)
  elseif(libs MATCHES "libmpi\\.so" AND ompi IN_LIST MORPH_MPI_FLAVORS)
    set(MORPH_PYTHON_FLAVOR ompi)
  endif()
endif()
message(STATUS "morph: Python binding: ${MORPH_PYTHON} with mpi4py for '${MORPH_PYTHON_FLAVOR}'")

# morph_add_fortran_program(NAME FLAVOUR SOURCES...): NAME, a Fortran MPI
# program using morph_f08 (or morph) for that flavour, with the examples'
# module app_pause (apps/common/pause.f90) and libmorph-prof (MPI time).
# Each program gets its own module folder: targets of one CMakeLists would
# otherwise write the same app_pause.mod at once. -ffp-contract=off as for
# the C examples (apps/common/app.cmake): checks are bitwise.
function(morph_add_fortran_program name fl)
  add_executable(${name} ${ARGN} ${CMAKE_SOURCE_DIR}/apps/common/pause.f90)
  set_target_properties(${name} PROPERTIES Fortran_MODULE_DIRECTORY
                        ${CMAKE_CURRENT_BINARY_DIR}/mod-${name})
  target_compile_options(${name} PRIVATE -ffp-contract=off)
  target_link_libraries(${name} PRIVATE morph_fortran_${fl} morph_prof_${fl} morph::mpif_${fl})
endfunction()
