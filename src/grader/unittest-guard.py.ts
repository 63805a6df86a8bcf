/**
 * The runner guard for unittest runs (`runner-guard.ts`), Django's `tests/runtests.py` first: a
 * `sitecustomize` module lab puts first on PYTHONPATH, so the test run's Python imports it
 * before the project's code. It watches the import of `unittest` (the standard library, which a
 * change cannot write) and of Django's `django.test.runner`, and notes, as those imports left
 * them, the reporting path: the result, runner, test case and suite classes' methods, Django's
 * DiscoverRunner and result classes. At the end of the outermost `TextTestRunner.run` it checks
 * them, the runner and the result that ran, and registers its exit handler, which checks again
 * and prints what was replaced, then the canaries' sentinel. Only the test run's own Python
 * loads it: it takes its token and folder out of the environment, so the Pythons the tests
 * start (django-admin in Django's admin_scripts tests) print nothing of lab's. The site's own
 * `sitecustomize`, if any, still runs. Python 3.4 and later (Django's SWE-bench environments
 * are 3.5 to 3.11); older ones run it as a no-op.
 */
export const UNITTEST_GUARD_PY = String.raw`
import atexit
import os
import sys

_token = os.environ.get("LAB_RUNNER_GUARD", "")
_own_dir = os.path.dirname(os.path.realpath(__file__))


def _is_own(entry):
    return bool(entry) and os.path.realpath(entry) == _own_dir


# Out of sys.path (tests that read it see the project's), and out of the environment of the
# Pythons the tests start: they run no guard and print no line of lab's.
sys.path[:] = [entry for entry in sys.path if not _is_own(entry)]
if _token:
    os.environ.pop("LAB_RUNNER_GUARD", None)
    _rest = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if not _is_own(entry)]
    if any(_rest):
        os.environ["PYTHONPATH"] = os.pathsep.join(_rest)
    else:
        os.environ.pop("PYTHONPATH", None)


def _site_customize():
    # The environment's own sitecustomize, which this module's name hides.
    try:
        import importlib.machinery
    except ImportError:
        return
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is None or spec.loader is None:
        return
    import importlib.util  # Only now: it costs more at start-up than the rest of this module.

    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


# (module, class): what of the reporting path is noted; each class's methods with it.
_UNITTEST = (
    ("unittest.result", "TestResult"),
    ("unittest.runner", "TextTestResult"),
    ("unittest.runner", "TextTestRunner"),
    ("unittest.case", "TestCase"),
    ("unittest.suite", "BaseTestSuite"),
    ("unittest.suite", "TestSuite"),
    ("unittest", "TestResult"),
    ("unittest", "TextTestResult"),
    ("unittest", "TextTestRunner"),
    ("unittest", "TestCase"),
    ("unittest", "TestSuite"),
)
_DJANGO = (
    ("django.test.runner", "DiscoverRunner"),
    ("django.test.runner", "DebugSQLTextTestResult"),
    ("django.test.runner", "PDBDebugResult"),
    ("django.test.runner", "RemoteTestResult"),
    ("django.test.runner", "RemoteTestRunner"),
    ("django.test.runner", "ParallelTestSuite"),
)
# The result classes an honest run reports through: unittest's, or Django's for --debug-sql
# and --pdb.
_RESULTS = (
    ("unittest.runner", "TextTestResult"),
    ("django.test.runner", "DebugSQLTextTestResult"),
    ("django.test.runner", "PDBDebugResult"),
)
_KINDS = (classmethod, staticmethod, property)
_original = {}
_mro = {}
_results = set()
_findings = []
_state = {"depth": 0, "armed": False, "done": False, "runner": None, "result": None}


def _snapshot(watched):
    seen = {}
    classes = set()
    for module_name, class_name in watched:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if not isinstance(cls, type):
            continue
        where = module_name + "." + class_name
        seen[where] = cls
        # A class bound under two names (unittest.TestCase, unittest.case.TestCase): its
        # methods once, under the first.
        if cls in classes:
            continue
        classes.add(cls)
        for key, value in list(vars(cls).items()):
            if key.startswith("__") and key not in ("__init__", "__call__"):
                continue
            # Methods and classes only: a setting (maxDiff) is the tests' to change.
            if callable(value) or isinstance(value, _KINDS):
                seen[where + "." + key] = value
    return seen


def _note(watched):
    _original.update(_snapshot(watched))
    for module_name, class_name in watched:
        cls = _original.get(module_name + "." + class_name)
        if cls is not None:
            _mro[module_name + "." + class_name] = cls.__mro__
            if (module_name, class_name) in _RESULTS:
                _results.add(cls)


def _watch_unittest(module):
    runner = sys.modules["unittest.runner"].TextTestRunner
    run = vars(runner).get("run")
    if run is not None and not getattr(run, "_lab_guard", False):
        def guarded_run(self, test):
            outermost = _state["depth"] == 0
            _state["depth"] += 1
            result = None
            try:
                result = run(self, test)
                return result
            finally:
                _state["depth"] -= 1
                if outermost and not _state["armed"]:
                    _arm(self, result)

        guarded_run.__name__ = "run"
        guarded_run.__doc__ = getattr(run, "__doc__", None)
        guarded_run._lab_guard = True
        runner.run = guarded_run
    _note(_UNITTEST)


def _arm(runner, result):
    # At the end of the outermost run (a test that runs a suite of its own runs an inner one):
    # registered now, the exit handler runs before any the project's code registered, so what
    # those print comes after the sentinel.
    _state["armed"] = True
    _state["runner"] = runner
    _state["result"] = result
    try:
        _check()
    except Exception as error:
        _say("the check itself failed: " + repr(error))
    atexit.register(_finish)


def _say(what):
    if what not in _findings:
        _findings.append(what)


def _name(cls):
    return getattr(cls, "__module__", "?") + "." + getattr(cls, "__name__", "?")


def _check():
    current = _snapshot(_UNITTEST + _DJANGO)
    for key, value in _original.items():
        if current.get(key) is not value:
            _say(key + " was replaced")
    for key in current:
        if key not in _original and key.rsplit(".", 1)[0] in _mro:
            _say(key + " was added")
    for key, mro in _mro.items():
        cls = _original.get(key)
        if cls is not None and cls.__mro__ != mro:
            _say(key + "'s base classes were changed")
    runner = _state["runner"]
    expected = _original.get("unittest.runner.TextTestRunner")
    if runner is not None and expected is not None and type(runner) is not expected:
        _say("a test runner of class " + _name(type(runner)) + " (not unittest's) ran the tests")
    result = _state["result"]
    if result is None:
        return
    kind = type(result)
    if kind not in _results:
        _say("a test result of class " + _name(kind) + " (not unittest's nor Django's) recorded the results")
    for name, value in list(getattr(result, "__dict__", {}).items()):
        if callable(value) and callable(getattr(kind, name, None)):
            _say("the test result's " + name + " was replaced")


def _finish():
    if _state["done"]:
        return
    _state["done"] = True
    try:
        _check()
    except Exception as error:
        _say("the check itself failed: " + repr(error))
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    lines = ["lab-runner-changed " + _token + ": " + what for what in _findings]
    # The sentinel says the run reached its end; a process that left before has none.
    if _state["armed"]:
        lines.append("lab-canaries-done " + _token)
    if lines:
        os.write(1, ("\n" + "\n".join(lines) + "\n").encode("utf-8"))


_WATCHERS = {
    "unittest": _watch_unittest,
    "django.test.runner": lambda module: _note(_DJANGO),
}


def _install():
    # A plain class: importlib.abc costs more at start-up (typing, on 3.11) than this module.
    class _Finder(object):
        def find_spec(self, name, path, target=None):
            watch = _WATCHERS.get(name)
            if watch is None:
                return None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            run = getattr(loader, "exec_module", None)
            if run is None:
                return spec

            def exec_module(module):
                run(module)
                watch(module)

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Finder())
    for name, watch in _WATCHERS.items():
        if name in sys.modules:
            watch(sys.modules[name])
    # Registered first, it runs last: a run that never reached its end still says what it
    # found (without the sentinel), after everything else.
    atexit.register(_finish)
    os.write(1, ("\nlab-runner-guard " + _token + "\n").encode("utf-8"))


if _token and sys.version_info >= (3, 4):
    _install()
try:
    _site_customize()
except Exception:
    pass
`;
