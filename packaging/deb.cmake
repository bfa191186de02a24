# The Debian packages: `cpack -G DEB` in the build folder (or
# `cmake --build build --target package`) writes morph_<version>_<arch>.deb,
# installable with `apt install ./morph_*.deb`, and, when the Python package
# is built, python3-morph_<version>_<arch>.deb. morph holds the libraries
# (the Fortran modules' too), headers, tools, man pages and docs (install
# components runtime, dev, doc); its library dependencies come from
# dpkg-shlibdeps, and CPack's postinst runs ldconfig. python3-morph holds
# the component python (src/python).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME morph)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "morph developers <morph@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "malleable MPI jobs: grow and shrink running MPI applications")
set(CPACK_PACKAGE_DESCRIPTION
    "morph makes MPI jobs malleable: libmorph-ompi and libmorph-mpich (with DMRlib, Elastic MPI \
and PCM compatible front-ends), the morph launcher and resource manager (morphd), the workload \
simulator, pkg-config files and a CMake package.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A launcher to run the jobs, and what the plots and the compile line need.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin | mpich")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot, pkg-config, libopenmpi-dev | libmpich-dev, libjansson-dev, libmunge-dev, libssl-dev")
set(CPACK_STRIP_FILES OFF)
# One package per group of install components.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL runtime dev doc)
foreach(c runtime dev doc)
  string(TOUPPER ${c} C)
  set(CPACK_COMPONENT_${C}_GROUP main)
endforeach()
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME morph)
if(TARGET morph_python)
  list(APPEND CPACK_COMPONENTS_ALL python)
  set(CPACK_COMPONENT_PYTHON_GROUP python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-morph)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(CPACK_COMPONENT_PYTHON_DESCRIPTION
      "malleable MPI jobs for mpi4py programs: the Python package morph (a context, NumPy \
arrays that follow the processes, the reconfiguration point), over libmorph.")
  # Its only library is morph's own, from the package beside it, which
  # dpkg-shlibdeps cannot see: the dependencies are written here.
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "morph (= ${PROJECT_VERSION}), python3 (>= 3.11), python3 (<< 3.12), python3-mpi4py, python3-numpy, libc6")
endif()
include(CPack)
