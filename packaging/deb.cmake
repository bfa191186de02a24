# The Debian package: `cpack -G DEB` in the build folder (or
# `cmake --build build --target package`) writes morph_<version>_<arch>.deb,
# installable with `apt install ./morph_*.deb`. One package holds the
# libraries, headers, tools, man pages and docs; its library dependencies
# come from dpkg-shlibdeps, and CPack's postinst runs ldconfig.
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
include(CPack)
