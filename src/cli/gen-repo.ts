import path from "node:path";
import { environmentOptions, parseDuration, parsePositiveInt } from "../config/index.js";
import { isLabError, LabError, UsageError } from "../core/index.js";
import { DIMENSIONS, generateRepoSuite, parseMix, type Dimension, type Mix } from "../gen/index.js";
import { createReporter } from "../ui/index.js";
import {
  flagOption,
  stringOption,
  type CliIO,
  type OptionDef,
  type ParsedArgs,
} from "./command.js";
import { suiteLayout } from "../suite/index.js";
import { displayFrom, LAB_VERSION, settingsFrom } from "./shared.js";

/** The options only `lab gen --from-repo` takes. */
export const repoGenOptions = {
  "from-repo": {
    type: "string",
    value: "PATH|URL",
    description:
      "Mine the suite from this repository's merged changes (a local repository, bare or not, or a URL): a Python project, or a JavaScript/TypeScript one (package.json at its root, run on the Node of each change's day with its lockfile and test runner); with GITHUB_TOKEN set, issue texts come from GitHub",
  },
  branch: {
    type: "string",
    value: "B",
    description: "--from-repo: the branch whose first-parent history is walked (default main)",
  },
  since: {
    type: "string",
    value: "DATE",
    description: "--from-repo: only changes merged at or after DATE (e.g. 2024-01-01)",
  },
  python: {
    type: "string",
    value: "X.Y",
    description:
      "--from-repo: Python for every task of a Python project (default: inferred from requires-python, classifiers and the commit's date)",
  },
  sample: {
    type: "string",
    value: "N",
    description: "--from-repo: stop once N tasks are kept (split over --mix when given)",
  },
  mix: {
    type: "string",
    value: "MIX",
    description:
      "--from-repo: target mix of the suite, e.g. small=0.5,medium=0.3,large=0.2 (see --mix-by)",
  },
  "mix-by": {
    type: "string",
    value: "DIM",
    description: "--from-repo: what --mix is over: scope (default), description or difficulty",
  },
  "repo-name": {
    type: "string",
    value: "OWNER/NAME",
    description:
      "--from-repo: the repository's name in tasks and for GitHub's API (default: from the URL, else the folder name)",
  },
} as const satisfies Record<string, OptionDef>;

/** Fails when a --from-repo option is given without --from-repo. */
export function rejectRepoOptions(args: ParsedArgs): void {
  const given = Object.keys(repoGenOptions).filter((name) => args.values[name] !== undefined);
  if (given.length > 0)
    throw new UsageError(
      `--${given.join(", --")} ${given.length === 1 ? "goes" : "go"} with --from-repo only.`,
      "Add --from-repo PATH_OR_URL to mine a suite from a repository.",
    );
}

function mixFrom(args: ParsedArgs): Mix | undefined {
  const text = stringOption(args, "mix");
  const by = stringOption(args, "mix-by") ?? "scope";
  if (!(by in DIMENSIONS))
    throw new UsageError(`--mix-by expects scope, description or difficulty; got "${by}".`);
  if (text === undefined) {
    if (stringOption(args, "mix-by") !== undefined)
      throw new UsageError(
        "--mix-by needs --mix.",
        "e.g. --mix-by difficulty --mix easy=0.3,medium=0.4,hard=0.3",
      );
    return undefined;
  }
  try {
    return parseMix(text, by as Dimension);
  } catch (error) {
    if (isLabError(error)) throw new UsageError(error.message, error.hint);
    throw error;
  }
}

