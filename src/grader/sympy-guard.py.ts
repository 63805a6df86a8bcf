/**
 * The runner guard for SymPy's bin/test (`runner-guard.ts`): a `sitecustomize` module lab puts
 * first on PYTHONPATH, so every Python of the test run (bin/test, and the child it starts for
 * hash randomization, where the tests run) imports it before the project's code. It watches
 * the import of SymPy's test runner (`sympy/utilities/runtests.py`, later `sympy/testing/`),
 * notes its reporting path as that import left it (the reporter classes' methods, the test
 * classes', the module's functions), and prints, at the end of the test session, what of it was
 * replaced, then the canaries' sentinel. The site's own `sitecustomize`, if any, still runs.
 * Python 3.4 and later (SWE-bench's SymPy environments are 3.9); older ones run it as a no-op.
 */
export const SYMPY_GUARD_PY = String.raw`
import atexit
import os
import sys

_token = os.environ.get("LAB_RUNNER_GUARD", "")
_own_dir = os.path.dirname(os.path.realpath(__file__))
# Out of sys.path (tests that read it see the project's), kept on PYTHONPATH for the child.
sys.path[:] = [entry for entry in sys.path if not entry or os.path.realpath(entry) != _own_dir]


def _site_customize():
    # The environment's own sitecustomize, which this module's name hides.
    try:
        import importlib.machinery
        import importlib.util
    except ImportError:
        return
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_WATCHED = ("sympy.utilities.runtests", "sympy.testing.runtests")
_CLASSES = ("Reporter", "PyTestReporter", "SymPyTests", "SymPyDocTests")
_FUNCTIONS = ("test", "_test", "doctest", "_doctest", "run_in_subprocess_with_hash_randomization")
_original = {}
_classes = {}
_findings = []
_state = {"armed": False, "done": False}


def _snapshot(module):
    seen = {}
    for name in _FUNCTIONS:
        if hasattr(module, name):
            seen[module.__name__ + "." + name] = getattr(module, name)
    for name in _CLASSES:
        cls = getattr(module, name, None)
        if not isinstance(cls, type):
            continue
        seen[module.__name__ + "." + name] = cls
        for key, value in list(vars(cls).items()):
            if not key.startswith("__") or key == "__init__":
                seen[module.__name__ + "." + name + "." + key] = value
    return seen


def _arm():
    # At the end of the test session: registered now, the check runs first at exit, before any
    # handler the project's code registered, so what those print comes after the sentinel.
    if not _state["armed"]:
        _state["armed"] = True
        atexit.register(_finish)


def _watch(module):
    reporter = getattr(module, "PyTestReporter", None)
    finish = vars(reporter).get("finish") if isinstance(reporter, type) else None
    # One class under two module names (sympy.utilities.runtests re-exports sympy.testing's).
    if finish is not None and not getattr(finish, "_lab_guard", False):
        def finished(self, *args, **kwargs):
            try:
                return finish(self, *args, **kwargs)
            finally:
                _arm()
        finished.__name__ = "finish"
        finished._lab_guard = True
        finished.__doc__ = getattr(finish, "__doc__", None)
        reporter.finish = finished
    _original.update(_snapshot(module))
    for name in _CLASSES:
        if isinstance(getattr(module, name, None), type):
            _classes[module.__name__ + "." + name] = getattr(module, name)


def _say(what):
    if what not in _findings:
        _findings.append(what)


def _check():
    modules = [sys.modules.get(name) for name in _WATCHED]
    current = {}
    for module in modules:
        if module is not None:
            current.update(_snapshot(module))
    for key, value in _original.items():
        if current.get(key) is not value:
            _say(key + " was replaced")
    for key, value in current.items():
        if key not in _original and key.rsplit(".", 1)[0] in _classes:
            _say(key + " was added")
    reporters = tuple(cls for key, cls in _classes.items() if key.endswith(".Reporter"))
    if not reporters:
        return
    import gc
    for thing in gc.get_objects():
        try:
            if not isinstance(thing, reporters):
                continue
        except Exception:
            continue
        kind = type(thing)
        if kind not in _classes.values():
            _say("a reporter of class " + kind.__name__ + " (not SymPy's) reported")
        for name, value in list(getattr(thing, "__dict__", {}).items()):
            if callable(value) and callable(getattr(kind, name, None)):
                _say("the reporter's " + name + " was replaced")


def _finish():
    if _state["done"]:
        return
    _state["done"] = True
    try:
        _check()
    except Exception as error:
        _say("the check itself failed: " + repr(error))
    try:
        sys.stdout.flush()
    except Exception:
        pass
    lines = ["lab-runner-changed " + _token + ": " + what for what in _findings]
    lines.append("lab-canaries-done " + _token)
    os.write(1, ("\n" + "\n".join(lines) + "\n").encode("utf-8"))


def _install():
    import importlib.abc

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name not in _WATCHED:
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
                _watch(module)

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Finder())
    # Registered first, it runs last: a run that never reached the reporter's end still says
    # what it found, after everything else.
    atexit.register(_finish)
    os.write(1, ("\nlab-runner-guard " + _token + "\n").encode("utf-8"))


if _token and sys.version_info >= (3, 4):
    _install()
try:
    _site_customize()
except Exception:
    pass
`;
