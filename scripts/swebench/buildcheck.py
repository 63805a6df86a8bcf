#!/usr/bin/env python3
"""Build every distinct environment of data/swebench/environments.json with uv.

Maintainer tool, run by hand (standard library only):

    python3 scripts/swebench/buildcheck.py [--jobs 2] [--work /tmp/swebench-envs]
        [--uv PATH] [--pyenv /root/.pyenv/versions] [--only ENVID ...]
        [--project MIRROR_ROOT]

For each distinct (python, pins) environment it runs

    uv venv --python <interpreter> <work>/<envId>
    VIRTUAL_ENV=<work>/<envId> uv pip install [pinsInstallArgs] <pins>

and records "ok" or "failed: <package>: <reason>" in data/swebench/build-check.json
(keyed by envId; transcribe.py copies the result into each instance entry as
buildCheck).  The interpreter is the newest pyenv CPython with the same
major.minor as the environment's python.  Logs go to <work>/<envId>.log.

With --project MIRROR_ROOT (a folder holding <owner>+<name>/repo git
directories, as the search tool's fetch leaves them) it also installs the
project itself, per instance, into a copy of its environment: a clone of the
mirror at base_commit, the preInstall lines, then the install command with
`pip` run as `uv pip` (plus installArgs).  Results go to the "projects" key of
build-check.json.  Nothing is written into the mirror.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "swebench"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from transcribe import write_json  # noqa: E402  (prettier-shaped JSON)


def find_uv(given: str | None) -> str:
    for cand in (given, shutil.which("uv"), "/tmp/uvt/bin/uv"):
        if cand and Path(cand).exists():
            return cand
    raise SystemExit("uv not found: pass --uv (or python3 -m pip install --target /tmp/uvt uv)")


def interpreter(pyenv: Path, python: str) -> Path:
    minor = ".".join(python.split(".")[:2])
    found = []
    for d in pyenv.iterdir():
        m = re.fullmatch(re.escape(minor) + r"\.(\d+)", d.name)
        exe = d / "bin" / f"python{minor}"
        if m and exe.exists():
            found.append((int(m.group(1)), exe))
    if not found:
        raise SystemExit(f"no CPython {minor} under {pyenv}")
    return max(found)[1]


ERR_PATTERNS = [
    # uv: "× Failed to build `pkg==1.2.3`" / "Failed to download `pkg==1.2`"
    re.compile(r"Failed to (?:build|download|install|prepare[^`]*) `([^`]+)`"),
    # uv resolver: "Because pkg==1.2 depends on ..." / "Because there is no version of pkg==1"
    re.compile(r"Because (?:there is no version of |only )?([A-Za-z0-9_.\-]+(?:[=<>!~]=?[^\s,]+)?)"),
]


def summarize(log: str) -> str:
    """'<package>: <reason>' from a failed uv run."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    pkg = "?"
    for pat in ERR_PATTERNS:
        for ln in lines:
            m = pat.search(ln)
            if m:
                pkg = m.group(1)
                break
        if pkg != "?":
            break
    # the most specific line: a compiler error, a Python exception, a resolver cause
    specific = [
        re.compile(r"\S+:\d+:\d+: (?:fatal )?error: .*"),
        re.compile(r"\b[A-Za-z]*Error: .*"),
        re.compile(r"Because .*"),
    ]
    reason = ""
    for pat in specific:
        for ln in lines:
            m = pat.search(ln)
            if m and not m.group(0).startswith("Command '"):
                reason = m.group(0)
                break
        if reason:
            break
    if not reason:
        errs = [ln for ln in lines if ln.lower().startswith("error:")]
        reason = errs[-1] if errs else (lines[-1] if lines else "")
    return f"{pkg}: {reason[:300]}"


def run(cmd: list[str], log, env=None, cwd=None, timeout=1800) -> int:
    log.write(f"$ {shlex.join(cmd)}\n")
    log.flush()
    try:
        p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd, timeout=timeout)
        return p.returncode
    except subprocess.TimeoutExpired:
        log.write(f"timeout after {timeout}s\n")
        return 124


def build_env(uv: str, pyenv: Path, work: Path, eid: str, spec: dict) -> dict:
    py = interpreter(pyenv, spec["python"])
    venv = work / eid
    logp = work / f"{eid}.log"
    if venv.exists():
        shutil.rmtree(venv)
    t0 = time.time()
    with open(logp, "w") as log:
        env = dict(os.environ, VIRTUAL_ENV=str(venv))
        rc = run([uv, "venv", "--python", str(py), str(venv)], log)
        if rc == 0:
            args = list(spec.get("pinsInstallArgs", []))
            rc = run([uv, "pip", "install", *args, *spec["pins"]], log, env=env)
    text = logp.read_text(errors="replace")
    result = "ok" if rc == 0 else "failed: " + summarize(text)
    check = []
    if rc == 0:
        p = subprocess.run([uv, "pip", "check"], env=env, capture_output=True, text=True)
        check = [ln.strip() for ln in p.stdout.splitlines() if ln.strip().startswith("The package")]
    return {
        "pipCheck": check,
        "python": spec["python"],
        "interpreter": str(py),
        "pins": len(spec["pins"]),
        "result": result,
        "seconds": round(time.time() - t0),
    }


