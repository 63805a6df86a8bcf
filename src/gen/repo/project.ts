/**
 * What a Python project's metadata files say about how to install and test it, read without
 * running anything: pyproject.toml (PEP 621, PEP 735 groups, Poetry), setup.cfg, setup.py (by
 * pattern only: it is code) and requirements files.
 */

/** The facts lab needs to build a project's environment. */
export interface ProjectFacts {
  /** The distribution's name, when a metadata file states it. */
  readonly name: string | null;
  /** The file uv resolves the project's own dependencies from, or null for requirements only. */
  readonly projectFile: "pyproject.toml" | "setup.py" | "setup.cfg" | null;
  /** `requires-python` (or python_requires, or Poetry's python), as written. */
  readonly requiresPython: string | null;
  /** Minor versions the trove classifiers list ("3.9"). */
  readonly classifierPythons: readonly string[];
  /** Extras that hold the test dependencies ("test", "testing", else "dev"). */
  readonly testExtras: readonly string[];
  /** PEP 735 dependency groups that hold them. */
  readonly testGroups: readonly string[];
  /** Dependencies named in Poetry's test or dev groups (names only; versions come from the date). */
  readonly poetryTestDependencies: readonly string[];
  /** Requirements files for the tests (and a top-level requirements.txt). */
  readonly requirementFiles: readonly string[];
}

/** A TOML value as far as lab reads it: strings and arrays of strings; anything else is "other". */
type TomlValue = string | readonly string[] | { readonly other: true };

/**
 * Reads the subset of TOML that project metadata uses into "table.key" -> value. Multi-line
 * arrays, comments and quoted strings are handled; inline tables and array tables are skipped.
 */
export function readToml(text: string): Map<string, TomlValue> {
  const values = new Map<string, TomlValue>();
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let table = "";
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i] ?? "").trim();
    if (line === "") continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header !== null) {
      table = (header[1] ?? "").replace(/["']/g, "").replace(/\s*\.\s*/g, ".");
      continue;
    }
    if (line.startsWith("[[")) {
      table = "\u0000array";
      continue;
    }
    const assignment = /^("[^"]*"|'[^']*'|[A-Za-z0-9_.\- "']+?)\s*=\s*(.*)$/.exec(line);
    if (assignment === null) continue;
    const key = (assignment[1] ?? "").replace(/["'\s]/g, "");
    let raw = assignment[2] ?? "";
    if (raw.startsWith("[")) {
      while (bracketDepth(raw) > 0 && i + 1 < lines.length)
        raw += `\n${stripComment(lines[++i] ?? "")}`;
      const items = [...raw.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map(
        (match) => match[1] ?? match[2] ?? "",
      );
      values.set(table === "" ? key : `${table}.${key}`, items);
    } else {
      const string = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(raw);
      values.set(
        table === "" ? key : `${table}.${key}`,
        string === null ? { other: true } : (string[1] ?? string[2] ?? ""),
      );
    }
  }
  return values;
}

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote !== null) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "#") return line.slice(0, i);
  }
  return line;
}

function bracketDepth(text: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== null) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[") depth++;
    else if (char === "]") depth--;
  }
  return depth;
}

