#!/usr/bin/env python3
"""Transcribe upstream SWE-bench material into lab's own data files.

Maintainer tool, run by hand; lab itself never reads the mirror.

    python3 scripts/swebench/transcribe.py [MIRROR]

MIRROR is a git mirror of SWE-bench/SWE-bench (bare or not; default ../mirrors/SWE-bench/
SWE-bench beside the project).  Everything is read at fixed commits (upstream.py): the spec
table and log-parser map, the per-instance conda exports, and the v5 Lite and Verified
parquets, which need pyarrow (upstream.py says how).  It also reads data/swebench/
build-check.json when present (a one-off build check), and writes, deterministically (sorted
keys, 2-space indent, trailing newline, arrays of scalars folded onto one line when they fit in
100 columns, the way prettier prints JSON):

    data/swebench/environments.json   envs (pins, once per envId), specs (per repo and
                                      version) and instances (what is the instance's own)
    data/swebench/test-lists.json     instance_id -> FAIL_TO_PASS / PASS_TO_PASS

for every instance of SWE-bench Lite and Verified in the twelve repositories.  See
data/swebench/README.md for what each field is and where it comes from.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import conda_map
import decisions as D
import upstream as U

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "data" / "swebench"

REPOS = (
    "astropy/astropy",
    "django/django",
    "matplotlib/matplotlib",
    "mwaskom/seaborn",
    "pallets/flask",
    "psf/requests",
    "pydata/xarray",
    "pylint-dev/pylint",
    "pytest-dev/pytest",
    "scikit-learn/scikit-learn",
    "sphinx-doc/sphinx",
    "sympy/sympy",
)

# Upstream parser implementation -> lab's parser id (src/grader/parse-log.ts).
PARSERS = {
    "parse_log_pytest": "pytest",
    "parse_log_pytest_options": "pytest_options",
    "parse_log_pytest_v2": "pytest_v2",
    "parse_log_django": "django",
    "parse_log_sympy": "sympy",
    "parse_log_matplotlib": "matplotlib",
    "parse_log_seaborn": "seaborn",
}

# The lab-side copy of upstream's NON_TEST_EXTS, checked against the constants module.
NON_TEST_EXTS = [".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"]


def test_directives(repo: str, test_patch: str) -> list[str]:
    """Upstream's get_test_directives (6cd91d8:swebench/harness/test_spec/python.py)."""
    paths = re.findall(r"diff --git a/.* b/(.*)", test_patch)
    paths = [p for p in paths if not any(p.endswith(ext) for ext in NON_TEST_EXTS)]
    if repo != "django/django":
        return paths
    labels = []
    for p in paths:
        p = p[: -len(".py")] if p.endswith(".py") else p
        p = p[len("tests/") :] if p.startswith("tests/") else p
        labels.append(p.replace("/", "."))
    return labels


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


def spec_entry(repo: str, version: str, spec: dict, parser: str, base_env: dict) -> dict:
    """What every instance of a repository version shares."""
    pre_install: list[str] = []
    system: list[str] = []
    for line in spec.get("pre_install", []):
        (system if D.is_system_step(line) else pre_install).append(line)
    exports: dict[str, str] = {}
    for line in spec.get("eval_commands", []):
        m = re.fullmatch(r"export (\w+)=(\S+)", line)
        if m:
            exports[m.group(1)] = m.group(2)
        elif D.is_system_step(line):
            system.append(line)
        else:
            raise SystemExit(f"{repo} {version}: unclassified eval command {line!r}")
    debian = [p for line in system for p in D.apt_packages(line)]
    debian += [p for p in D.debian_extra(repo, version) if p not in debian]
    notes = list(D.REPO_NOTES[repo]) + D.VERSION_NOTES.get((repo, version), [])
    entry = {
        "repo": repo,
        "version": version,
        "preInstall": [D.rewrite_pre_install(line) for line in pre_install],
        "install": D.rewrite_install(spec["install"]),
        "installArgs": D.install_args(repo, version),
        "testCommand": spec["test_cmd"],
        "env": {"TZ": base_env["TZ"], **exports},
        "logParser": parser,
        # lab serves httpbin on loopback for requests' suites, which read HTTPBIN_URL, and
        # stands in for the outside hosts they name (httpbin.org over HTTPS, ...).
        "services": ["httpbin", "internet"] if repo == "psf/requests" else [],
        "notes": notes,
    }
    if repo == "django/django":
        entry["testDirectiveRule"] = "django"
    if debian:
        entry["debianPackages"] = debian
    if system:
        entry["systemSetup"] = system
    return entry


