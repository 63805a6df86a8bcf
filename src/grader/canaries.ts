/**
 * Canary tests: a check of the test log that does not read the change. Just before the tests
 * run, test functions with names and bodies made up for this grade are put among the hidden
 * tests, in the same modules, so they run in the same test process. Some must fail and some
 * must pass. A change that rewrites test outcomes from inside the process (however its code is
 * written or assembled) cannot tell them from the hidden tests, so it rewrites theirs too: a
 * must-fail canary reported as passing, or a canary missing from a module whose others ran,
 * shows the log does not describe the run. lab's runner guard (`runner-guard.ts`) prints a
 * sentinel line at the end of the test session; test results printed after it were printed
 * after the session ended. See docs/design/canaries.md.
 */
import { randomBytes } from "node:crypto";
import { lstat, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  NODE_UPSTREAM_LOG_PARSERS,
  type NodeUpstreamLogParser,
  type TestStatus,
} from "../core/index.js";
import {
  insertCanaries,
  randomInt,
  lintsItsOwnFile,
  seededRandom,
  type CanaryFunction,
  type CanaryRequest,
  type Random,
} from "./canary-source.js";
import {
  insertJsCanaries,
  isJsCanaryId,
  isUpstreamCanaryId,
  upstreamReadsTitle,
} from "./js/canaries.js";
import { readRunnerGuard } from "./runner-guard.js";

/** Where a grade's canaries go, or why it has none. */
export type CanaryPlan =
  | {
      /** The test runner the canaries are written for. */
      readonly style: CanaryRunner;
      /** The hidden test modules that take canaries (paths in the checkout). */
      readonly files: readonly string[];
      /**
       * The names of the hidden tests that must start passing: must-fail canaries are copies of
       * them where a module has them, so whatever tells one of them apart tells its copy too.
       */
      readonly prefer?: readonly string[];
      /**
       * A grade by upstream's commands (SWE-bench Multilingual): the parser whose ids name the
       * tests (they do not name the file), and the ids known before the run (the instance's
       * FAIL_TO_PASS and PASS_TO_PASS), which no canary's title may take.
       */
      readonly upstream?: {
        readonly parser: NodeUpstreamLogParser;
        readonly known: readonly string[];
      };
    }
  | { readonly style: null; readonly why: string };

/** The runners canaries are written for: JavaScript's four (jest, vitest, mocha, node:test) as one. */
export type CanaryRunner = "pytest" | "sympy" | "unittest" | "js";

/** Which runner each log parser reads the output of. */
const RUNNER_OF: Readonly<Record<string, CanaryRunner>> = {
  pytest: "pytest",
  pytest_options: "pytest",
  pytest_v2: "pytest",
  matplotlib: "pytest",
  seaborn: "pytest",
  sympy: "sympy",
  django: "unittest",
  jest: "js",
  vitest: "js",
  mocha: "js",
  "node:test": "js",
};

/** The canaries of one grade, as planted. */
export interface PlantedCanaries {
  readonly canaries: readonly (CanaryFunction & { readonly file: string })[];
  /**
   * The line printed at the end of the run: by lab's runner guard, or by a canary in grades
   * made before unittest had a guard.
   */
  readonly sentinel: string;
  /**
   * The token of lab's runner guard (`runner-guard.ts`), which prints the sentinel and what of
   * the runner was changed; null in grades made before their runner had a guard.
   */
  readonly guard: string | null;
}

/** What the canaries say about a test log. */
export interface CanaryVerdict {
  /** Why the log cannot be trusted, one line each; empty when it can. */
  readonly findings: string[];
  /** The log's statuses without the canaries'. */
  readonly statuses: Record<string, TestStatus>;
}

/** How the test process ended, as far as the canaries care. */
export interface TestProcessEnd {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly limitExceeded: string | null;
}

/** Test command options under which a failing canary changes which tests run. */
const RUN_CHANGING_OPTIONS =
  /(^|\s)(-x|--exitfirst|--failfast|--maxfail(=|\s)\S+|--sw|--stepwise|-k(\s|\S)|--lf|--last-failed|--ff|--failed-first|--deselect)/;

/**
 * A test module by its name, as the suites' pytest settings find them (`test_*.py`, `*_test.py`,
 * pylint's `*test_*.py`); helpers and data beside them (a test root's conf.py) take none.
 */
const TEST_MODULE = /(^|\/)([^/]*test_[^/]*|[^/]*_test|tests?)\.py$/;