def uv_cmd(uv: str, line: str) -> list[str]:
    """Turn an upstream 'pip install ...' line into a uv pip command."""
    argv = shlex.split(line)
    if argv[:2] != ["pip", "install"]:
        raise SystemExit(f"unexpected install command: {line}")
    return [uv, "pip", "install", *argv[2:]]


def build_project(uv: str, pyenv: Path, work: Path, mirror_root: Path, iid: str, e: dict) -> dict:
    src = work / "src" / iid
    venv = work / "proj" / iid
    logp = work / "proj" / f"{iid}.log"
    venv.parent.mkdir(parents=True, exist_ok=True)
    for d in (src, venv):
        if d.exists():
            shutil.rmtree(d)
    mirror = mirror_root / e["repo"].replace("/", "+") / "repo"
    env = dict(os.environ, VIRTUAL_ENV=str(venv))
    with open(logp, "w") as log:
        rc = run(["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(src)], log)
        if rc == 0:
            rc = run(["git", "checkout", "-q", e["baseCommit"]], log, cwd=src)
        for line in e["preInstall"] if rc == 0 else []:
            rc = run(["bash", "-c", line], log, cwd=src)
            if rc:
                break
        if rc == 0:
            rc = run([uv, "venv", "--python", str(interpreter(pyenv, e["python"])), str(venv)], log)
        if rc == 0:
            args = list(e.get("pinsInstallArgs", []))
            rc = run([uv, "pip", "install", *args, *e["pins"]], log, env=env)
        if rc == 0:
            cmd = uv_cmd(uv, e["install"])
            cmd[3:3] = e.get("installArgs", [])
            rc = run(cmd, log, env=env, cwd=src)
        if rc == 0:
            rc = run([uv, "pip", "freeze"], log, env=env)
    text = logp.read_text(errors="replace")
    return {"result": "ok" if rc == 0 else "failed: " + summarize(text)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default="/tmp/swebench-envs")
    ap.add_argument("--uv")
    ap.add_argument("--pyenv", default="/root/.pyenv/versions")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--skip-envs", action="store_true", help="with --project: do not rebuild the envs")
    ap.add_argument("--project", help="mirror root: also install each instance's project")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "swebench"))
    a = ap.parse_args()
    uv = find_uv(a.uv)
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    envs = json.loads((DATA / "environments.json").read_text())
    distinct: dict[str, dict] = {}
    for iid, e in sorted(envs.items()):
        d = distinct.setdefault(e["envId"], {**e, "instances": []})
        d["instances"].append(iid)
    out_path = DATA / "build-check.json"
    out = json.loads(out_path.read_text()) if out_path.exists() else {}
    todo = [k for k in sorted(distinct) if (not a.only or k in a.only) and not a.skip_envs]
    for k in [k for k in out if k != "projects" and k not in distinct]:
        del out[k]
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(build_env, uv, Path(a.pyenv), work, k, distinct[k]): k for k in todo}
        for f in cf.as_completed(futs):
            k = futs[f]
            res = f.result()
            res["instances"] = distinct[k]["instances"]
            prev = out.get(k, {})
            for key in ("pinsInstallArgs", "installArgs", "notes"):
                if key in prev:
                    res[key] = prev[key]
            out[k] = res
            print(f"{k} {res['result']} ({res['seconds']}s)", file=sys.stderr, flush=True)
    if a.project:
        specs_path = Path(a.shared) / "specs.json"
        base_commits = {
            k: v["base_commit"]
            for k, v in json.loads(specs_path.read_text())["lite_instances"].items()
        }
        projects = out.setdefault("projects", {})
        ids = [i for i, e in sorted(envs.items()) if not a.only or e["envId"] in a.only]
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futs = {
                pool.submit(
                    build_project, uv, Path(a.pyenv), work, Path(a.project), i,
                    {**envs[i], "baseCommit": base_commits[i]},
                ): i
                for i in ids
            }
            for f in cf.as_completed(futs):
                i = futs[f]
                projects[i] = f.result()
                print(f"{i} project {projects[i]['result']}", file=sys.stderr, flush=True)
    write_json(out_path, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