def main(argv: list[str]) -> int:
    mirror_dir = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "mirrors" / "SWE-bench" / "SWE-bench"
    mirror = U.Mirror(mirror_dir)
    specs = U.load_spec_table(mirror)
    if U.load_non_test_exts(mirror) != NON_TEST_EXTS:
        raise SystemExit("NON_TEST_EXTS changed upstream: update transcribe.py and patch-files.ts")
    parser_map = U.load_parser_map(mirror, U.PARSERS_COMMIT)
    if U.load_parser_map(mirror, U.SPEC_COMMIT) != parser_map:
        raise SystemExit("MAP_REPO_TO_PARSER_PY differs between the spec and parser commits")
    base = U.load_base_image(mirror)
    # lab's Debian additions that stand for the base image's packages (decisions.DEBIAN_EXTRA).
    for package in ("build-essential", "locales-all", "wget"):
        if package not in base["apt"]:
            raise SystemExit(f"upstream's base image no longer installs {package}")
    checks_path = OUT_DIR / "build-check.json"
    checks = json.loads(checks_path.read_text(encoding="utf-8")) if checks_path.exists() else {}

    rows: dict[str, dict] = {}
    member: dict[str, list[str]] = {}
    for name in ("lite", "verified"):
        for row in U.load_dataset(mirror, name):
            if row["repo"] not in REPOS:
                continue
            iid = row["instance_id"]
            if iid in rows:
                keys = ("repo", "version", "base_commit", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "eval_script")
                if any(rows[iid][k] != row[k] for k in keys):
                    raise SystemExit(f"{iid}: Lite and Verified rows differ")
            rows[iid] = row
            member.setdefault(iid, []).append(name)
    exports = U.load_exports(mirror, list(rows.values()))

    spec_entries: dict[str, dict] = {}
    envs: dict[str, dict] = {}
    instances: dict[str, dict] = {}
    tests: dict[str, dict] = {}
    for iid in sorted(rows):
        row = rows[iid]
        repo, version = row["repo"], row["version"]
        spec = specs[repo].get(version)
        if spec is None:
            raise SystemExit(f"{iid}: no spec for {repo} {version}")
        parser_name, implementation = parser_map[repo]
        if row["log_parser"] != parser_name:
            raise SystemExit(f"{iid}: dataset log_parser {row['log_parser']} != {parser_name}")
        key = f"{repo}@{version}"
        if key not in spec_entries:
            spec_entries[key] = spec_entry(repo, version, spec, PARSERS[implementation], base["env"])
        sentry = spec_entries[key]

        directives = test_directives(repo, row["test_patch"])
        parts = U.eval_script_parts(row)
        if " ".join([spec["test_cmd"], *directives]) != parts["test_command"]:
            raise SystemExit(f"{iid}: test_cmd + directives differs from the eval script's")
        for line in [spec["install"], *spec.get("eval_commands", [])]:
            if line not in parts["lines"]:
                raise SystemExit(f"{iid}: the eval script lacks {line!r}")
        pre_test = parts["pre_test"]

        export = exports[iid]
        if export is None:
            raise SystemExit(f"{iid}: upstream has no environment export")
        keep_pip = repo in D.KEEP_CONDA_PIP
        pins, unmapped, _system = conda_map.build_pins(export, keep_pip)
        pins = [conda_map.PIN_FIXES.get(pin, pin) for pin in pins]
        own = conda_map.canon(repo.split("/")[1])
        if any(conda_map.canon(re.split(r"[=<>;]", p)[0]) == own for p in pins):
            raise SystemExit(f"{iid}: the export pins the project itself")
        if not keep_pip and any(p.startswith("pip-tools==") for p in pins):
            raise SystemExit(f"{iid}: pip-tools depends on pip: add {repo} to KEEP_CONDA_PIP")
        pins_args = D.PINS_INSTALL_ARGS.get(repo, D.COMPILE)
        eid = env_id(export["python"], pins, pins_args)
        check = checks.get(eid)
        env = {
            "python": export["python"],
            "pins": pins,
            "pinsInstallArgs": pins_args,
            "unmapped": unmapped,
            "buildCheck": check["result"] if check else "unchecked",
        }
        build_constraints = D.pins_build_constraints(export["python"])
        if build_constraints:
            env["pinsBuildConstraints"] = build_constraints
        if eid in envs and envs[eid] != env:
            raise SystemExit(f"{iid}: environment {eid} differs between instances")
        envs[eid] = env
        for pin in pins:
            for package in D.DEBIAN_FOR_PIN.get(conda_map.canon(pin.split("==")[0]), []):
                sentry.setdefault("debianPackages", [])
                if package not in sentry["debianPackages"]:
                    sentry["debianPackages"].append(package)

        notes = list(D.INSTANCE_NOTES.get(iid, []))
        if (
            repo == "sphinx-doc/sphinx"
            and iid not in D.INSTANCE_NOTES
            and not any(p.startswith("sphinxcontrib-") for p in pins)
        ):
            notes.append(D.MISSING_SPHINXCONTRIB_NOTE)
        if pre_test:
            notes.append(D.pre_test_note(pre_test))
        notes.append(D.interp_note(export["python"], spec["python"]))
        notes += D.common_notes({k: v for k, v in sentry["env"].items() if k != "TZ"})
        if check and check.get("notes"):
            notes += check["notes"]
        inst = {"spec": key, "envId": eid, "testDirectives": directives, "notes": notes, "datasets": member[iid]}
        if pre_test:
            inst["preTest"] = [D.rewrite_pip(line) for line in pre_test]
        instances[iid] = inst
        # Only Lite's: other datasets' lists are their own rows' columns (data/swebench/README.md).
        if "lite" in member[iid]:
            tests[iid] = {"FAIL_TO_PASS": row["FAIL_TO_PASS"], "PASS_TO_PASS": row["PASS_TO_PASS"]}

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    write_json(OUT_DIR / "environments.json", {"envs": envs, "specs": spec_entries, "instances": instances})
    write_json(OUT_DIR / "test-lists.json", tests)
    print(
        f"wrote {len(instances)} instances, {len(spec_entries)} repo versions, "
        f"{len(envs)} distinct environments",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
