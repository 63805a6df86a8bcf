"""Reads upstream SWE-bench material from a git mirror of SWE-bench/SWE-bench (see
data/swebench/README.md, "Provenance").  Maintainer tool: lab itself never reads the mirror.

Everything is read with `git show` / `git cat-file` at fixed commits, so a run is reproducible
whatever the mirror's branches point at.  The datasets are parquet files; reading them needs
pyarrow (install it in a throwaway venv), the rest is standard library.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

# The commits every input comes from.
SPEC_COMMIT = "6cd91d8cde95649252150f876f8d5efa5e54bb2b"  # last main-branch spec table
EXPORTS_COMMIT = "5c3f9837c3079d98139ab8e984701bf011a2b44e"  # per-instance env exports
PARSERS_COMMIT = "7a21e05772954cc81471ae19d56f436cecf43c54"  # release 5.0.2, lab's parser ports
DATASETS_COMMIT = "9fa561428aeef6406f534c8370c670f9ce51c630"  # last committed v5 parquets
VERIFIED_FIX_COMMIT = "52b72b35d5b416fa50afe338ba60d59de07c7879"  # Verified with the 10097 fix

SPEC_PATH = "swebench/harness/constants/python.py"
CONSTANTS_PATH = "swebench/harness/constants/__init__.py"
PARSERS_PATH = "swebench/harness/log_parsers/python.py"
DOCKERFILE_PATH = "swebench/harness/dockerfiles/python.py"
EXPORTS_DIR = "swebench/resources/swebench-og/environments"
DATASETS = {
    "lite": "data/SWE-bench_Lite/test.parquet",
    "verified": "data/SWE-bench_Verified/test.parquet",
}


class Mirror:
    """A bare (or not) git repository of SWE-bench/SWE-bench."""

    def __init__(self, path: Path):
        if not (path / "HEAD").exists() and not (path / ".git").exists():
            raise SystemExit(f"{path} is not a git repository of SWE-bench/SWE-bench")
        self.path = path

    def git(self, *args: str, data: bytes | None = None) -> bytes:
        run = subprocess.run(
            ["git", "-C", str(self.path), *args], input=data, capture_output=True, check=False
        )
        if run.returncode != 0:
            raise SystemExit(f"git {' '.join(args)}: {run.stderr.decode().strip()}")
        return run.stdout

    def show(self, commit: str, path: str) -> bytes:
        return self.git("show", f"{commit}:{path}")

    def blob_id(self, commit: str, path: str) -> str:
        return self.git("rev-parse", f"{commit}:{path}").decode().strip()

    def show_many(self, specs: list[str]) -> list[bytes | None]:
        """`git cat-file --batch`: each `commit:path`'s content, or None when it is missing."""
        out = self.git("cat-file", "--batch", data="".join(s + "\n" for s in specs).encode())
        results: list[bytes | None] = []
        pos = 0
        for _ in specs:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            if header[-1] == b"missing":
                results.append(None)
                pos = end + 1
                continue
            size = int(header[2])
            results.append(out[end + 1 : end + 1 + size])
            pos = end + 1 + size + 1
        return results


def load_spec_table(mirror: Mirror) -> dict[str, dict[str, dict]]:
    """MAP_REPO_VERSION_TO_SPECS_PY of the spec table.

    The module is data built with comprehensions and loops, so it is executed, with no builtins
    but `int` (it imports nothing): a changed file that needs more fails loudly.
    """
    source = mirror.show(SPEC_COMMIT, SPEC_PATH).decode()
    namespace: dict = {"__builtins__": {"int": int}}
    exec(compile(source, f"{SPEC_COMMIT[:7]}:{SPEC_PATH}", "exec"), namespace)  # noqa: S102
    return namespace["MAP_REPO_VERSION_TO_SPECS_PY"]


def load_non_test_exts(mirror: Mirror) -> list[str]:
    """NON_TEST_EXTS of the constants module, as a list of strings."""
    source = mirror.show(SPEC_COMMIT, CONSTANTS_PATH).decode()
    match = re.search(r"NON_TEST_EXTS\s*=\s*\[(.*?)\]", source, re.S)
    if not match:
        raise SystemExit("NON_TEST_EXTS not found in the constants module")
    return re.findall(r'"([^"]*)"', match.group(1))


def load_parser_map(mirror: Mirror, commit: str) -> dict[str, tuple[str, str]]:
    """repo -> (parser name, implementation) from MAP_REPO_TO_PARSER_PY and its aliases."""
    source = mirror.show(commit, PARSERS_PATH).decode()
    aliases = dict(re.findall(r"^(parse_log_\w+) = (parse_log_\w+)$", source, re.M))
    block = source[source.index("MAP_REPO_TO_PARSER_PY = {") :]
    block = block[: block.index("}")]
    result = {}
    for repo, name in re.findall(r'"([^"]+)": (parse_log_\w+),', block):
        implementation = aliases.get(name, name)
        if not re.search(rf"^def {implementation}\(", source, re.M):
            raise SystemExit(f"{commit[:7]}: {implementation} is not defined")
        result[repo] = (name, implementation)
    return result