/** Reads an INI file (setup.cfg) into "section.key" -> value, continuation lines joined by "\n". */
export function readIni(text: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = "";
  let last: string | null = null;
  for (const raw of text.replace(/\r\n/g, "\n").split("\n")) {
    if (/^\s*[#;]/.test(raw) || raw.trim() === "") continue;
    const header = /^\[([^\]]+)\]\s*$/.exec(raw);
    if (header !== null) {
      section = (header[1] ?? "").trim();
      last = null;
      continue;
    }
    if (/^\s/.test(raw) && last !== null) {
      values.set(last, `${values.get(last) ?? ""}\n${raw.trim()}`.trim());
      continue;
    }
    const assignment = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(raw);
    if (assignment === null) continue;
    last = `${section}.${(assignment[1] ?? "").trim()}`;
    values.set(last, (assignment[2] ?? "").trim());
  }
  return values;
}

const TEST_NAMES = ["test", "tests", "testing"];

/** The test-ish names among `names`: test/tests/testing, else any naming tests, else dev. */
function pickTestNames(names: readonly string[]): string[] {
  const exact = names.filter((name) => TEST_NAMES.includes(name.toLowerCase()));
  if (exact.length > 0) return exact;
  const containing = names.filter((name) => /test/i.test(name));
  if (containing.length > 0) return containing;
  return names.filter((name) => name.toLowerCase() === "dev");
}

function classifierMinors(classifiers: readonly string[]): string[] {
  const minors = classifiers
    .map((line) => /^Programming Language :: Python :: (\d+\.\d+)\s*$/.exec(line.trim())?.[1])
    .filter((minor): minor is string => minor !== undefined);
  return [...new Set(minors)];
}

/** Keys of a table ("table.key" entries) with the table prefix removed. */
function tableKeys(values: Map<string, TomlValue>, table: string): string[] {
  return [...values.keys()]
    .filter((key) => key.startsWith(`${table}.`))
    .map((key) => key.slice(table.length + 1))
    .filter((key) => !key.includes("."));
}

/** Requirements files that hold test dependencies, by their usual names. */
export function testRequirementFiles(paths: readonly string[]): string[] {
  const testish = paths.filter(
    (file) =>
      /^(requirements|reqs?)[^/]*\/[^/]*(tests?|testing)[^/]*\.(txt|in)$/i.test(file) ||
      /^[^/]*(tests?|testing)[-_]requirements\.(txt|in)$/i.test(file) ||
      /^requirements[-_.](tests?|testing)\.(txt|in)$/i.test(file) ||
      /^tests?\/requirements\.(txt|in)$/i.test(file),
  );
  // tests.txt over its variants (tests-min.txt, tests-dev.txt: other environments, which
  // conflict with it), and a pip-compiled .txt over the .in beside it.
  const stem = (file: string): string =>
    (file.split("/").at(-1) ?? "").replace(/\.(txt|in)$/, "").toLowerCase();
  const exact = testish.filter(
    (file) =>
      /^((requirements|reqs?)[-_.])?(tests?|testing)$|^(tests?|testing)[-_]requirements$/.test(
        stem(file),
      ) || /^tests?\/requirements\.(txt|in)$/i.test(file),
  );
  const chosen = exact.length > 0 ? exact : testish;
  const files = chosen.filter(
    (file) => !(file.endsWith(".in") && chosen.includes(file.replace(/\.in$/, ".txt"))),
  );
  if (paths.includes("requirements.txt")) files.unshift("requirements.txt");
  return files;
}

/** Reads the project facts from the metadata files of one commit (path -> content). */
export function readProjectFacts(
  files: ReadonlyMap<string, string>,
  paths: readonly string[],
): ProjectFacts {
  const pyproject = files.get("pyproject.toml");
  const setupCfg = files.get("setup.cfg");
  const setupPy = files.get("setup.py");
  const toml = pyproject === undefined ? new Map<string, TomlValue>() : readToml(pyproject);
  const ini = setupCfg === undefined ? new Map<string, string>() : readIni(setupCfg);
  const str = (value: TomlValue | undefined): string | null =>
    typeof value === "string" ? value : null;
  const list = (value: TomlValue | undefined): readonly string[] =>
    Array.isArray(value) ? (value as readonly string[]) : [];

  const hasProjectTable = [...toml.keys()].some((key) => key.startsWith("project."));
  const hasPoetry = [...toml.keys()].some((key) => key.startsWith("tool.poetry."));
  const projectFile =
    hasProjectTable || (hasPoetry && setupPy === undefined)
      ? "pyproject.toml"
      : setupPy !== undefined
        ? "setup.py"
        : setupCfg !== undefined && ini.has("metadata.name")
          ? "setup.cfg"
          : pyproject !== undefined && toml.has("build-system.build-backend")
            ? "pyproject.toml"
            : null;

  const setupPyName =
    setupPy === undefined ? null : (/\bname\s*=\s*["']([^"']+)["']/.exec(setupPy)?.[1] ?? null);
  const name =
    str(toml.get("project.name")) ??
    str(toml.get("tool.poetry.name")) ??
    ini.get("metadata.name") ??
    setupPyName;

  const poetryPython = str(toml.get("tool.poetry.dependencies.python"));
  const requiresPython =
    str(toml.get("project.requires-python")) ??
    ini.get("options.python_requires") ??
    (setupPy === undefined
      ? null
      : (/python_requires\s*=\s*["']([^"']+)["']/.exec(setupPy)?.[1] ?? null)) ??
    (poetryPython === null ? null : poetryToSpecifier(poetryPython));

  const classifiers = [
    ...list(toml.get("project.classifiers")),
    ...list(toml.get("tool.poetry.classifiers")),
    ...(ini.get("metadata.classifiers") ?? "").split("\n"),
    ...[...(setupPy ?? "").matchAll(/["'](Programming Language :: Python :: \d+\.\d+)["']/g)].map(
      (match) => match[1] ?? "",
    ),
  ];

  const extrasNames = [
    ...tableKeys(toml, "project.optional-dependencies"),
    ...[...toml.keys()]
      .filter((key) => key.startsWith("project.optional-dependencies."))
      .map((key) => key.slice("project.optional-dependencies.".length))
      .filter((key) => !key.includes(".")),
    ...[...ini.keys()]
      .filter((key) => key.startsWith("options.extras_require."))
      .map((key) => key.slice("options.extras_require.".length)),
    ...[
      ...(
        /extras_require\s*=\s*(?:dict\(|\{)([\s\S]*?)(?:\)|\})\s*,?\s*\n/.exec(
          setupPy ?? "",
        )?.[1] ?? ""
      ).matchAll(/["']([A-Za-z0-9_.-]+)["']\s*:|\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\[/g),
    ].map((match) => match[1] ?? match[2] ?? ""),
  ];
  const groups = tableKeys(toml, "dependency-groups");
  const poetryTables = [...toml.keys()]
    .filter((key) =>
      /^tool\.poetry\.(dev-dependencies|group\.[^.]*(test|dev)[^.]*\.dependencies)\.[^.]+$/.test(
        key,
      ),
    )
    .map((key) => key.split(".").at(-1) ?? "")
    .filter((dependency) => dependency !== "python");

  return {
    name,
    projectFile,
    requiresPython,
    classifierPythons: classifierMinors(classifiers),
    testExtras: [...new Set(pickTestNames([...new Set(extrasNames)].filter((n) => n !== "")))],
    testGroups: pickTestNames(groups),
    poetryTestDependencies: [...new Set(poetryTables)],
    requirementFiles: testRequirementFiles(paths),
  };
}

/** Poetry's python constraint ("^3.8", "~3.9", ">=3.7,<4.0") as a PEP 440 specifier. */
export function poetryToSpecifier(constraint: string): string {
  return constraint
    .split(",")
    .map((part) => part.trim())
    .map((part) => {
      const caret = /^\^(\d+)\.(\d+)/.exec(part);
      if (caret !== null) return `>=${String(caret[1])}.${String(caret[2])}`;
      const tilde = /^~(\d+)\.(\d+)/.exec(part);
      if (tilde !== null) return `>=${String(tilde[1])}.${String(tilde[2])}`;
      return part;
    })
    .join(",");
}
