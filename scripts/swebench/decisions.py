"""lab's own decisions for the transcribed environments: how pins and the project are installed
with uv, which Debian packages a host needs, and the notes a grader must know.  Each is
explained here and in data/swebench/README.md.  The decisions of the first transcription
(the 53 Lite instances of six repositories) are unchanged; what the other repositories add is
marked "unchecked" until a build check has run it.
"""

from __future__ import annotations

import re

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

# Constraints on the build environments of pins uv must build from source.  The
# Python 3.6 era's sdists import setuptools features that later setuptools
# removed: markupsafe 1.0's setup.py imports setuptools.Feature (gone in 46.0),
# and upstream's conda env had it prebuilt.  The constraint keeps such builds on
# the setuptools of their day; pins with wheels are unaffected.
def pins_build_constraints(python: str) -> list[str]:
    return ["setuptools<46"] if python.startswith("3.6.") else []


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
    # pylint 3.0's env pins setuptools 41.6.0 (from its requirements_test.txt export), which has
    # no PEP 517 editable hook at all, while its pyproject declares a modern setuptools: pip
    # built it isolated, as a project with a [build-system] table, so lab does too (compat mode
    # still, for the checkers' files).  Without isolation the install fails (verified-8898).
    ("pylint-dev/pylint", "3.0"): ["--config-settings", "editable_mode=compat"],
    ("pytest-dev/pytest", "*"): [],
    ("sphinx-doc/sphinx", "7.1"): [],
    ("sphinx-doc/sphinx", "7.2"): [],  # flit_core pyproject, like 7.1
    ("sphinx-doc/sphinx", "*"): NO_ISOLATION,
    ("pydata/xarray", "*"): [],
    # The repositories added later, unchecked: upstream's own flags only (scikit-learn's
    # --no-build-isolation is in its install command); every other build is isolated, which is
    # pip's behaviour for a project with a [build-system] table.  A project without one was
    # built by pip in the env (see above): if its isolated build fails, --no-build-isolation is
    # the faithful fix.  django 1.11/2.2 install with 'python setup.py install', not pip.
    ("astropy/astropy", "*"): [],
    ("django/django", "*"): [],
    ("matplotlib/matplotlib", "*"): [],
    ("mwaskom/seaborn", "*"): [],
    ("scikit-learn/scikit-learn", "*"): [],
    ("sympy/sympy", "*"): [],
}


def install_args(repo: str, version: str) -> list[str]:
    for key in ((repo, version), (repo, "*")):
        if key in INSTALL_ARGS:
            return list(INSTALL_ARGS[key])
    raise SystemExit(f"no install decision for {repo} {version}")


def rewrite_pip(cmd: str) -> str:
    return re.sub(r"\bpython -m pip\b", "pip", cmd)


def rewrite_install(cmd: str) -> str:
    """Upstream's install command for uv's pip: `python -m pip` becomes `pip`, and pip's
    `--no-use-pep517` (scikit-learn) is dropped, since uv has no legacy `setup.py develop` path;
    its `--no-build-isolation`, kept, builds in the env as pip's legacy path did."""
    return rewrite_pip(cmd).replace(" --no-use-pep517", "")


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


