#!/usr/bin/env python3
"""Transcribe upstream SWE-bench material into lab's own data files.

Maintainer tool, run by hand; lab itself never reads ../shared.

    python3 scripts/swebench/transcribe.py [SHARED_DIR]

SHARED_DIR defaults to ../shared/swebench relative to the project root.  It
reads specs.json, lite_resolved_envs.json and lite_test_lists.json from there
(see data/swebench/README.md for what each holds), plus the build results in
data/swebench/build-check.json when present (written by a one-off build check), and
writes, deterministically (sorted keys, 2-space indent, trailing newline,
arrays of scalars folded onto one line when they fit in 100 columns, the way
prettier prints JSON):

    data/swebench/environments.json   instance_id -> environment recipe
    data/swebench/test-lists.json     instance_id -> FAIL_TO_PASS / PASS_TO_PASS

Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "data" / "swebench"

REPOS = (
    "psf/requests",
    "pallets/flask",
    "pylint-dev/pylint",
    "pytest-dev/pytest",
    "sphinx-doc/sphinx",
    "pydata/xarray",
)

# parse_log_* implementation name in specs.json -> lab's parser id.
PARSERS = {
    "parse_log_pytest": "pytest",
    "parse_log_pytest_options": "pytest_options",
    "parse_log_pytest_v2": "pytest_v2",
}

# ---------------------------------------------------------------------------
# conda -> PyPI mapping
#
# Every conda package name met in lite_resolved_envs.json must appear in
# exactly one of the tables below; an unknown name stops the script so that a
# maintainer classifies it by hand.
# ---------------------------------------------------------------------------

# Packages that exist on PyPI under the same name (compared after PEP 503
# normalisation): installed at the conda version.
SAME_NAME = {
    "affine", "aiobotocore", "aiohappyeyeballs", "aiohttp", "aioitertools", "aiosignal",
    "appdirs", "asciitree", "async-timeout", "attrs", "backports.zoneinfo", "beautifulsoup4",
    "bokeh", "boto3", "botocore", "bottleneck", "cartopy", "certifi", "cf-units", "cffi",
    "cfgrib", "cfgv", "cftime", "charset-normalizer", "click", "click-plugins", "cligj",
    "cloudpickle", "colorama", "contourpy", "coverage", "cycler", "cytoolz", "dask-expr",
    "distlib", "distributed", "docopt-ng", "exceptiongroup", "execnet", "fasteners",
    "filelock", "findlibs", "flexcache", "flexparser", "fonttools", "frozenlist", "fsspec",
    "future", "h2", "h5netcdf", "h5py", "hpack", "hyperframe", "hypothesis", "identify",
    "idna", "importlib-metadata", "importlib-resources", "iniconfig", "jinja2", "jmespath",
    "jsonschema", "jsonschema-specifications", "jupyter-core", "kiwisolver",
    "lazy-object-proxy", "llvmlite", "locket", "lxml", "lz4", "markupsafe", "multidict",
    "munkres", "nbformat", "nc-time-axis", "netcdf4", "nodeenv", "numba", "numcodecs",
    "numexpr", "packaging", "partd", "patsy", "pillow", "pint", "pkgutil-resolve-name",
    "platformdirs", "pluggy", "pooch", "pre-commit", "pseudonetcdf", "psutil", "pyarrow",
    "pyarrow-hotfix", "pycparser", "pydap", "pyparsing", "pyproj", "pyshp", "pysocks",
    "pytest", "pytest-cov", "pytest-env", "pytest-xdist", "pyyaml", "rasterio",
    "referencing", "requests", "rpds-py", "s3transfer", "seaborn", "setuptools", "shapely",
    "six", "snuggs", "sortedcontainers", "soupsieve", "sparse", "statsmodels", "tblib",
    "toml", "tomli", "toolz", "tornado", "traitlets", "typing-extensions", "ukkonen",
    "unicodedata2", "urllib3", "virtualenv", "webob", "wheel", "wrapt", "xyzservices",
    "yarl", "zarr", "zict", "zipp", "zstandard",
}

# conda name -> PyPI name, where they differ (a conda "metapackage" twin of a
# Python package maps to the same PyPI name and is merged with it).
RENAMED = {
    "antlr-python-runtime": "antlr4-python3-runtime",
    "brotli-python": "brotli",
    "cached-property": "cached-property",  # conda metapackage of cached_property
    "cached_property": "cached-property",
    "importlib_metadata": "importlib-metadata",
    "importlib_resources": "importlib-resources",
    "iris": "scitools-iris",
    "jupyter_core": "jupyter-core",
    "matplotlib-base": "matplotlib",
    "msgpack-python": "msgpack",
    "pyarrow-core": "pyarrow",  # conda split of the pyarrow wheel
    "python-eccodes": "eccodes",  # PyPI 'eccodes' is the Python binding
    "python-fastjsonschema": "fastjsonschema",
    "python-tzdata": "tzdata",  # PyPI 'tzdata' (conda 'tzdata' is the system zoneinfo)
    "python-xxhash": "xxhash",  # PyPI 'xxhash' is the Python binding
    "seaborn-base": "seaborn",
    "typing_extensions": "typing-extensions",
}

# Conda-internal or system packages: the interpreter itself, its tooling, and
# C/C++/Fortran libraries.  They are dropped without a PyPI counterpart: the
# venv's interpreter comes from pyenv, and the PyPI wheels of the Python
# packages above bundle the native libraries they link (h5py/netCDF4 bundle
# HDF5/netCDF, pyarrow bundles Arrow and the AWS/Azure/GCS SDKs, shapely bundles
# GEOS, pyproj bundles PROJ, rasterio bundles GDAL, llvmlite bundles LLVM,
# numcodecs bundles blosc, and so on).  'pip' is dropped too: in lab `pip` is
# uv's pip.
SYSTEM = {
    # interpreter and conda tooling
    "python", "python_abi", "pip", "nomkl", "_libgcc_mutex", "_openmp_mutex",
    "ca-certificates", "tzdata", "ld_impl_linux-64",
    # compiler runtimes and base system libraries
    "libgcc", "libgcc-ng", "libgomp", "libstdcxx", "libstdcxx-ng", "libgfortran",
    "libgfortran-ng", "libgfortran5", "libnsl", "libxcrypt", "libuuid", "ncurses",
    "readline", "libedit", "openssl", "libffi", "sqlite", "libsqlite", "tk", "xz", "zlib",
    "libzlib", "bzip2", "libiconv", "icu", "keyutils", "krb5", "pthread-stubs",
    # compression, crypto, networking
    "blosc", "brotli", "brotli-bin", "libbrotlicommon", "libbrotlidec", "libbrotlienc",
    "lz4-c", "lzo", "snappy", "zstd", "libaec", "libarchive", "libzip", "minizip",
    "xxhash", "c-ares", "curl", "libcurl", "libnghttp2", "libssh2", "libev", "libevent",
    "s2n", "libcrc32c", "libutf8proc", "uriparser", "yaml", "pcre2", "libexpat",
    "libxml2", "libxslt", "xerces-c", "json-c",
    # maths
    "libblas", "libcblas", "liblapack", "libopenblas", "openblas", "libllvm14", "qhull",
    # images and graphics
    "freetype", "giflib", "jasper", "lcms2", "lerc", "libdeflate", "libjpeg-turbo",
    "libpng", "libtiff", "libwebp-base", "openjpeg", "freeglut", "libglu", "libxcb",
    "xorg-libx11", "xorg-libxau", "xorg-libxdmcp", "xorg-libxext", "xorg-libxfixes",
    "xorg-libxi", "xorg-xextproto", "xorg-xorgproto",
    # geo / climate data formats
    "geos", "geotiff", "proj", "freexl", "libgdal-core", "libkml", "librttopo",
    "libspatialite", "hdf4", "hdf5", "libnetcdf", "netcdf-fortran", "udunits2",
    "libudunits2", "eccodes", "g2clib", "nceplibs-g2c", "esmf", "libcdms",
    # Arrow and its cloud SDKs
    "libarrow", "libarrow-acero", "libarrow-dataset", "libarrow-substrait", "libparquet",
    "orc", "libthrift", "libprotobuf", "libgrpc", "libabseil", "re2", "libre2-11",
    "gflags", "glog", "libgoogle-cloud", "libgoogle-cloud-storage", "aws-c-auth",
    "aws-c-cal", "aws-c-common", "aws-c-compression", "aws-c-event-stream", "aws-c-http",
    "aws-c-io", "aws-c-mqtt", "aws-c-s3", "aws-c-sdkutils", "aws-checksums", "aws-crt-cpp",
    "aws-sdk-cpp", "azure-core-cpp", "azure-identity-cpp", "azure-storage-blobs-cpp",
    "azure-storage-common-cpp", "azure-storage-files-datalake-cpp",
}

# Python packages with no PyPI equivalent at that version.
UNMAPPED = {
    "cdms2": "conda-only: CDAT climate data package, not on PyPI",
    "cdtime": "conda-only: CDAT, not on PyPI",
    "cdat_info": "conda-only: CDAT, not on PyPI",
    "libcf": "conda-only: CDAT CF-conventions library with Python bindings, not on PyPI",
    "distarray": "conda-only: CDAT's distarray, a cdms2 dependency; PyPI 'distarray' is "
    "another project and has no 2.12.2",
    "esmpy": "conda-only: ESMF's Python binding, not published on PyPI and needs the ESMF "
    "library",
}


def canon(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def conda_to_pip(dep: str) -> tuple[str, str | None, str | None]:
    """Map one conda 'name=version=build' string.

    Returns (kind, requirement, reason) where kind is 'pin', 'system' or
    'unmapped'.
    """
    parts = dep.split("=")
    if len(parts) != 3:
        raise SystemExit(f"unexpected conda dependency string: {dep!r}")
    name, version, _build = parts
    if name in SYSTEM:
        return "system", None, None
    if name in UNMAPPED:
        return "unmapped", None, f"{name}={version} ({UNMAPPED[name]})"
    if name in RENAMED:
        return "pin", f"{RENAMED[name]}=={version}", None
    if name in SAME_NAME or canon(name) in SAME_NAME:
        return "pin", f"{canon(name)}=={version}", None
    raise SystemExit(f"conda package {name!r} is not classified in transcribe.py")


# Pins lab corrects, with why in REPO_NOTES: upstream's image got these from conda.
PIN_FIXES = {
    "backports-zoneinfo==0.2.1": 'backports-zoneinfo==0.2.1; python_version < "3.9"',
}


def build_pins(env: dict, keep_pip: bool) -> tuple[list[str], list[str], list[str]]:
    """Pins (pip requirement strings), unmapped entries, dropped system entries."""
    pins: dict[str, str] = {}
    unmapped: list[str] = []
    system: list[str] = []
    for dep in env["conda_dependencies"]:
        kind, req, reason = conda_to_pip(dep)
        if keep_pip and dep.split("=")[0] == "pip":
            kind, req = "pin", "pip==" + dep.split("=")[1]
        if kind == "system":
            system.append(dep.rsplit("=", 1)[0])
        elif kind == "unmapped":
            unmapped.append(reason)
        else:
            name, version = req.split("==")
            key = canon(name)
            if key in pins and pins[key] != req:
                raise SystemExit(f"two conda versions for {key}: {pins[key]} / {req}")
            pins[key] = req
    # pip entries were installed after the conda ones, so they win.
    for req in env["pip"]:
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s=]+)", req)
        if not m:
            raise SystemExit(f"unexpected pip entry: {req!r}")
        pins[canon(m.group(1))] = req
    return [pins[k] for k in sorted(pins)], sorted(unmapped), sorted(system)


# How the pins are installed, per repo.  Everything else resolves as one
# consistent closure with a plain `uv pip install <pins>`; the xarray export
# does not (pip put the spec's pip_packages over a conda-forge solve without
# re-solving), so its pins are installed exactly, without dependency resolution.
#
# --compile-bytecode everywhere: pip (upstream) writes .pyc files at install
# time, uv does not by default.  Without them a dependency is compiled on first
# import, under the test suite's warning filters: flask 2.0's
# 'filterwarnings = error' then turns blinker 1.4's invalid escape sequence
# into a SyntaxError and every flask-4045 test errors.
COMPILE = ["--compile-bytecode"]
PINS_INSTALL_ARGS = {"pydata/xarray": ["--no-deps", *COMPILE]}

# Repos whose pinned packages depend on pip itself (flask: pip-tools), so the
# conda 'pip' entry is kept as a pin instead of being dropped; otherwise the
# venv would get whatever pip is newest.
KEEP_CONDA_PIP = {"pallets/flask"}


# Extra arguments for the project install ("installArgs"), per (repo, version).
# Upstream's pip 24.2 built a project without pyproject.toml inside the env,
# with the env's own setuptools and wheel (legacy path), and a project with a
# [build-system] table in an isolated build env.  uv isolates every build by
# default, so "--no-build-isolation" restores upstream's behaviour where the
# pinned setuptools/wheel are what built the project.  Exceptions, checked with
# the one-off project-install check (see README):
#   pylint 2.15 declares setuptools~=62.6, which has no PEP 660 editable hook;
#     pip fell back to 'setup.py develop' in the env, uv needs
#     --no-build-isolation (the env's setuptools 75.1.0) or the build fails;
#   xarray 0.12 has no pyproject.toml before 5131 but takes its version from
#     setuptools_scm through setup_requires, which is not in the env: without
#     isolation it installs as version 0.0.0, so it stays isolated;
#   pytest, flask 2.3 and sphinx 7.1 declare build backends that are not pins
#     (setuptools-scm, flit_core), so they stay isolated as upstream;
#   pylint also needs editable_mode=compat (below).
# requests installs non-editably, and pip compiled the installed package, so it
# also gets --compile-bytecode; editable installs have nothing to compile.
NO_ISOLATION = ["--no-build-isolation"]
INSTALL_ARGS = {
    ("psf/requests", "*"): [*NO_ISOLATION, "--compile-bytecode"],
    ("pallets/flask", "2.0"): NO_ISOLATION,
    ("pallets/flask", "2.3"): [],
    # pip's 'setup.py develop' put the checkout itself on sys.path; setuptools'
    # PEP 660 default (an import-hook finder) does not, and pylint then fails
    # to load its own checkers from files ("No such message id or symbol
    # 'c-extension-no-member'" in nearly every test); compat mode writes a
    # path .pth like develop did.
    ("pylint-dev/pylint", "*"): [*NO_ISOLATION, "--config-settings", "editable_mode=compat"],
    ("pytest-dev/pytest", "*"): [],
    ("sphinx-doc/sphinx", "7.1"): [],
    ("sphinx-doc/sphinx", "*"): NO_ISOLATION,
    ("pydata/xarray", "*"): [],
}


def install_args(repo: str, version: str) -> list[str]:
    for key in ((repo, version), (repo, "*")):
        if key in INSTALL_ARGS:
            return list(INSTALL_ARGS[key])
    raise SystemExit(f"no install decision for {repo} {version}")


def rewrite_pip(cmd: str) -> str:
    return re.sub(r"\bpython -m pip\b", "pip", cmd)


# Per-repo facts a grader must know (sources in data/swebench/README.md).
REPO_NOTES = {
    "psf/requests": [
        "Upstream installs requests non-editably ('pip install .') and re-runs that install at "
        "the start of every eval so the model patch is picked up; lab must do the same after "
        "applying the patch.",
        "Lite instances 863, 1963, 2148, 2317 and 2674 have FAIL_TO_PASS/PASS_TO_PASS tests "
        "that call http://httpbin.org; offline, gold fails for them. Allow egress or serve a "
        "local httpbin (upstream issues SWE-bench#26, #167; SWE-bench-docker#22).",
    ],
    "pallets/flask": [
        "Pins come from requirements/dev.txt at environment_setup_commit as upstream exported "
        "them, plus the spec's pip_packages (Werkzeug 2.3.7 etc.).",
        "pip==24.2 (conda's pip) is kept as a pin because pip-tools depends on pip; without it "
        "the venv would get the newest pip.",
    ],
    "pylint-dev/pylint": [
        "Pins come from requirements_test.txt at environment_setup_commit as upstream "
        "exported them. They include types-pkg-resources==0.1.3, which PyPI has yanked (an "
        "exact pin still installs) and which upstream's REPLACE_REQ_PACKAGES rule would have "
        "turned into types-setuptools: the exported env kept it, so the pin follows the export.",
        "Upstream limits pylint 2.14/2.15 containers to 2 CPUs (nano_cpus); not part of the env.",
    ],
    "pytest-dev/pytest": [
        "The project is pytest itself, so no pytest pin: 'pip install -e .' provides the "
        "pytest under test. Its version comes from setuptools_scm and git tags; upstream "
        "clones with tags (it deletes only tags newer than base_commit), so a checkout "
        "without tags reports 0.1.devN.",
    ],
    "sphinx-doc/sphinx": [
        "preInstall runs at image build, before 'pip install -e .[test]', and upstream then "
        "commits the result ('git commit --allow-empty -am SWE-bench'): the tox.ini and "
        "setup.py edits are part of HEAD, the eval's reset (test files only) keeps them, and "
        "they do not show in the model patch. Replicate the seds literally: "
        "\"sed -i 's/pytest/pytest -rA/' tox.ini\" rewrites the first 'pytest' on every line, "
        "including any inside PYTHONWARNINGS.",
        "The test command runs through tox-current-env, so tox.ini's [testenv] setenv "
        "(PYTHONWARNINGS, PYTEST_ADDOPTS=--color yes) and its pytest flags "
        "(e.g. --durations 25) apply.",
        "uv venvs need a shim for tox-current-env: it symlinks .tox/py39/bin/python to "
        "sys.executable, and a venv python started through that second link finds no "
        "pyvenv.cfg beside it, so it runs without the venv's site-packages ('No module named "
        "pytest'). Before the test command, create .tox/py39/bin/python, python3 and python3.9 "
        "in the checkout as scripts that exec <venv>/bin/python (the plugin only links names "
        "that do not exist; .tox is git-ignored). Upstream's conda python is a real binary, so "
        "it never hits this.",
    ],
    "pydata/xarray": [
        "Upstream built this env from xarray's ci/requirements/environment.yml on conda-forge "
        "(about 300 conda packages, most of them native libraries); pins carry every Python "
        "package of that export that PyPI has at the same version, and the native libraries "
        "come from the PyPI wheels instead.",
        "The exported env is not self-consistent as PyPI metadata sees it (pip installed the "
        "spec's pip_packages, e.g. dask==2022.8.1, pandas==1.5.3, pytest==7.4.0, over the "
        "conda solve without re-solving), so the pins are installed with --no-deps "
        "(pinsInstallArgs). 'uv pip check' then reports the same conflicts upstream's env had "
        "(e.g. distributed 2024.9.1 and dask-expr 1.1.15 want dask 2024.9.1 and do not import "
        "with 2022.8.1; zarr, rasterio and scitools-iris want numpy>=1.24).",
        "netcdf4==1.7.1 is yanked on PyPI (an exact pin still installs; uv warns).",
        "FIX APPLIED (lab's only change to upstream's pins): backports-zoneinfo==0.2.1 has no wheel for CPython 3.10 "
        "and its C extension does not compile there (error: '_PyLong_One' undeclared), and "
        "0.2.1 is the last release. It backports a module that is in the standard library "
        "since 3.9, so pin it as 'backports-zoneinfo==0.2.1; python_version < \"3.9\"' (a "
        "no-op on 3.10). Checked: with that one change the env builds, the project installs, "
        "and the gold patch resolves (see README).",
    ],
}

# Notes for single instances.
_SPHINXCONTRIB_35 = (
    "sphinxcontrib-applehelp==1.0.4 sphinxcontrib-devhelp==1.0.2 sphinxcontrib-htmlhelp==2.0.1 "
    "sphinxcontrib-jsmath==1.0.1 sphinxcontrib-qthelp==1.0.3 sphinxcontrib-serializinghtml==1.1.5"
)
_SPHINXCONTRIB_7 = (
    "sphinxcontrib-applehelp==2.0.0 sphinxcontrib-devhelp==2.0.0 sphinxcontrib-htmlhelp==2.1.0 "
    "sphinxcontrib-jsmath==1.0.1 sphinxcontrib-qthelp==2.0.0 sphinxcontrib-serializinghtml==2.0.0"
)


def _missing_sphinxcontrib(siblings: str, pins: str) -> str:
    return (
        "Upstream's export for this instance lists none of the sphinxcontrib-* packages that "
        "Sphinx requires (the other instances of the same era do), so 'pip install -e .[test]' "
        "resolves them at install time; with uv that picked sphinxcontrib-jsmath 2.0.0 where "
        f"{siblings} pin 1.0.1. PROPOSED FIX (not applied): add {siblings}' pins: {pins}."
    )


INSTANCE_NOTES = {
    "sphinx-doc__sphinx-8595": [_missing_sphinxcontrib("the other 3.5 instances", _SPHINXCONTRIB_35)],
    "sphinx-doc__sphinx-8721": [_missing_sphinxcontrib("the other 3.5 instances", _SPHINXCONTRIB_35)],
    "sphinx-doc__sphinx-11445": [_missing_sphinxcontrib("sphinx 5.0/5.1", _SPHINXCONTRIB_7)],
    "psf__requests-3362": [
        "PASS_TO_PASS has TestTimeout::test_connect_timeout and test_total_timeout_connect, "
        "which connect to 10.255.255.1 and expect the connection to time out; where that "
        "address is unroutable the attempt fails at once and both fail. Its other tests use "
        "the pytest-httpbin fixture, which the env lacks (upstream's too): they error and are "
        "in neither list.",
    ],
}

COMMON_NOTES = [
    "Upstream's image sets TZ=Etc/UTC (base image ENV) and no LANG/LC_*; Python's C-locale "
    "coercion then gives a UTF-8 C.UTF-8 locale.",
]


def interp_note(py: str, spec_py: str) -> str:
    return (
        f"Upstream's interpreter is CPython {py} (spec table: {spec_py}); lab uses the "
        f"machine's CPython {spec_py}.x."
    )


# ---------------------------------------------------------------------------
# JSON output in prettier's shape
# ---------------------------------------------------------------------------

WIDTH = 100


def dump(value, indent: int = 0, prefix_len: int = 0) -> str:
    """JSON with sorted keys and 2-space indent; objects always expanded, arrays
    of scalars on one line when the whole line fits in WIDTH columns (prettier's
    rule for JSON; prefix_len is the width already used on the line, trailing
    comma included by the caller via +1)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = []
        for i, key in enumerate(sorted(value)):
            k = json.dumps(key, ensure_ascii=False) + ": "
            comma = 1 if i < len(value) - 1 else 0
            items.append(
                pad + "  " + k + dump(value[key], indent + 2, indent + 2 + len(k) + comma)
            )
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, (dict, list)) for v in value):
            flat = "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
            if prefix_len + len(flat) <= WIDTH:
                return flat
        items = []
        for i, v in enumerate(value):
            comma = 1 if i < len(value) - 1 else 0
            items.append(pad + "  " + dump(v, indent + 2, indent + 2 + comma))
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def write_json(path: Path, value) -> None:
    path.write_text(dump(value) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------


def env_id(python: str, pins: list[str], args: list[str]) -> str:
    blob = json.dumps([python, pins] + ([args] if args else []), separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def main(argv: list[str]) -> int:
    shared = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared" / "swebench"
    specs = json.loads((shared / "specs.json").read_text(encoding="utf-8"))
    resolved = json.loads((shared / "lite_resolved_envs.json").read_text(encoding="utf-8"))
    lists = json.loads((shared / "lite_test_lists.json").read_text(encoding="utf-8"))
    checks_path = OUT_DIR / "build-check.json"
    checks = (
        json.loads(checks_path.read_text(encoding="utf-8")) if checks_path.exists() else {}
    )

    envs: dict[str, dict] = {}
    tests: dict[str, dict] = {}
    for iid, inst in specs["lite_instances"].items():
        repo = inst["repo"]
        if repo not in REPOS:
            continue
        rspec = specs["repos"][repo]
        spec = rspec["versions"][inst["version"]]
        renv = resolved["instances"][iid]
        pins, unmapped, _system = build_pins(renv, repo in KEEP_CONDA_PIP)
        # lab's one correction to upstream's export: a backport of a standard-library module
        # whose last release cannot build on the env's CPython 3.10 (see the xarray notes).
        pins = [PIN_FIXES.get(pin, pin) for pin in pins]

        test_cmd = spec["test_cmd"]
        directives = inst["test_directives"]
        if " ".join([test_cmd, *directives]) != inst["test_command"]:
            raise SystemExit(f"{iid}: test_cmd + directives differs from test_command")
        parser = PARSERS[rspec["log_parser_implementation"]]
        tl = lists["instances"][iid]
        if tl["log_parser"] != inst["log_parser"]:
            raise SystemExit(f"{iid}: log parser differs between specs and v5 lists")

        pre_install = list(spec.get("pre_install", []))
        notes = list(REPO_NOTES[repo])
        apt = [c for c in pre_install if c.lstrip().startswith(("apt-get", "apt "))]
        pre_install = [c for c in pre_install if c not in apt]
        notes += [f"Upstream pre_install also runs (system package, not done by lab): {c}" for c in apt]
        notes += INSTANCE_NOTES.get(iid, [])
        notes.append(interp_note(renv["python"], spec["python"]))
        notes += COMMON_NOTES
        pins_args = PINS_INSTALL_ARGS.get(repo, COMPILE)
        eid = env_id(renv["python"], pins, pins_args)
        check = checks.get(eid)
        entry = {
            "repo": repo,
            "version": inst["version"],
            "python": renv["python"],
            "pins": pins,
            "unmapped": unmapped,
            "preInstall": pre_install,
            "install": rewrite_pip(spec["install"]),
            "installArgs": install_args(repo, inst["version"]),
            "testCommand": test_cmd,
            "testDirectives": directives,
            "env": {"TZ": "Etc/UTC"},
            "logParser": parser,
            # lab serves httpbin on loopback for requests' suites, which read HTTPBIN_URL, and
            # stands in for the outside hosts they name (httpbin.org over HTTPS, ...).
            "services": ["httpbin", "internet"] if repo == "psf/requests" else [],
            "notes": notes,
            "envId": eid,
            "buildCheck": check["result"] if check else "unchecked",
        }
        if pins_args:
            entry["pinsInstallArgs"] = pins_args
        if check and check.get("notes"):
            entry["notes"] = entry["notes"] + check["notes"]
        envs[iid] = entry
        tests[iid] = {"FAIL_TO_PASS": tl["FAIL_TO_PASS"], "PASS_TO_PASS": tl["PASS_TO_PASS"]}

    if len(envs) != 53:
        raise SystemExit(f"expected 53 in-scope instances, found {len(envs)}")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    write_json(OUT_DIR / "environments.json", envs)
    write_json(OUT_DIR / "test-lists.json", tests)
    n_env = len({e["envId"] for e in envs.values()})
    print(f"wrote {len(envs)} instances, {n_env} distinct environments", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