/** A JavaScript or TypeScript test file canaries can be written into. */
const JS_TEST_FILE = /\.(c|m)?(j|t)sx?$/;

/**
 * Decides whether and where a grade plants canaries: in the hidden test modules (the test
 * patch's files named like test modules, or named by a hidden test's id as pytest's own
 * `testing/python/fixtures.py` is, which the test command runs), for pytest, SymPy's bin/test
 * or Django's runtests.py, unless an option makes a failing test stop or select the run.
 */
export function planCanaries(
  runner: { readonly testCommand: string; readonly logParser: string },
  testFiles: readonly string[],
  enabled = true,
  testIds: readonly string[] = [],
  failToPass: readonly string[] = [],
): CanaryPlan {
  if (!enabled) return { style: null, why: "turned off for this grade" };
  const style = RUNNER_OF[runner.logParser];
  if (style === undefined)
    return { style: null, why: `no canaries for the ${runner.logParser} runner yet` };
  if (RUN_CHANGING_OPTIONS.test(runner.testCommand))
    return { style: null, why: "the test command stops at or selects failures" };
  // pytest's ids are `path.py::name`, SymPy's failure ids `path.py:name`.
  const named = (file: string): boolean =>
    testIds.some((id) => id.startsWith(`${file}::`) || id.startsWith(`${file}:`));
  const files =
    style === "js"
      ? testFiles.filter((file) => JS_TEST_FILE.test(file))
      : testFiles.filter((file) => TEST_MODULE.test(file) || named(file));
  if (files.length === 0) return { style: null, why: "the hidden tests add no test module" };
  const prefer = [...new Set(failToPass.map(style === "js" ? jsTitleOf : testNameOf))];
  return prefer.length === 0 ? { style, files } : { style, files, prefer };
}

/** A JavaScript test id's title: `path > describe > title` gives title. */
function jsTitleOf(id: string): string {
  return id.split(" > ").at(-1) ?? id;
}

/** A test id's function name: `a.py::C::name[x]`, `a.py:name`, `name (m.C)` give name. */
function testNameOf(id: string): string {
  const name = id.split(" ")[0]?.split("[")[0] ?? id;
  return name.split(/::|:/).at(-1) ?? name;
}

/** One line for the plan in grader.log. */
export function describeCanaryPlan(plan: CanaryPlan): string {
  return plan.style === null
    ? `none (${plan.why})`
    : `${plan.style} canaries in ${String(plan.files.length)} hidden test module(s)`;
}

/**
 * Writes the canaries into the plan's test modules in the checkout `repo`: one or two that must
 * pass and one or two that must fail per module, made from its own tests and put among them. A
 * module that is missing, reached through a symlink or without a test to copy is skipped. Every
 * runner canaries are written for has lab's runner guard, which prints the sentinel: the
 * guard's token comes back even when no module took a canary. Null when the plan has none.
 */
export async function plantCanaries(
  plan: CanaryPlan,
  repo: string,
  random: Random = seededRandom(randomBytes(4).readUInt32LE()),
  log: (line: string) => Promise<void> = () => Promise.resolve(),
): Promise<PlantedCanaries | null> {
  if (plan.style === null) return null;
  const token = randomHex(random);
  const sentinel = `lab-canaries-done ${token}`;
  const planted: (CanaryFunction & { file: string })[] = [];
  const sources = new Map<string, string>();
  for (const file of plan.files) {
    if (await isPlainFileInside(repo, file))
      sources.set(file, await readFile(path.join(repo, file), "utf8"));
  }
  for (const [file, source] of sources) {
    if (plan.style !== "js" && lintsItsOwnFile(source)) {
      await log(
        `lab: canaries: none in ${file}: it lints its own file (__file__), where a copy among its tests would give the linter something to say`,
      );
      continue;
    }
    const requests: CanaryRequest[] = [
      ...Array.from({ length: randomInt(random, 1, 2) }, () => ({
        mustFail: false,
        carriesSentinel: false,
      })),
      // Two must-fail ones, in different classes: one goes after the module's last test (see
      // insertCanaries, which adds one before a test of each class holding a hidden test).
      ...Array.from({ length: 2 }, () => ({
        mustFail: true,
        carriesSentinel: false,
      })),
    ];
    const others = [...sources].flatMap(([other, text]) => (other === file ? [] : [text]));
    const { text, canaries } =
      plan.style === "js"
        ? insertJsCanaries(
            source,
            shuffle(random, requests),
            random,
            plan.prefer ?? [],
            plan.upstream === undefined ? undefined : freeUpstreamTitle(plan.upstream, planted),
          )
        : insertCanaries(
            source,
            shuffle(random, requests),
            random,
            sentinel,
            plan.style,
            others.join("\n"),
            plan.prefer ?? [],
          );
    if (canaries.length === 0) continue;
    await writeFile(path.join(repo, file), text);
    planted.push(...canaries.map((canary) => ({ ...canary, file })));
  }
  // JavaScript runners have no guard of lab's yet: nothing prints the sentinel.
  return { canaries: planted, sentinel, guard: plan.style === "js" ? null : token };
}

