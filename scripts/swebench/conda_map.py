"""conda -> PyPI mapping for the SWE-bench environment exports (see data/swebench/README.md).

Every conda package name met in an export must appear in exactly one of the tables below; an
unknown name stops transcribe.py so that a maintainer classifies it by hand.  The tables of
the first transcription (the 53 Lite instances of six repositories) are unchanged; names met
first in the other repositories' exports are added in separate sets, each with its reason.
"""

from __future__ import annotations

import re

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


# Names met first in the exports of astropy, django, matplotlib, seaborn, scikit-learn, sympy and
# of the Verified-only instances of the six first repositories.  Python distributions PyPI has
# under the same (PEP 503) name:
SAME_NAME |= {
    "accessible-pygments", "alabaster", "asttokens", "babel", "black", "bleach", "cairocffi",
    "colorspacious", "comm", "cython", "debugpy", "decorator", "defusedxml", "docutils",
    "entrypoints", "executing", "flake8", "flake8-docstrings", "flox", "imagesize", "ipykernel",
    "ipython", "ipywidgets", "jedi", "joblib", "jupyter-client", "jupyterlab-pygments",
    "jupyterlab-widgets", "matplotlib", "matplotlib-inline", "mccabe", "mistune",
    "more-itertools", "mpmath", "mypy-extensions", "nbclient", "nbconvert", "nest-asyncio", "numbagg",
    "numpy", "numpy-groupies", "numpydoc", "olefile", "pandas", "pandocfilters", "parso",
    "pathspec", "pexpect", "pickleshare", "ply", "prompt-toolkit", "propcache", "ptyprocess",
    "pure-eval", "py", "pybind11", "pybind11-global", "pycairo", "pycodestyle",
    "pydata-sphinx-theme", "pydocstyle", "pyflakes", "pygments", "pyqt5-sip",
    "pytest-rerunfailures", "pytest-timeout", "python-dateutil", "pytz", "pyzmq",
    "roman-numerals-py", "scipy", "setuptools-scm", "sip", "snowballstemmer", "sphinx",
    "sphinx-copybutton", "sphinx-design", "sphinx-gallery", "sphinxcontrib-applehelp",
    "sphinxcontrib-devhelp", "sphinxcontrib-htmlhelp", "sphinxcontrib-jsmath",
    "sphinxcontrib-qthelp", "sphinxcontrib-serializinghtml", "stack-data", "tabulate",
    "threadpoolctl", "tinycss2", "wcwidth", "webencodings", "widgetsnbextension",
}

# ... and conda names of Python distributions PyPI has under another name, or conda
# metapackages that stand for one (merged with it, at the same version):
RENAMED.update(
    {
        "pyqt": "pyqt5",  # conda's PyQt 5 binding; PyPI's wheels bundle Qt (5.15: PyQt5-Qt5)
        "numpy-base": "numpy",  # conda split of numpy (defaults channel)
        "nbconvert-core": "nbconvert",  # conda-forge split; 'nbconvert' is its metapackage
        "nbconvert-pandoc": "nbconvert",  # metapackage: nbconvert-core + the pandoc binary
        "bleach-with-css": "bleach",  # metapackage: bleach + tinycss2 (bleach[css])
    }
)

# ... and native libraries, binaries and conda metapackages with no Python code: GUI toolkits
# (GTK, Qt, wxWidgets, X11/Wayland), media codecs, fonts, database clients, compilers' LLVM,
# BLAS metapackages, gettext, graphviz and pandoc.  Where a test needs one, the Debian
# package is in the instance's debianPackages instead.
SYSTEM |= {
    "adwaita-icon-theme", "alsa-lib", "aom", "at-spi2-atk", "at-spi2-core", "atk-1.0", "attr",
    "blas", "blas-devel", "cairo", "cyrus-sasl", "dav1d", "dbus", "elfutils", "epoxy", "expat",
    "font-ttf-dejavu-sans-mono", "font-ttf-inconsolata", "font-ttf-source-code-pro",
    "font-ttf-ubuntu", "fontconfig", "fonts-conda-ecosystem", "fonts-conda-forge", "fribidi",
    "gdk-pixbuf", "gettext", "gettext-tools", "glib", "glib-tools", "gnutls", "graphite2",
    "graphviz", "gst-plugins-base", "gstreamer", "gtk2", "gtk3", "gtk4", "gts", "harfbuzz",
    "hicolor-icon-theme", "jpeg", "lame", "libasprintf", "libasprintf-devel", "libavif16",
    "libcap", "libclang", "libclang-cpp15", "libclang-cpp19.1", "libclang13", "libcups",
    "libde265", "libdrm", "libegl", "libflac", "libgcrypt", "libgcrypt-lib", "libgd",
    "libgettextpo", "libgettextpo-devel", "libgfortran4", "libgirepository", "libgl", "libglib",
    "libglvnd", "libglx", "libgpg-error", "libgraphene", "libheif", "libidn2", "liblapacke",
    "libllvm15", "libllvm19", "liblzma", "libmicrohttpd", "libmpdec", "libntlm", "libogg",
    "libopus", "libpciaccess", "libpq", "librsvg", "libsndfile", "libsodium", "libsystemd0",
    "libtasn1", "libunistring", "libvorbis", "libwebp", "libxkbcommon", "mesalib", "mpg123",
    "mysql", "mysql-common", "mysql-libs", "nettle", "nspr", "nss", "openldap", "p11-kit",
    "pandoc", "pango", "pcre", "pixman", "pulseaudio-client", "qt", "qt-main", "rav1e",
    "svt-av1", "wayland", "wxwidgets", "x265", "xcb-util", "xcb-util-image",
    "xcb-util-keysyms", "xcb-util-renderutil", "xcb-util-wm", "xkeyboard-config",
    "xorg-libice", "xorg-libsm", "xorg-libxcomposite", "xorg-libxcursor", "xorg-libxdamage",
    "xorg-libxinerama", "xorg-libxrandr", "xorg-libxrender", "xorg-libxshmfence",
    "xorg-libxtst", "xorg-libxxf86vm", "xorg-xf86vidmodeproto", "xorg-xineramaproto",
    "xorg-xproto", "zeromq",
}

# ... and Python packages that are on PyPI but that lab does not install, with why.
UNMAPPED.update(
    {
        "wxpython": "PyPI has no Linux wheel of wxPython (sdist only): building it needs GTK 3 "
        "development files and about an hour; matplotlib's wx backend tests skip without it",
        "pygobject": "PyPI's PyGObject 3.50 is an sdist that needs GObject Introspection 2.0 "
        "(GLib >= 2.80), newer than Debian 12's; matplotlib's GTK backend tests skip without "
        "it (gi not importable)",
    }
)



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
    raise SystemExit(f"conda package {name!r} is not classified in conda_map.py")


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


