"""PEP 517 build backend for the memwall Python module.

pip calls build_wheel(); it configures CMake with this interpreter (only the module target, no
tests or benchmarks), builds `memwall_python`, and packs the extension module into a wheel by the
binary distribution format (PEP 427: the module at the root, a .dist-info folder with METADATA,
WHEEL and a RECORD of sha256 digests). Written by hand because the usual CMake backends are not
installable from Debian 12's archive, and pip's build isolation offers no other index here.
"""

import base64
import io
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NAME = "memwall"


def _version():
    with open(os.path.join(_ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(memwall VERSION ([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("memwall_build: no 'project(memwall VERSION x.y.z' in CMakeLists.txt")
    return m.group(1)


def _wheel_tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, plat)


def _metadata():
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\n"
        "Version: %s\n"
        "Summary: What hardware an LLM workload needs, how fast it runs, what it costs\n"
        "Requires-Python: >=3.9\n" % (_NAME, _version())
    )


def _run(cmd):
    print("memwall_build:", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, cwd=_ROOT, stdout=sys.stderr)


def _build_module():
    """Builds the extension module for this interpreter; returns its path."""
    # One level below the checkout, like build/: the compile commands (relative to the build folder
    # under ccache's CCACHE_BASEDIR) then match the release build's, so a warm cache skips the library.
    build_dir = os.path.join(_ROOT, "build-python-cp%d%d" % sys.version_info[:2])
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(["cmake", "-S", _ROOT, "-B", build_dir, *generator,
          "-DCMAKE_BUILD_TYPE=Release", "-DMEMWALL_PYTHON=ON", "-DMEMWALL_TESTS=OFF",
          "-DMEMWALL_BENCH=OFF", "-DPython3_EXECUTABLE=" + sys.executable])
    _run(["cmake", "--build", build_dir, "--target", "memwall_python"])
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    module = os.path.join(build_dir, "python", _NAME + suffix)
    if not os.path.isfile(module):
        raise RuntimeError("memwall_build: CMake did not produce " + module)
    return module


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module = _build_module()
    tag = _wheel_tag()
    dist_info = "%s-%s.dist-info" % (_NAME, _version())
    wheel_name = "%s-%s-%s.whl" % (_NAME, _version(), tag)
    files = []
    with open(module, "rb") as f:
        files.append((os.path.basename(module), f.read()))
    files.append((dist_info + "/METADATA", _metadata().encode()))
    files.append((dist_info + "/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: memwall_build\nRoot-Is-Purelib: false\nTag: %s\n" % tag
    ).encode()))
    record = [_record_line(name, data) for name, data in files]
    record.append(dist_info + "/RECORD,,")
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked source tree (git ls-files when a checkout, else the tree less build folders)."""
    base = "%s-%s" % (_NAME, _version())
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=_ROOT, check=True,
                                capture_output=True).stdout.decode().split("\0")
        names = [n for n in listed if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for dirpath, dirnames, filenames in os.walk(_ROOT):
            dirnames[:] = [d for d in dirnames if not d.startswith(("build", ".git", "node_modules"))]
            names += [os.path.relpath(os.path.join(dirpath, f), _ROOT) for f in filenames]
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz") as t:
        for n in sorted(names):
            t.add(os.path.join(_ROOT, n), arcname=base + "/" + n, recursive=False)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The .dist-info folder alone, so pip learns the metadata without building the module."""
    dist_info = "%s-%s.dist-info" % (_NAME, _version())
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return dist_info