/** `lab gen --suite NAME --from-repo PATH_OR_URL`: mines, validates and writes a repo suite. */
export async function genRepo(suite: string, args: ParsedArgs, io: CliIO): Promise<number> {
  if (suite === "swebench" || suite === "starter")
    throw new UsageError(
      `--from-repo makes a suite of its own; "${suite}" is lab's.`,
      "Name the suite after the repository, e.g. --suite flask.",
    );
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(suite))
    throw new UsageError(
      `--suite "${suite}" is not a folder name (letters, digits, '.', '_', '-').`,
    );
  if (args.values.instances !== undefined || flagOption(args, "all"))
    throw new UsageError(
      "--instances and --all select SWE-bench instances; --from-repo takes --limit, --since and --sample.",
    );
  const settings = settingsFrom(args, io);
  const suiteDir = path.join(settings.evalsDir ?? path.join(io.cwd, "evals"), suite);
  const from = stringOption(args, "from-repo") ?? "";
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(from) && !/^[^/]+@[^/:]+:/.test(from);
  const limit = stringOption(args, "limit");
  const sample = stringOption(args, "sample");
  const since = stringOption(args, "since");
  if (since !== undefined && Number.isNaN(Date.parse(since)))
    throw new UsageError(`--since expects a date such as 2024-01-01; got "${since}".`);
  const python = stringOption(args, "python");
  if (python !== undefined && !/^\d+\.\d+(\.\d+)?$/.test(python))
    throw new UsageError(`--python expects a version such as 3.11; got "${python}".`);
  const token = io.env.GITHUB_TOKEN;
  const reporter = createReporter(displayFrom(args), io.stderr, io.env);
  const result = await generateRepoSuite(
    {
      suiteDir,
      from: local ? path.resolve(io.cwd, from) : from,
      branch: stringOption(args, "branch") ?? "main",
      since,
      limit: limit === undefined ? undefined : parsePositiveInt(limit, "--limit"),
      repoName: stringOption(args, "repo-name"),
      python,
      proofRuns: parsePositiveInt(stringOption(args, "proof-runs") ?? "3", "--proof-runs"),
      validate: !flagOption(args, "no-validate"),
      concurrency: parsePositiveInt(stringOption(args, "concurrency") ?? "1", "--concurrency"),
      testTimeoutMs: parseDuration(stringOption(args, "test-timeout") ?? "30m", "--test-timeout"),
      mix: mixFrom(args),
      sample: sample === undefined ? undefined : parsePositiveInt(sample, "--sample"),
      github:
        token === undefined || token === ""
          ? undefined
          : { token, apiBase: io.env.LAB_GITHUB_API ?? "https://api.github.com" },
      environment: environmentOptions(settings, io.signal),
      labVersion: LAB_VERSION,
      signal: io.signal,
    },
    reporter,
  ).finally(() => reporter.close?.());
  if (io.signal.aborted) return 130;
  io.stdout.write(`${result.report}\n`);
  io.stdout.write(
    flagOption(args, "no-validate")
      ? `${suite}: ${String(result.candidates)} candidate(s) of ${String(result.walked)} change(s) mined, not validated (${suiteLayout(suiteDir).candidatesFile})\n`
      : `${suite}: ${String(result.kept.length)} kept, ${String(result.dropped.length)} dropped of ${String(result.walked)} change(s) (reasons in ${suiteLayout(suiteDir).droppedFile})\n`,
  );
  const validated = !flagOption(args, "no-validate");
  if ((validated ? result.kept.length : result.candidates) > 0) return 0;
  const branch = stringOption(args, "branch") ?? "main";
  throw new LabError(
    "TASK_NOT_FOUND",
    `Nothing was kept: suite "${suite}" has no tasks. ${nothingKeptWhy(result, branch, since)}`,
    {
      hint:
        result.walked === 0
          ? `Name a branch with merged changes${since === undefined ? "" : `, or an earlier --since`}.`
          : result.candidates === 0
            ? "A task needs a change to both tests and source in one merge; try more history (--since, --limit)."
            : `Read why each was dropped in ${suiteLayout(suiteDir).droppedFile}.`,
    },
  );
}

/** Why a repository gave no task, in words. */
function nothingKeptWhy(
  result: { walked: number; candidates: number },
  branch: string,
  since: string | undefined,
): string {
  if (result.walked === 0)
    return `No merged change was found on ${branch}${since === undefined ? "" : ` since ${since}`}.`;
  if (result.candidates === 0)
    return `None of the ${String(result.walked)} change(s) walked changes both tests and source.`;
  return `Every one of the ${String(result.candidates)} candidate(s) was dropped in validation.`;
}