def load_base_image(mirror: Mirror) -> dict:
    """The python base image's ENV lines and apt packages."""
    source = mirror.show(SPEC_COMMIT, DOCKERFILE_PATH).decode()
    base = source[source.index("_DOCKERFILE_BASE_PY") : source.index("_DOCKERFILE_ENV_PY")]
    env = dict(re.findall(r"^ENV (\w+)=(\S+)$", base, re.M))
    install = base[base.index("apt install -y") : base.index("&& rm -rf")]
    packages = re.findall(r"^([a-z0-9][a-z0-9.+-]*) \\$", install, re.M)
    return {"env": env, "apt": packages}


def load_dataset(mirror: Mirror, name: str) -> list[dict]:
    """A v5 dataset's rows; FAIL_TO_PASS and PASS_TO_PASS decoded from their JSON strings."""
    try:
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise SystemExit(
            "reading the datasets needs pyarrow: python3 -m venv /tmp/pq && "
            "/tmp/pq/bin/pip install pyarrow, then run this script with /tmp/pq/bin/python"
        ) from None
    path = DATASETS[name]
    if name == "verified" and mirror.blob_id(DATASETS_COMMIT, path) != mirror.blob_id(
        VERIFIED_FIX_COMMIT, path
    ):
        raise SystemExit(f"{path} differs between {DATASETS_COMMIT[:7]} and {VERIFIED_FIX_COMMIT[:7]}")
    table = pq.read_table(io.BytesIO(mirror.show(DATASETS_COMMIT, path)))
    rows = table.to_pylist()
    for row in rows:
        row["FAIL_TO_PASS"] = json.loads(row["FAIL_TO_PASS"])
        row["PASS_TO_PASS"] = json.loads(row["PASS_TO_PASS"])
    return rows


def export_path(repo: str, instance_id: str) -> str:
    return f"{EXPORTS_DIR}/{repo.split('/')[0]}/{instance_id}.yml"


def parse_export(text: str, where: str) -> dict:
    """A `conda env export` file: python version, conda dependency strings, pip entries.

    The exports have one shape (name, channels, dependencies with a nested pip list, prefix),
    so a small reader does; anything else stops the script.
    """
    conda: list[str] = []
    pip: list[str] = []
    channels: list[str] = []
    section = None
    for line in text.split("\n"):
        if not line.strip():
            continue
        if not line.startswith(" "):
            section = line.split(":", 1)[0]
            if section not in ("name", "channels", "dependencies", "prefix"):
                raise SystemExit(f"{where}: unexpected section {section!r}")
            continue
        if section == "channels":
            channels.append(line.strip()[2:])
        elif section == "dependencies":
            if line == "  - pip:":
                continue
            if line.startswith("      - "):
                pip.append(line[len("      - ") :])
            elif line.startswith("  - "):
                conda.append(line[len("  - ") :])
            else:
                raise SystemExit(f"{where}: unexpected line {line!r}")
        else:
            raise SystemExit(f"{where}: unexpected line {line!r}")
    pythons = [d.split("=")[1] for d in conda if d.split("=")[0] == "python"]
    if len(pythons) != 1:
        raise SystemExit(f"{where}: {len(pythons)} python entries")
    return {"python": pythons[0], "channels": channels, "conda_dependencies": conda, "pip": pip}


def load_exports(mirror: Mirror, rows: list[dict]) -> dict[str, dict | None]:
    """instance_id -> parsed export, or None when upstream has none."""
    specs = [f"{EXPORTS_COMMIT}:{export_path(r['repo'], r['instance_id'])}" for r in rows]
    texts = mirror.show_many(specs)
    return {
        row["instance_id"]: (parse_export(text.decode(), spec) if text is not None else None)
        for row, spec, text in zip(rows, specs, texts)
    }


def eval_script_parts(row: dict) -> dict:
    """The parts of a v5 eval script lab checks or takes: the test command line, and the lines
    between the test patch's heredoc and the start marker (per-instance fixes)."""
    lines = row["eval_script"].split("\n")
    start = lines.index(": '>>>>> Start Test Output'")
    heredoc_end = max(i for i in range(start) if lines[i].startswith("EOF_"))
    return {"test_command": lines[start + 1], "pre_test": lines[heredoc_end + 1 : start], "lines": lines}