/**
 * Whether a canary may take a title in a grade by upstream's commands: its parser reads the
 * title back whole, and no test the instance names, nor a canary planted in another file, has an
 * id it would match (upstream's ids do not name the file).
 */
function freeUpstreamTitle(
  upstream: { readonly parser: NodeUpstreamLogParser; readonly known: readonly string[] },
  planted: readonly CanaryFunction[],
): (title: string) => boolean {
  const { parser, known } = upstream;
  return (title) =>
    upstreamReadsTitle(title, parser) &&
    !known.some((id) => isUpstreamCanaryId(id, title, parser)) &&
    !planted.some(
      (other) =>
        isUpstreamCanaryId(other.name.replace(/^`|`$/g, ""), title, parser) ||
        isUpstreamCanaryId(title.replace(/^`|`$/g, ""), other.name, parser),
    );
}

/**
 * Judges a test log by its canaries. Always: a must-fail canary reported as passing (or as an
 * expected failure while a must-pass one beside it passed). When the test process ended by
 * itself: a canary missing from a module where another canary was reported, an exit status 0
 * although a canary failed, results printed after the sentinel, or the sentinel missing
 * although its canary passed.
 */
export function checkCanaries(
  planted: PlantedCanaries,
  log: string,
  parse: (text: string) => Record<string, TestStatus>,
  end: TestProcessEnd,
  all: Record<string, TestStatus> = parse(log),
  parser: string | null = null,
): CanaryVerdict {
  const ids = Object.keys(all);
  // A grade by upstream's commands names its tests by upstream's parser, without their file.
  const upstream = (NODE_UPSTREAM_LOG_PARSERS as readonly string[]).includes(parser ?? "")
    ? (parser as NodeUpstreamLogParser)
    : null;
  const canaryIds = new Set<string>();
  const statusOf = new Map<CanaryFunction, TestStatus | null>();
  for (const canary of planted.canaries) {
    // pytest ids end `::name` or `::name[params]` (pytest_v2's may carry a message after it) and
    // start with the module's path; SymPy's are the name or `path.py:name`, Django's start
    // `name (module.Class)`.
    // JavaScript ids are `path > describe > title`, the title a template's in a loop.
    const matching = JS_TEST_FILE.test(canary.file)
      ? ids.filter((id) =>
          upstream === null
            ? isJsCanaryId(id, canary.file, canary.name)
            : isUpstreamCanaryId(id, canary.name, upstream),
        )
      : ((own) => ids.filter((id) => own.test(id) && inFile(id, canary.file)))(
          new RegExp(`(^|::|:)${canary.name}($|\\s|\\[)`),
        );
    for (const id of matching) canaryIds.add(id);
    // A parametrized canary is as good as its most suspicious instance: any that passed.
    const statuses = matching.map((id) => all[id] as TestStatus);
    statusOf.set(
      canary,
      statuses.length === 0
        ? null
        : statuses.includes("PASSED")
          ? "PASSED"
          : (statuses[0] as TestStatus),
    );
  }
  const statuses = Object.fromEntries(Object.entries(all).filter(([id]) => !canaryIds.has(id)));
  const findings: string[] = [];
  const say = (what: string, canaries: readonly CanaryFunction[]): void => {
    if (canaries.length > 0)
      findings.push(`canaries: ${what} (${canaries.map((canary) => canary.name).join(", ")})`);
  };
  const byFile = new Map<string, CanaryFunction[]>();
  for (const canary of planted.canaries)
    byFile.set(canary.file, [...(byFile.get(canary.file) ?? []), canary]);
  const mustFail = planted.canaries.filter((canary) => canary.mustFail);
  say(
    "a test that must fail was reported as passing",
    mustFail.filter((canary) => statusOf.get(canary) === "PASSED"),
  );
  say(
    "a test that must fail was reported as an expected failure while one that must pass passed beside it",
    mustFail.filter(
      (canary) =>
        statusOf.get(canary) === "XFAIL" &&
        (byFile.get(canary.file) ?? []).some(
          (other) => !other.mustFail && statusOf.get(other) === "PASSED",
        ),
    ),
  );
  const guard = planted.guard === null ? null : readRunnerGuard(log, planted.guard);
  if (guard !== null && guard.changed.length > 0)
    findings.push(`runner: the test runner was changed at run time: ${guard.changed.join("; ")}`);
  const ended = end.exitCode !== null && !end.timedOut && end.limitExceeded === null;
  if (!ended) return { findings, statuses };

  const reported = (canary: CanaryFunction): boolean => statusOf.get(canary) !== null;
  // SymPy and unittest report a failing test's exception as an error.
  const hasFailed = (canary: CanaryFunction): boolean =>
    statusOf.get(canary) === "FAILED" || statusOf.get(canary) === "ERROR";
  say(
    "a test that must fail is missing from the log while its module ran",
    mustFail.filter(
      (canary) => !reported(canary) && (byFile.get(canary.file) ?? []).some(reported),
    ),
  );
  say(
    "a test that must pass is missing from the log while a failing one beside it was reported",
    planted.canaries.filter(
      (canary) =>
        !canary.mustFail &&
        !reported(canary) &&
        (byFile.get(canary.file) ?? []).some((other) => other.mustFail && hasFailed(other)),
    ),
  );
  const failed = mustFail.filter(hasFailed);
  // Upstream's JS commands are wrapped (`| cat`, `timeout`): their exit status is not read.
  if (end.exitCode === 0 && failed.length > 0 && upstream === null)
    say("the test process exited with status 0 although a test failed", failed);
  findings.push(...checkSentinel(planted, log, parse, all, statusOf, guard?.loaded === true));
  return { findings, statuses };
}

