/**
 * The runner guard's Python source (`runner-guard.ts`): a pytest plugin lab loads with `-p` from
 * a folder of its own, before any of the project's code is imported. It records pytest's
 * reporting path (the functions and classes that make, log and print reports) and unittest's
 * TestCase methods (the assertions of the unittest-style tests it runs) as loaded, checks
 * it at each report and at the end, and at exit prints what changed and then the sentinel line.
 * Python 2.7 and 3 alike; it works with whatever pytest the era has (3.x to 8.x), reaching only
 * for what that pytest holds. It knows nothing of the canaries, so it cannot give them away.
 */
export const RUNNER_GUARD_PY = String.raw`
import atexit
import os
import sys

_token = os.environ.pop("LAB_RUNNER_GUARD", "")
# Only the outer run is guarded: pytest runs the tests start (pytester, subprocesses) do not
# load this plugin.
_opts = os.environ.get("PYTEST_ADDOPTS", "").replace("-p lab_runner_guard", "").strip()
if _opts:
    os.environ["PYTEST_ADDOPTS"] = _opts
else:
    os.environ.pop("PYTEST_ADDOPTS", None)
# Nor is lab's folder left where the tests can see it: on PYTHONPATH and sys.path, where lab
# put it to load this module (pylint's tests check both).
_own_dir = os.path.dirname(os.path.realpath(__file__))
_python_path = [
    entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if entry and os.path.realpath(entry) != _own_dir
]
if _python_path:
    os.environ["PYTHONPATH"] = os.pathsep.join(_python_path)
else:
    os.environ.pop("PYTHONPATH", None)
sys.path[:] = [entry for entry in sys.path if not entry or os.path.realpath(entry) != _own_dir]

import _pytest.runner as _runner
import _pytest.terminal as _terminal

try:
    import _pytest.reports as _reports
except ImportError:
    _reports = None
# unittest's TestCase: its assertions and the methods that run a test, which a change could
# disarm for the unittest-style tests pytest runs (the canaries' assertion would hold too, and
# the rest of a copy then fail without what the statement it replaced bound). It is recorded the
# moment unittest.case is first run, by whoever imports it, before they get the module; the
# guard never imports it itself: unittest in sys.modules before the run has it changes what
# pytester's in-process runs keep between them (pytest-10081's hidden test passed without its
# fix when the guard had imported unittest).
_unittest = {"case": sys.modules.get("unittest.case")}

_TESTCASE = "unittest.case.TestCase."


def _remember_unittest(module):
    if _unittest["case"] is None:
        _unittest["case"] = module
        _original.update(_testcase_methods())


class _WatchedLoader(object):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        _remember_unittest(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _UnittestWatch(object):
    """On sys.meta_path: hands unittest.case to a loader that records it once it has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "unittest.case" or _unittest["case"] is not None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _WatchedLoader(spec.loader)
                return spec
        return None

    # Python 2, whose meta path finders find and load.
    def find_module(self, name, path=None):
        if name != "unittest.case" or _unittest["case"] is not None or sys.version_info[0] > 2:
            return None
        return self

    def load_module(self, name):
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        __import__(name)
        module = sys.modules[name]
        _remember_unittest(module)
        return module

_here = os.path.realpath(os.getcwd())
_pytest_dir = os.path.dirname(os.path.realpath(_runner.__file__))
# pytest's own repository tests pytest, whose tests patch it for a while: its end is checked.
_own_pytest = (_pytest_dir + os.sep).startswith(_here + os.sep)
_findings = []
_state = {
    "config": None,
    "known": None,
    "functions": {},
    "pm": None,
    "done": False,
    "configured": None,
}
_HOOKS = (
    "pytest_runtest_logreport",
    "pytest_runtest_makereport",
    "pytest_report_teststatus",
    "pytest_runtest_protocol",
    "pytest_runtest_call",
    "pytest_terminal_summary",
)


def _classes():
    found = []
    for module in (_runner, _reports, _terminal):
        if module is None:
            continue
        for name in ("TestReport", "BaseReport", "CallInfo", "TerminalReporter"):
            value = getattr(module, name, None)
            if isinstance(value, type) and value not in found:
                found.append(value)
    return found


def _snapshot():
    seen = {}
    for module, names in (
        (_runner, ("call_and_report", "call_runtest_hook", "runtestprotocol",
                   "pytest_runtest_makereport", "pytest_runtest_protocol", "TestReport",
                   "CallInfo")),
        (_reports, ("TestReport", "BaseReport")),
        (_terminal, ("TerminalReporter", "pytest_report_teststatus")),
    ):
        if module is None:
            continue
        for name in names:
            if hasattr(module, name):
                seen[module.__name__ + "." + name] = getattr(module, name)
    for cls in _classes():
        for klass in cls.__mro__:
            if klass is object:
                continue
            for name, value in list(vars(klass).items()):
                if not name.startswith("__") or name in ("__init__", "__repr__"):
                    seen[klass.__module__ + "." + klass.__name__ + "." + name] = value
    seen.update(_testcase_methods())
    return seen


def _testcase_methods():
    seen = {}
    case = _unittest["case"]
    if case is None:
        return seen
    # Methods only: a setting (maxDiff) is the tests' to change.
    for name, value in list(vars(case.TestCase).items()):
        if name.startswith("__") and name not in ("__init__", "__call__"):
            continue
        if callable(value) or isinstance(value, (classmethod, staticmethod, property)):
            seen[_TESTCASE + name] = value
    return seen


_original = _snapshot()
if _unittest["case"] is None:
    sys.meta_path.insert(0, _UnittestWatch())


def _say(what):
    if what not in _findings:
        _findings.append(what)


def _hookimpls(config, name):
    caller = getattr(config.hook, name, None)
    if caller is None:
        return []
    if hasattr(caller, "get_hookimpls"):
        return list(caller.get_hookimpls())
    return list(getattr(caller, "_nonwrappers", [])) + list(getattr(caller, "_wrappers", []))


def _source_of(function):
    code = getattr(function, "__code__", None) or getattr(function, "func_code", None)
    return getattr(code, "co_filename", "") or ""


def _from_the_project(function):
    where = _source_of(function)
    if where.startswith("<"):
        return True
    where = os.path.realpath(where)
    return (where.startswith(_here + os.sep) and os.path.basename(where) != "conftest.py"
            and not _own_pytest)


def _check():
    current = _snapshot()
    for key, value in _original.items():
        if current.get(key) is not value:
            _say(key + " was replaced")
    # pytest's own plugins add to its classes while configuring (legacypath's startdir).
    configured = _state["configured"]
    # A method added to TestCase is a project's backport (Python 2's assertRaisesRegex), and
    # replaces nothing the tests call.
    for key, value in current.items():
        if (key not in _original and configured is not None and configured.get(key) is not value
                and not key.startswith(_TESTCASE)):
            _say(key + " was added")
    config = _state["config"]
    if config is None:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        cls = _original.get("_pytest.terminal.TerminalReporter")
        if cls is not None and type(reporter) is not cls:
            _say("the terminal reporter was replaced by " + type(reporter).__name__)
        for name, value in list(vars(reporter).items()):
            if callable(value) and callable(getattr(cls, name, None)):
                _say("the terminal reporter's " + name + " was replaced")
    pm = config.pluginmanager
    for name in ("_inner_hookexec", "_hookexec"):
        if _state["pm"] is not None and vars(pm).get(name) is not _state["pm"].get(name):
            _say("the plugin manager's " + name + " was replaced")
    known = _state["known"]
    if known is None:
        return
    entry_points = set()
    try:
        for plugin, _dist in pm.list_plugin_distinfo():
            entry_points.add(id(plugin))
    except Exception:
        pass
    functions = _state["functions"]
    for name in _HOOKS:
        for impl in _hookimpls(config, name):
            plugin = getattr(impl, "plugin", None)
            before = functions.get((name, id(plugin)))
            if before is not None and getattr(impl, "function", None) is not before:
                _say("the " + name + " hook of " + type(plugin).__name__ + " was replaced")
            if id(plugin) in known or id(plugin) in entry_points:
                continue
            if _from_the_project(getattr(impl, "function", None)):
                _say("a " + name + " hook was added at run time from " +
                     os.path.relpath(_source_of(impl.function), _here))


def pytest_configure(config):
    if _state["config"] is None:
        _state["config"] = config
        _state["pm"] = dict((name, vars(config.pluginmanager).get(name))
                            for name in ("_inner_hookexec", "_hookexec"))


def pytest_sessionstart(session):
    config = _state["config"]
    if config is not None and session.config is config and _state["known"] is None:
        plugins = set()
        functions = {}
        for name in _HOOKS:
            for impl in _hookimpls(config, name):
                plugins.add(id(getattr(impl, "plugin", None)))
                functions[(name, id(getattr(impl, "plugin", None)))] = getattr(impl, "function", None)
        _state["functions"] = functions
        _state["known"] = plugins
        _state["configured"] = _snapshot()


def pytest_runtest_logreport(report):
    if not _own_pytest:
        try:
            _check()
        except Exception:
            pass  # the check at exit says so; a report must never fail because of the guard


def _finish():
    if _state["done"]:
        return
    _state["done"] = True
    try:
        _check()
    except Exception as error:
        _say("the check itself failed: " + repr(error))
    lines = ["lab-runner-changed " + _token + ": " + what for what in _findings]
    lines.append("lab-canaries-done " + _token)
    os.write(1, ("\n" + "\n".join(lines) + "\n").encode("utf-8"))


def pytest_unconfigure(config):
    # Registered last, so it runs first at exit, before any handler the project's code made.
    if config is _state["config"]:
        atexit.register(_finish)


os.write(1, ("\nlab-runner-guard " + _token + "\n").encode("utf-8"))
`;
