import { writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError, type Tool } from "../core/index.js";
import { tryGit } from "../git/index.js";

/** Applies the oracle's gold patch: the harness's self-check, and the only tool that reads the oracle. */
export function createGoldTool(): Tool {
  return {
    name: "gold",
    description: "Applies the reference fix (baseline: resolves every valid task).",
    readsOracle: true,
    fingerprint: "gold",
    detectVersion: () => Promise.resolve("1"),
    checkReady: () => Promise.resolve(),
    async run(ctx) {
      if (ctx.goldPatch === undefined)
        throw new LabError("TASK_INVALID", `Task ${ctx.taskId} has no gold patch.`);
      const patchFile = path.join(ctx.artifactsDir, "gold.patch");
      await writeFile(patchFile, ctx.goldPatch);
      const result = await tryGit(["apply", "--verbose", patchFile], {
        cwd: ctx.workTree,
        logFile: ctx.logFile,
        signal: ctx.signal,
      });
      return {
        exit: { exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut },
        telemetry: {},
      };
    },
  };
}
