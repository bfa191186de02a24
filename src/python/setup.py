"""Builds the package morph for mpi4py programs against an installed morph
(cmake --install, or the morph .deb): its pkg-config file gives the
compile and link lines. From the source tree, without network:

    PKG_CONFIG_PATH=<prefix>/lib/pkgconfig /usr/bin/python3 -m pip install \\
        --no-build-isolation --no-index --target <folder> src/python

The MPI flavour is the one mpi4py is built with (MORPH_FLAVOUR=ompi|mpich
overrides); docs/python.md.
"""
import importlib.util
import os
import subprocess

import mpi4py
import numpy
from setuptools import Extension, setup


def flavour():
    """ompi or mpich: the MPI library mpi4py's extension links."""
    if os.environ.get("MORPH_FLAVOUR"):
        return os.environ["MORPH_FLAVOUR"]
    libs = subprocess.run(["ldd", importlib.util.find_spec("mpi4py.MPI").origin],
                          capture_output=True, text=True).stdout
    return "mpich" if "libmpich.so" in libs else "ompi"


def pkg_config(*args):
    out = subprocess.run(["pkg-config", *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"setup.py: pkg-config {' '.join(args)} failed: {out.stderr.strip()} "
                         "(install morph first and point PKG_CONFIG_PATH at its lib/pkgconfig)")
    return out.stdout.split()


here = os.path.dirname(os.path.abspath(__file__))
module = f"morph-{flavour()}"
libdirs = [w[2:] for w in pkg_config("--libs-only-L", module)]
setup(
    name="morph",
    version=pkg_config("--modversion", module)[0],
    description="malleable MPI programs for mpi4py: morph's native API as Python",
    packages=["morph"],
    package_dir={"morph": os.path.join(here, "morph")},
    ext_modules=[Extension(
        "morph._morph",
        sources=[os.path.join("ext", f) for f in ("module.c", "context.c", "data.c", "state.c")],
        include_dirs=[os.path.join(here, "ext"), mpi4py.get_include(), numpy.get_include()]
        + [w[2:] for w in pkg_config("--cflags-only-I", module)],
        library_dirs=libdirs,
        runtime_library_dirs=libdirs,
        libraries=[w[2:] for w in pkg_config("--libs-only-l", module)],
    )],
)