# For a sphinx instance whose export lacks them and that has no note of its own above.
MISSING_SPHINXCONTRIB_NOTE = (
    "Upstream's export for this instance lists none of the sphinxcontrib-* packages that Sphinx "
    "requires, so 'pip install -e .[test]' resolves them at install time, unpinned (within the "
    "preInstall seds' bounds)."
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




# Notes of the repositories added later, in the same spirit as REPO_NOTES.
REPO_NOTES.update(
    {
        "django/django": [
            "The test command is runtests.py with dotted test labels, not files: upstream's "
            "get_test_directives drops '.py', a leading 'tests/' and turns '/' into '.' "
            "(testDirectiveRule 'django'). A test patch that touches only data files (e.g. "
            "django__django-10097's .txt URL lists) gives no label, so the whole suite runs.",
            "Ids are unittest descriptions: 'test_x (app.tests.Class)' (Python 3.11+: "
            "'test_x (app.tests.Class.test_x)'), or the first line of the test's docstring when "
            "it has one; the django parser reads runtests.py --verbosity 2 output.",
            "Versions 1.11 and 2.2 install with 'python setup.py install' (not editable), which "
            "upstream re-runs in the eval so the model patch is installed; lab must do the same "
            "after applying the patch.",
            "pywatchman (in every export) has no wheel for these Pythons and builds a C "
            "extension: the host needs a C compiler (debianPackages: build-essential).",
        ],
        "sympy/sympy": [
            "The test command starts with an environment assignment "
            "(PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose), "
            "so it must run through a shell; -C turns SymPy's cache off.",
            "Ids are bare test function names ('test_foo') from the verbose per-test lines, plus "
            "'path.py:test_foo' for each failure header; expected failures and skips are not "
            "recorded (the sympy parser).",
        ],
        "astropy/astropy": [
            "astropy builds C and Cython extensions at install: the host needs a C compiler "
            "(debianPackages: build-essential).",
            "Versions 1.3 and 3.x take astropy-helpers from a git submodule that a plain clone "
            "lacks; their setup.py then fetches astropy-helpers from PyPI at build time.",
            "Version 1.3 runs pytest -rA -vv -o console_output_style=classic --tb=no (upstream's "
            "TEST_ASTROPY_PYTEST); the others pytest -rA. The log parser is pytest_v2.",
        ],
        "matplotlib/matplotlib": [
            "matplotlib builds C++ extensions at install (debianPackages: build-essential). From "
            "3.3 its build downloads FreeType 2.6.1 (the image tests' reference renderer) unless "
            "mplsetup.cfg asks for the system's, and upstream's preInstall downloads the qhull "
            "2020.2 sources with wget into build/: both need the internet beyond the package "
            "registries. The system FreeType (libfreetype-dev) builds too, but text-rendering "
            "image comparisons may then differ from upstream's.",
            "preInstall's QHULL_BUILD_DIR is upstream's /testbed/build, rewritten to $PWD/build: "
            "the install script starts in the checkout.",
            "Upstream's apt-get line (texlive, cm-super, dvipng, imagemagick, ffmpeg) brings what "
            "the usetex, pgf, animation and image-conversion tests run; it is in debianPackages.",
            "The matplotlib parser is the pytest parser with 'MouseButton.LEFT'/'RIGHT' written "
            "as 1/3 first.",
        ],
        "scikit-learn/scikit-learn": [
            "scikit-learn builds Cython and C extensions at install, in the env "
            "(--no-build-isolation): the host needs a C compiler (debianPackages: "
            "build-essential). Upstream's pip ran setup.py develop (--no-use-pep517); uv has no "
            "such path, so that flag is dropped and the build goes through setuptools' PEP 517 "
            "hooks in the env.",
            "The log parser is pytest_v2.",
        ],
        "mwaskom/seaborn": [
            "seaborn is pure Python (flit); its test command is 'pytest --no-header -rA', and its "
            "parser reads only PASSED and FAILED, so skipped, erroring and xfailed tests are "
            "missing from the map.",
        ],
    }
)

# Version-specific notes.
VERSION_NOTES = {
    ("scikit-learn/scikit-learn", "1.3"): [
        "The exports pin numpy 1.19.2 and scipy 1.5.2 (conda builds for CPython 3.9), which "
        "have no CPython 3.9 wheel on PyPI: uv builds them from source, which needs a Fortran "
        "compiler and BLAS/LAPACK (debianPackages: gfortran, libopenblas-dev, pkg-config) and "
        "takes long; Cython < 3 may be needed for those builds.",
    ],
    ("matplotlib/matplotlib", "3.0"): [
        "Before 3.3 matplotlib links the system FreeType and libpng (_png): libfreetype6-dev "
        "and pkg-config come from upstream's apt-get line, libpng-dev from lab (upstream had it "
        "through libfreetype6-dev's dependencies).",
    ],
}
VERSION_NOTES[("matplotlib/matplotlib", "3.1")] = VERSION_NOTES[("matplotlib/matplotlib", "3.0")]

# Debian packages lab adds to those of upstream's apt-get lines (read from the spec), per
# (repo, version) with "*" for every version: what a build or the tests need from the system.
DEBIAN_EXTRA = {
    ("astropy/astropy", "*"): ["build-essential"],
    ("django/django", "*"): ["build-essential", "locales-all"],
    ("matplotlib/matplotlib", "*"): ["build-essential", "wget"],
    ("matplotlib/matplotlib", "3.0"): ["build-essential", "libpng-dev", "wget"],
    ("matplotlib/matplotlib", "3.1"): ["build-essential", "libpng-dev", "wget"],
    ("scikit-learn/scikit-learn", "*"): ["build-essential"],
    ("scikit-learn/scikit-learn", "1.3"): [
        "build-essential", "gfortran", "libopenblas-dev", "pkg-config",
    ],
}

# Debian packages a pin needs to build from source (no wheel on PyPI).
DEBIAN_FOR_PIN = {
    "pycairo": ["libcairo2-dev", "pkg-config"],
}


def debian_extra(repo: str, version: str) -> list[str]:
    for key in ((repo, version), (repo, "*")):
        if key in DEBIAN_EXTRA:
            return list(DEBIAN_EXTRA[key])
    return []


def is_system_step(line: str) -> bool:
    """A step upstream ran as root on the image, which lab does not run in the checkout."""
    return bool(re.search(r"\bapt(-get)?\b|/etc/|\blocale-gen\b", line))


def apt_packages(line: str) -> list[str]:
    """The packages an `apt-get install` step names."""
    packages: list[str] = []
    for part in line.split("&&"):
        words = part.split()
        if "install" in words and any(w in ("apt-get", "apt") for w in words):
            after = words[words.index("install") + 1 :]
            packages += [w for w in after if not w.startswith("-")]
    return packages


def rewrite_pre_install(line: str) -> str:
    """Upstream's pre-install step for lab, where the checkout is not /testbed."""
    return line.replace('"/testbed/build"', '"$PWD/build"')


def common_notes(exports: dict[str, str]) -> list[str]:
    """The note about the locale, which depends on what the eval script exports."""
    if not exports:
        return list(COMMON_NOTES)
    names = ", ".join(sorted(exports))
    return [
        "Upstream's image sets TZ=Etc/UTC (base image ENV), and its eval script exports "
        f"{names} (env); en_US.UTF-8 comes from the base image's locales-all (debianPackages)."
    ]


# Per-instance lines of the v5 eval script, run after the test patch and before the test
# command; they are not in the spec table (upstream's task repo added them).
def pre_test_note(lines: list[str]) -> str:
    return (
        "Upstream's v5 eval script runs " + "; ".join(f"`{line}`" for line in lines) + " after "
        "the test patch, just before the test command (preTest, with `python -m pip` as `pip`)."
    )
