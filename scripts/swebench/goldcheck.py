#!/usr/bin/env python3
"""Gold-patch check of the transcribed environments (maintainer tool, stdlib only).

    python3 scripts/swebench/goldcheck.py --mirror /work/.mirror [--shared DIR]
        [--work /tmp/swebench-gold] [--jobs 2] [--uv PATH] [--pyenv DIR]
        [--pins-override FILE] [ID ...]

For each instance (default: all 53) it does what upstream's image build and
eval.sh do, on the host, with the recipe in data/swebench/environments.json:
clone the mirror at base_commit, run preInstall and commit the result, make a
uv venv with the pins and install the project; then apply the gold patch,
re-run the install, reset the test files (checkout the modified ones, remove
the new ones), apply the test patch, run testCommand + testDirectives with
env, parse the output with the instance's log parser and grade it against
data/swebench/test-lists.json.  Results go to <work>/results.json; the
output of each run to <work>/<id>/test_output.txt.

--pins-override FILE: JSON {instance_id: [pins]} to try a proposed pin fix
without editing environments.json.
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
from buildcheck import find_uv, interpreter  # noqa: E402

STATUSES = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL")


# --- log parsers (semantics of upstream 7a21e05 swebench/harness/log_parsers/python.py) ---


def _skipped_summary(tokens: list[str]) -> bool:
    return tokens[0] == "SKIPPED" and len(tokens) > 1 and re.fullmatch(r"\[\d+\]", tokens[1])


def parse_pytest(log: str, options: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in log.split("\n"):
        if not line.startswith(STATUSES):
            continue
        if line.startswith("FAILED"):
            line = line.replace(" - ", " ")
        tok = line.split()
        if len(tok) <= 1 or _skipped_summary(tok):
            continue
        name = tok[1]
        if options:
            m = re.match(r"(.*?)\[(.*)\]", name)
            if m:
                main, opt = m.groups()
                if opt.startswith("/") and not opt.startswith("//") and "*" not in opt:
                    opt = "/" + opt.split("/")[-1]
                name = f"{main}[{opt}]"
        out[name] = tok[0]
    return out


def parse_pytest_v2(log: str) -> dict[str, str]:
    out: dict[str, str] = {}
    table = str.maketrans("", "", "".join(chr(c) for c in range(1, 32)))
    for line in log.split("\n"):
        line = re.sub(r"\[(\d+)m", "", line).translate(table)
        if line.startswith(STATUSES):
            if line.startswith("FAILED"):
                line = line.split(" - ")[0]
            tok = line.split()
            if len(tok) >= 2 and not _skipped_summary(tok):
                out[" ".join(tok[1:])] = tok[0]
        elif line.endswith(STATUSES):
            tok = line.split()
            if len(tok) >= 2:
                out[" ".join(tok[:-1])] = tok[-1]
    return out


PARSE = {
    "pytest": parse_pytest,
    "pytest_options": lambda log: parse_pytest(log, options=True),
    "pytest_v2": parse_pytest_v2,
}


def lookup(status: dict[str, str], test: str, ok: set[str]) -> bool:
    if test in status:
        return status[test] in ok
    if test.count("[") > test.count("]"):
        cands = [s for t, s in status.items() if t.startswith(test)]
        if cands and len({s in ok for s in cands}) == 1:
            return cands[0] in ok
    return False


def grade(status: dict[str, str], lists: dict) -> dict:
    f2p_ok = {"PASSED", "XFAIL"}
    p2p_ok = {"PASSED", "XFAIL", "SKIPPED"}
    f_fail = [t for t in lists["FAIL_TO_PASS"] if not lookup(status, t, f2p_ok)]
    p_fail = [t for t in lists["PASS_TO_PASS"] if not lookup(status, t, p2p_ok)]
    return {
        "resolved": not f_fail and not p_fail,
        "f2p": f"{len(lists['FAIL_TO_PASS']) - len(f_fail)}/{len(lists['FAIL_TO_PASS'])}",
        "p2p": f"{len(lists['PASS_TO_PASS']) - len(p_fail)}/{len(lists['PASS_TO_PASS'])}",
        "failing": (f_fail + p_fail)[:20],
    }


# --- running ---


def sh(cmd, log, cwd=None, env=None, timeout=1800, stdin=None) -> int:
    log.write(f"$ {cmd if isinstance(cmd, str) else shlex.join(cmd)}\n")
    log.flush()
    try:
        return subprocess.run(
            cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
            input=stdin, shell=isinstance(cmd, str), executable="/bin/bash" if isinstance(cmd, str) else None,
            text=True,
        ).returncode
    except subprocess.TimeoutExpired:
        log.write(f"timeout after {timeout}s\n")
        return 124


def shim_tox_current_env(src: Path, venv: Path, test_command: str) -> None:
    """tox-current-env symlinks .tox/<env>/bin/python to sys.executable; in a
    venv whose python is a symlink, Python started through that second link
    finds no pyvenv.cfg and loses the venv's site-packages ('No module named
    pytest').  Pre-create the three names as wrapper scripts instead (the
    plugin only creates links that do not exist yet)."""
    m = re.search(r"tox --current-env -e ?(\S+)", test_command)
    if not m:
        return
    bindir = src / ".tox" / m.group(1) / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    minor = venv.joinpath("pyvenv.cfg").read_text().split("version_info = ")[1].split(".")[:2]
    for name in ("python", "python" + minor[0], "python" + ".".join(minor)):
        f = bindir / name
        f.write_text(f'#!/bin/sh\nexec "{venv}/bin/python" "$@"\n')
        f.chmod(0o755)


def check(iid: str, e: dict, row: dict, inst: dict, lists: dict, a, uv: str) -> dict:
    work = Path(a.work) / iid
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    src, venv = work / "src", work / "venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "CONDA"))}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv}/bin:{os.environ['PATH']}", **e["env"])
    mirror = Path(a.mirror) / e["repo"].replace("/", "+") / "repo"
    t0 = time.time()
    res: dict = {"stage": "setup"}
    with open(work / "setup.log", "w") as log:
        steps = [
            ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(src)],
            f"cd {src} && git checkout -q {inst['base_commit']}",
            *[f"cd {src} && {line}" for line in e["preInstall"]],
            f"cd {src} && git -c user.email=setup@swebench.config -c user.name=SWE-bench "
            "commit -q --allow-empty -am SWE-bench",
            [uv, "venv", "--python", str(interpreter(Path(a.pyenv), e["python"])), str(venv)],
            [uv, "pip", "install", *e.get("pinsInstallArgs", []), *e["pins"]],
        ]
        install = shlex.split(e["install"])
        install_cmd = [uv, "pip", "install", *e["installArgs"], *install[2:]]
        for step in steps:
            if sh(step, log, env=env):
                return {**res, "result": f"setup failed at: {step if isinstance(step, str) else shlex.join(step)}"}
        if sh(install_cmd, log, cwd=src, env=env):
            return {**res, "result": "project install failed"}
        shim_tox_current_env(src, venv, e["testCommand"])
        res["stage"] = "eval"
        if sh(["git", "apply", "-v", "-"], log, cwd=src, stdin=row["patch"]):
            return {**res, "result": "gold patch did not apply"}
        if sh(install_cmd, log, cwd=src, env=env):
            return {**res, "result": "re-install after patch failed"}
        modified = inst["test_files_reset"]
        new = inst["test_files_new"]
        if modified:
            sh(["git", "checkout", inst["base_commit"], *modified], log, cwd=src)
        if new:
            sh(["rm", "-f", *new], log, cwd=src)
        if sh(["git", "apply", "-v", "-"], log, cwd=src, stdin=row["test_patch"]):
            return {**res, "result": "test patch did not apply"}
    cmd = " ".join([e["testCommand"], *e["testDirectives"]])
    with open(work / "test_output.txt", "w") as log:
        rc = sh(cmd, log, cwd=src, env=env, timeout=a.timeout)
    out = (work / "test_output.txt").read_text(errors="replace")
    status = PARSE[e["logParser"]](out)
    g = grade(status, lists)
    return {**res, "result": "resolved" if g["resolved"] else "unresolved", "exit": rc,
            "parsed": len(status), **g, "seconds": round(time.time() - t0)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "swebench"))
    ap.add_argument("--work", default="/tmp/swebench-gold")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--uv")
    ap.add_argument("--pyenv", default="/root/.pyenv/versions")
    ap.add_argument("--pins-override")
    a = ap.parse_args()
    uv = find_uv(a.uv)
    envs = json.loads((DATA / "environments.json").read_text())
    lists = json.loads((DATA / "test-lists.json").read_text())
    shared = Path(a.shared)
    rows = {r["instance_id"]: r for r in json.loads((shared / "swebench_lite.json").read_text())}
    insts = json.loads((shared / "specs.json").read_text())["lite_instances"]
    overrides = json.loads(Path(a.pins_override).read_text()) if a.pins_override else {}
    ids = a.ids or sorted(envs)
    Path(a.work).mkdir(parents=True, exist_ok=True)
    res_path = Path(a.work) / "results.json"
    results = json.loads(res_path.read_text()) if res_path.exists() else {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {}
        for i in ids:
            e = dict(envs[i])
            if i in overrides:
                e["pins"] = overrides[i]
            futs[pool.submit(check, i, e, rows[i], insts[i], lists[i], a, uv)] = i
        for f in cf.as_completed(futs):
            i = futs[f]
            try:
                results[i] = f.result()
            except Exception as exc:  # keep going; record the crash
                results[i] = {"result": f"crashed: {exc!r}"}
            r = results[i]
            print(i, r["result"], r.get("f2p", ""), r.get("p2p", ""), r.get("seconds", ""),
                  file=sys.stderr, flush=True)
            res_path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
