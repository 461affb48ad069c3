"""Builds libspatialmedia with SwiftPM and puts it inside the wheel (spatialmedia/_lib/).

On Linux the library is relinked with `-static-stdlib`, so the Swift runtime is inside it and nothing from
the Swift toolchain directory is needed at run time; the build fails if the result still needs a
toolchain library. The codec libraries (libde265, libx265, libturbojpeg, libpng) are not linked: the
library opens them with dlopen at first use (Sources/Codecs/Libraries.swift).

Environment:
  SPATIALMEDIA_SWIFT_CONFIG   release (default) or debug
  SPATIALMEDIA_SWIFT_SCRATCH  SwiftPM scratch directory (default .build-wheel, apart from `swift build`'s
                              .build so the two do not rebuild each other)
  SWIFT                       the swift driver (default: swift on PATH)
"""
import atexit
import os
import platform
import shutil
import subprocess
import sys
import tempfile

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70
    from wheel.bdist_wheel import bdist_wheel  # type: ignore

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBNAME = "libspatialmedia.dylib" if sys.platform == "darwin" else "libspatialmedia.so"
# Libraries of the Swift toolchain that must not be needed by the bundled library.
TOOLCHAIN_LIBS = ("libswift", "libdispatch", "libBlocksRuntime", "libFoundation", "lib_Foundation", "libicu")


def _run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def _needed(path):
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line and "[" in line]


def build_library(dest_dir):
    swift = os.environ.get("SWIFT", "swift")
    config = os.environ.get("SPATIALMEDIA_SWIFT_CONFIG", "release")
    scratch = os.environ.get("SPATIALMEDIA_SWIFT_SCRATCH", os.path.join(ROOT, ".build-wheel"))
    base = [swift, "build", "-c", config, "--scratch-path", scratch]
    _run(base + ["--product", "spatialmedia"])
    bindir = _run(base + ["--show-bin-path"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    os.makedirs(dest_dir, exist_ok=True)
    dest = os.path.join(dest_dir, LIBNAME)
    if sys.platform == "darwin":
        shutil.copy2(os.path.join(bindir, LIBNAME), dest)  # the Swift runtime is part of macOS
        return dest
    # Relink the objects SwiftPM just built with the Swift runtime linked in statically.
    filelist = os.path.join(bindir, "spatialmedia.product", "Objects.LinkFileList")
    if not os.path.exists(filelist):
        raise RuntimeError(f"{filelist} not found: SwiftPM's layout changed")
    swiftc = os.path.join(os.path.dirname(shutil.which(swift) or swift), "swiftc")
    triple = os.path.basename(os.path.dirname(bindir)) or f"{platform.machine()}-unknown-linux-gnu"
    _run([swiftc, "-emit-library", "-static-stdlib", "-module-name", "spatialmedia", "-target", triple,
          "-Xlinker", "--gc-sections", "-Xlinker", "-rpath=$ORIGIN", "-o", dest, "@" + filelist])
    if os.environ.get("SPATIALMEDIA_STRIP", "1") != "0" and shutil.which("strip"):
        _run(["strip", "--strip-unneeded", dest])
    bad = [n for n in _needed(dest) if n.startswith(TOOLCHAIN_LIBS)]
    if bad:
        raise RuntimeError(f"{dest} still needs Swift toolchain libraries: {', '.join(bad)}")
    return dest


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        if not self.dry_run:
            build_library(os.path.join(self.build_lib, "spatialmedia", "_lib"))


class BinaryDistribution(Distribution):
    """Holds a native library: built into the platform directory, installed into platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """The wheel holds a native library but no CPython extension: any Python 3, this platform only."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


# setuptools' intermediate tree goes to a private temporary directory instead of ./build, so that two builds
# from one checkout (CI and a developer, `pip wheel` and `pip install .`) never share or delete it.
BUILD_BASE = tempfile.mkdtemp(prefix="spatialmedia-build-")
atexit.register(shutil.rmtree, BUILD_BASE, True)

setup(options={"build": {"build_base": BUILD_BASE}}, distclass=BinaryDistribution, cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