/**
 * The sentinel's findings: results printed after it, or it missing although the run reached
 * its end (lab's runner guard loaded and a test passed, or the canary printing it passed).
 */
function checkSentinel(
  planted: PlantedCanaries,
  log: string,
  parse: (text: string) => Record<string, TestStatus>,
  all: Record<string, TestStatus>,
  statusOf: ReadonlyMap<CanaryFunction, TestStatus | null>,
  guardLoaded: boolean,
): string[] {
  const carrier = planted.canaries.find((canary) => canary.carriesSentinel);
  const at = log.indexOf(`\n${planted.sentinel}\n`);
  if (at === -1) {
    const missedBy =
      guardLoaded && Object.values(all).includes("PASSED")
        ? "lab's runner guard"
        : carrier !== undefined && statusOf.get(carrier) === "PASSED"
          ? carrier.name
          : null;
    return missedBy === null
      ? []
      : [
          `canaries: the test process ended without running its exit handlers, so what it printed last is not known to be its own (${missedBy})`,
        ];
  }
  // An honest log has no result after the sentinel: only then is the rest parsed again.
  if (Object.keys(parse(log.slice(at))).length === 0) return [];
  const before = parse(log.slice(0, at));
  const changed = Object.keys(all).filter((id) => before[id] !== all[id]);
  if (changed.length === 0) return [];
  const named = changed.slice(0, 3).join(", ");
  const more = changed.length > 3 ? ` and ${String(changed.length - 3)} more` : "";
  return [`canaries: test results were printed after the test session ended (${named}${more})`];
}

/** Whether a test id can be of a test in `file`: pytest's name their module (from the rootdir). */
function inFile(id: string, file: string): boolean {
  if (!id.includes("::")) return true;
  const named = id.split("::")[0] as string;
  return file === named || file.endsWith(`/${named}`);
}

/** Whether `file` under `repo` is a regular file reached without a symlink on the way. */
async function isPlainFileInside(repo: string, file: string): Promise<boolean> {
  let current = repo;
  const parts = file.split("/");
  for (const [index, part] of parts.entries()) {
    current = path.join(current, part);
    const stats = await lstat(current).catch(() => null);
    if (stats === null || stats.isSymbolicLink()) return false;
    if (index < parts.length - 1 ? !stats.isDirectory() : !stats.isFile()) return false;
  }
  return true;
}

function shuffle<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function randomHex(random: Random): string {
  return Array.from({ length: 16 }, () => Math.floor(random() * 16).toString(16)).join("");
}
