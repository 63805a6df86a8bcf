import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../core/index.js";
import { runCommand } from "../process/index.js";
import { findOnPath } from "../process/index.js";

/** The uv release lab installs when none is found; uv's CLI is stable across patch releases. */
export const UV_VERSION = "0.13.9";

/**
 * Finds uv: an explicit path, then PATH, then lab's own copy; installs that copy with pip
 * when there is none, so a fresh machine needs nothing by hand.
 */
export async function ensureUv(options: {
  explicit?: string | undefined;
  toolsDir: string;
  pathEnv: string;
  /** The user's home, for pip's cache. */
  home: string;
  signal?: AbortSignal | undefined;
}): Promise<string> {
  if (options.explicit !== undefined) {
    if (!existsSync(options.explicit)) {
      throw new LabError(
        "UV_UNAVAILABLE",
        `LAB_UV points at ${options.explicit}, which does not exist.`,
        {
          hint: "Unset LAB_UV to let lab find or install uv itself.",
        },
      );
    }
    return options.explicit;
  }
  const onPath = findOnPath("uv", options.pathEnv);
  if (onPath !== null) return onPath;
  const target = path.join(options.toolsDir, "uv");
  const own = path.join(target, "bin", "uv");
  if (existsSync(own)) return own;

  const python = findOnPath("python3", options.pathEnv) ?? findOnPath("python", options.pathEnv);
  if (python === null) {
    throw new LabError(
      "UV_UNAVAILABLE",
      "uv is not installed and there is no python3 to install it with.",
      {
        hint: "Install uv (https://docs.astral.sh/uv/) or Python 3, then run lab again.",
      },
    );
  }
  // Install beside the final folder, then rename: concurrent lab processes never see half a uv.
  await mkdir(options.toolsDir, { recursive: true });
  const staging = `${target}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  const result = await runCommand(
    [
      python,
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "--target",
      staging,
      `uv==${UV_VERSION}`,
    ],
    {
      env: { PATH: options.pathEnv, HOME: options.home },
      timeoutMs: 300_000,
      signal: options.signal,
    },
  );
  if (result.exitCode !== 0) {
    await rm(staging, { recursive: true, force: true });
    throw new LabError(
      "UV_UNAVAILABLE",
      `Installing uv with pip failed (exit ${String(result.exitCode)}): ${lastLine(result.stderrTail)}`,
      {
        hint: "Install uv yourself (pip install uv) or point LAB_UV at a uv binary.",
      },
    );
  }
  try {
    await rename(staging, target);
  } catch {
    // Another lab process installed it first; use theirs.
    await rm(staging, { recursive: true, force: true });
  }
  if (!existsSync(own)) {
    throw new LabError("UV_UNAVAILABLE", `pip installed uv but ${own} is missing.`, {
      hint: "Install uv yourself (pip install uv) or point LAB_UV at a uv binary.",
    });
  }
  return own;
}

/** The last non-empty line of some output, for one-line messages. */
export function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.at(-1) ?? "(no output)";
}
