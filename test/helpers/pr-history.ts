import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pyproject } from "./fixture-suite.js";

/** Files of a change: path to new content, or null to delete the file. */
export type Changes = Readonly<Record<string, string | null>>;

/** One commit of a pull request's branch. */
export interface BranchCommit {
  readonly message: string;
  readonly files: Changes;
}

/**
 * Builds a real git repository with a history of pull-request-like changes on `main`: direct
 * commits, squash merges ("Title (#N)") and merge commits of a branch of several commits.
 * Every commit gets the next day as its date, so dates (and the dependency resolution that
 * depends on them) are the same on every run.
 */
export class PrHistory {
  /** The repository's folder. */
  readonly dir: string;
  /** Label -> the commit on main that brought the change. */
  readonly commits: Record<string, string> = {};
  private day = 0;
  private readonly start: number;

  constructor(dir: string, startDate = "2025-09-01T12:00:00Z") {
    this.dir = dir;
    this.start = Date.parse(startDate);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    this.git("init", "-q", "-b", "main");
  }

  /** Runs git in the repository with a fixed identity and the next date. */
  git(...args: string[]): string {
    const date = new Date(this.start + this.day * 86_400_000).toISOString();
    return execFileSync("git", args, {
      cwd: this.dir,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: this.dir,
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "dev",
        GIT_AUTHOR_EMAIL: "dev@example.com",
        GIT_COMMITTER_NAME: "dev",
        GIT_COMMITTER_EMAIL: "dev@example.com",
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      },
    }).trim();
  }

  private apply(files: Changes): void {
    for (const [file, content] of Object.entries(files)) {
      const full = path.join(this.dir, file);
      if (content === null) rmSync(full, { force: true });
      else {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
    this.git("add", "-A");
  }

  private commit(message: string): string {
    this.day++;
    this.git("commit", "-q", "--allow-empty", "-m", message);
    return this.git("rev-parse", "HEAD");
  }

  /** A commit straight on main (the root commit, or a push without a pull request). */
  direct(label: string, message: string, files: Changes): string {
    this.apply(files);
    return (this.commits[label] = this.commit(message));
  }

  /** A squash merge: one commit on main whose subject ends in "(#pr)". */
  squash(label: string, pr: number, message: string, files: Changes): string {
    const [subject = "", ...body] = message.split("\n");
    this.apply(files);
    return (this.commits[label] = this.commit([`${subject} (#${String(pr)})`, ...body].join("\n")));
  }

  /** A merge commit of a branch holding `branch`'s commits, GitHub's way ("Merge pull request #N from ..."). */
  merge(label: string, pr: number, title: string, branch: readonly BranchCommit[]): string {
    const name = `dev/${label}`;
    this.git("checkout", "-q", "-b", name);
    for (const commit of branch) {
      this.apply(commit.files);
      this.commit(commit.message);
    }
    this.git("checkout", "-q", "main");
    this.day++;
    this.git(
      "merge",
      "-q",
      "--no-ff",
      name,
      "-m",
      `Merge pull request #${String(pr)} from ${name}\n\n${title}`,
    );
    this.git("branch", "-q", "-D", name);
    return (this.commits[label] = this.git("rev-parse", "HEAD"));
  }

  /** A tag on the current commit. */
  tag(name: string): void {
    this.git("tag", "-a", name, "-m", name);
  }
}

const TEST_CORE = (tests: string[]): string =>
  ["from widget import clamp", "", ...tests].join("\n\n") + "\n";
const LOW = "def test_low():\n    assert clamp(-5, 0, 10) == 0";
const HIGH = "def test_high():\n    assert clamp(50, 0, 10) == 10";
const INSIDE = "def test_inside():\n    assert clamp(5, 0, 10) == 5";
const INVERTED =
  "def test_rejects_inverted_bounds():\n    import pytest\n\n    with pytest.raises(ValueError):\n        clamp(1, 10, 0)";
const SLUG =
  "from widget.text import slugify\n\n\ndef test_slugify_spaces():\n    assert slugify('a b') == 'a-b'\n\n\ndef test_slugify_lowercase():\n    assert slugify('AB') == 'ab'\n";
const TRUNCATE =
  "\n\ndef test_truncate():\n    from widget.text import truncate\n\n    assert truncate('abcdef', 4) == 'abc…'\n";

/** What the acceptance history should give for each of its ten changes. */
export interface ExpectedChange {
  readonly label: string;
  readonly kept: boolean;
  readonly category?: string;
  readonly failToPass?: readonly string[];
  readonly passToPass?: readonly string[];
}

/**
 * The acceptance history: ten pull-request-like changes to a small package, six valid and four
 * not (a change without tests, tests that pass before the fix, a flaky test, a change whose
 * base commit cannot be installed). The flaky test fails every third time it asks
 * `counterUrl` (see startRunCounter): grades run sandboxed, so a counter file would not do.
 */
export function buildAcceptanceHistory(
  dir: string,
  counterUrl: string,
): { history: PrHistory; expected: ExpectedChange[] } {
  const h = new PrHistory(dir);
  h.direct("root", "widget 0.1", {
    "pyproject.toml": pyproject("widget"),
    ".gitignore": "__pycache__/\n.pytest_cache/\n",
    "README.md": "# widget\n",
    "src/widget/__init__.py": "from .core import clamp\n",
    "src/widget/core.py": "def clamp(value, low, high):\n    return max(low, value)\n",
    "tests/test_core.py": TEST_CORE([LOW]),
  });
  h.tag("v0.1");
  h.squash("clamp-high", 1, "Fix clamp ignoring the upper bound\n\nclamp(50, 0, 10) returned 50.", {
    "src/widget/core.py": "def clamp(value, low, high):\n    return min(high, max(low, value))\n",
    "tests/test_core.py": TEST_CORE([LOW, HIGH]),
  });
  h.merge("slugify", 2, "Add slugify()", [
    {
      message: "Add text.slugify",
      files: {
        "src/widget/text.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
      },
    },
    { message: "Test slugify", files: { "tests/test_text.py": SLUG } },
  ]);
  h.direct("readme", "Describe clamp in the README", {
    "README.md": "# widget\n\n`clamp(value, low, high)` keeps a value in bounds.\n",
  });
  h.squash("refactor", 4, "Simplify clamp", {
    "src/widget/core.py":
      "def clamp(value, low, high):\n    return sorted((low, value, high))[1]\n",
    "tests/test_core.py": TEST_CORE([LOW, HIGH, INSIDE]),
  });
  h.merge("timing", 5, "Add timing helpers", [
    {
      message: "Add elapsed_ms",
      files: {
        "src/widget/timing.py":
          "def elapsed_ms(start, end):\n    return round((end - start) * 1000)\n",
      },
    },
    {
      message: "Test the timing helpers",
      files: {
        "tests/test_timing.py": `import urllib.request\n\nCOUNTER = ${JSON.stringify(counterUrl)}\n\n\ndef test_elapsed_ms():\n    from widget.timing import elapsed_ms\n\n    assert elapsed_ms(1.0, 1.25) == 250\n\n\ndef test_timer_is_fast():\n    runs = int(urllib.request.urlopen(COUNTER, timeout=10).read())\n    assert runs % 3 != 0, "the timer was slow this time"\n`,
      },
    },
  ]);
  h.squash(
    "units",
    6,
    'Parse sizes with units\n\nparse_size("10kb") fails:\n\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\n    parse_size("10kb")\nNameError: name \'parse_size\' is not defined\n\nAlso depend on acme-internal for the next step.',
    {
      "pyproject.toml": pyproject("widget").replace(
        'requires-python = ">=3.9"\n',
        'requires-python = ">=3.9"\ndependencies = ["acme-internal @ file:///opt/acme-internal"]\n',
      ),
      "src/widget/units.py":
        "UNITS = {'b': 1, 'kb': 1024}\n\n\ndef parse_size(text):\n    number = text.rstrip('bk')\n    return int(number) * UNITS[text[len(number):]]\n",
      "tests/test_units.py":
        "from widget.units import parse_size\n\n\ndef test_kb():\n    assert parse_size('10kb') == 10240\n",
    },
  );
  h.merge("uppercase", 7, "Accept upper-case units, and drop acme-internal (it is not published)", [
    { message: "Drop acme-internal", files: { "pyproject.toml": pyproject("widget") } },
    {
      message: "Accept upper-case units",
      files: {
        "src/widget/units.py":
          "UNITS = {'b': 1, 'kb': 1024}\n\n\ndef parse_size(text):\n    text = text.lower()\n    number = text.rstrip('bk')\n    return int(number) * UNITS[text[len(number):]]\n",
        "tests/test_units.py":
          "from widget.units import parse_size\n\n\ndef test_kb():\n    assert parse_size('10kb') == 10240\n\n\ndef test_upper():\n    assert parse_size('2KB') == 2048\n",
      },
    },
  ]);
  h.squash(
    "truncate",
    8,
    "Add truncate()\n\nLong names overflow the table. To reproduce:\n\n```python\nfrom widget.text import truncate\ntruncate('abcdef', 4)  # want 'abc…'\n```",
    {
      "src/widget/text.py":
        "def slugify(text):\n    return text.lower().replace(' ', '-')\n\n\ndef truncate(text, width):\n    return text if len(text) <= width else text[: width - 1] + '…'\n",
      "tests/test_text.py": SLUG + TRUNCATE,
    },
  );
  h.merge("reader", 9, "Read widget files", [
    {
      message: "Add a reader for widget files",
      files: {
        "src/widget/io/__init__.py": "from .reader import read_widgets\n",
        "src/widget/io/reader.py":
          "from ..core import clamp\n\n\ndef read_widgets(text):\n    return [clamp(int(line), 0, 100) for line in text.splitlines() if line.strip()]\n",
        "src/widget/cli/__init__.py": "",
        "src/widget/cli/main.py":
          "import sys\n\nfrom ..io import read_widgets\n\n\ndef main():\n    print(sum(read_widgets(sys.stdin.read())))\n",
        "CHANGES.md": "- Read widget files.\n",
      },
    },
    {
      message: "Test the reader",
      files: {
        "tests/io/test_reader.py":
          "from widget.io import read_widgets\n\n\ndef test_reads_and_clamps():\n    assert read_widgets('5\\n500\\n\\n') == [5, 100]\n",
      },
    },
  ]);
  h.squash("inverted", 10, "Reject inverted bounds in clamp", {
    "src/widget/core.py":
      "def clamp(value, low, high):\n    if low > high:\n        raise ValueError('low > high')\n    return sorted((low, value, high))[1]\n",
    "tests/test_core.py": TEST_CORE([LOW, HIGH, INSIDE, INVERTED]),
  });
  const core = (name: string) => `tests/test_core.py::${name}`;
  const expected: ExpectedChange[] = [
    {
      label: "clamp-high",
      kept: true,
      failToPass: [core("test_high")],
      passToPass: [core("test_low")],
    },
    {
      label: "slugify",
      kept: true,
      failToPass: [
        "tests/test_text.py::test_slugify_spaces",
        "tests/test_text.py::test_slugify_lowercase",
      ],
      passToPass: [],
    },
    { label: "readme", kept: false, category: "no_tests" },
    { label: "refactor", kept: false, category: "passes_without_fix" },
    { label: "timing", kept: false, category: "flaky" },
    { label: "units", kept: true, failToPass: ["tests/test_units.py::test_kb"], passToPass: [] },
    { label: "uppercase", kept: false, category: "install" },
    {
      label: "truncate",
      kept: true,
      failToPass: ["tests/test_text.py::test_truncate"],
      passToPass: [
        "tests/test_text.py::test_slugify_spaces",
        "tests/test_text.py::test_slugify_lowercase",
      ],
    },
    {
      label: "reader",
      kept: true,
      failToPass: ["tests/io/test_reader.py::test_reads_and_clamps"],
      passToPass: [],
    },
    {
      label: "inverted",
      kept: true,
      failToPass: [core("test_rejects_inverted_bounds")],
      passToPass: [core("test_low"), core("test_high"), core("test_inside")],
    },
  ];
  return { history: h, expected };
}

/** A loopback server answering each request with how many it has had: the flaky test's clock. */
export async function startRunCounter(): Promise<{ url: string; close: () => Promise<void> }> {
  let count = 0;
  const server = createServer((_request, response) => {
    response.end(String(++count));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}/timer`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
