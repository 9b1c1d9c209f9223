"""A minimal PEP 517 build backend for octet-extension-sdk, standard library only.

Why not setuptools: pip builds in an isolated environment and would download setuptools into it,
which fails offline; this backend has no build requirements at all. It packages the pure-Python
`octet_extension` package as a py3-none-any wheel (and an sdist of the project directory). The
name and version come from pyproject.toml's [project] table, read with a tiny parser because
tomllib only exists from Python 3.11.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "octet_extension"


def _project():
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^(\w[\w-]*)\s*=\s*"([^"]*)"', section, re.M))
    return fields["name"], fields["version"], fields.get("description", ""), fields.get("requires-python", "")


def _dist_name():
    name, version, _, _ = _project()
    return re.sub(r"[-_.]+", "_", name), version


def _metadata():
    name, version, summary, requires = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Summary: {summary}"]
    if requires:
        lines.append(f"Requires-Python: {requires}")
    return "\n".join(lines) + "\n"


def _files():
    base = os.path.join(ROOT, PACKAGE)
    for folder, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py") or n == "py.typed":
                path = os.path.join(folder, n)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{arcname},sha256={digest},{len(data)}"


def _write_dist_info(directory):
    dist, version = _dist_name()
    info = f"{dist}-{version}.dist-info"
    os.makedirs(os.path.join(directory, info), exist_ok=True)
    with open(os.path.join(directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return info


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist, version = _dist_name()
    info = f"{dist}-{version}.dist-info"
    wheel_name = f"{dist}-{version}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
        def add(arcname, data):
            whl.writestr(arcname, data)
            records.append(_record_line(arcname, data))
        for arcname, path in _files():
            with open(path, "rb") as f:
                add(arcname, f.read())
        add(f"{info}/METADATA", _metadata().encode("utf-8"))
        add(f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: octet_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        records.append(f"{info}/RECORD,,")
        whl.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    dist, version = _dist_name()
    base = f"{dist}-{version}"
    with tarfile.open(os.path.join(sdist_directory, f"{base}.tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in ["pyproject.toml", "_build/octet_build.py"] + [a for a, _ in _files()]:
            tar.add(os.path.join(ROOT, rel), arcname=f"{base}/{rel}")
        pkg_info = ("Metadata-Version: 2.1\n" + _metadata().split("\n", 1)[1]).encode("utf-8")
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(pkg_info)
        tar.addfile(entry, io.BytesIO(pkg_info))
    return f"{base}.tar.gz"


if __name__ == "__main__":
    # python3 sdk/python/_build/octet_build.py DIR: the wheel into DIR without pip (a bare python3
    # has no pip on Debian); prints the wheel's path.
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: python3 octet_build.py DIR  (writes the octet-extension-sdk wheel into DIR)")
    os.makedirs(sys.argv[1], exist_ok=True)
    print(os.path.join(sys.argv[1], build_wheel(sys.argv[1])))
