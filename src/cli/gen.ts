import path from "node:path";
import { environmentOptions } from "../config/index.js";
import { LabError } from "../core/index.js";
import { proveTask, type ValidationProof } from "../gen/index.js";
import { writeJsonAtomic } from "../store/index.js";
import { loadOracle, loadSuite, loadTask } from "../suite/index.js";
import { defineCommand, listOption } from "./command.js";
import { commonOptions, LAB_VERSION, settingsFrom, suiteFrom } from "./shared.js";

/** `lab gen --suite S`. */
export const genCommand = defineCommand({
  name: "gen",
  summary:
    "Prove a suite's tasks: each task's gold patch must resolve it on a fresh checkout, and with no change its FAIL_TO_PASS tests must fail. Writes the proof to <suite>/proof.json.",
  usage: "gen --suite S [--tasks IDS]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to prove (e.g. starter)" },
    tasks: { type: "string", value: "IDS", multiple: true, description: "Only these task ids" },
    ...commonOptions,
  },
  details:
    "Generating suites from SWE-bench (`--suite swebench`) and from a repository's history (`--from-repo`) is not built yet; the built-in starter suite is already rendered and gen proves it.",
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const suite = await loadSuite(suiteFrom(args, "gen"), {
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
    });
    const ids = listOption(args, "tasks") ?? suite.taskIds;
    const loaded = [];
    for (const id of ids) {
      const task = await loadTask(suite, id);
      loaded.push({ task, oracle: await loadOracle(task) });
    }
    const proofs: ValidationProof[] = [];
    for (const [index, { task, oracle }] of loaded.entries()) {
      const proof = await proveTask(task, oracle, {
        environment: environmentOptions(settings, io.signal),
        logDir: path.join(settings.cacheDir, "proof-logs", suite.name),
        labVersion: LAB_VERSION,
        testTimeoutMs: 30 * 60_000,
        signal: io.signal,
      });
      proofs.push(proof);
      io.stderr.write(
        `[${String(index + 1)}/${String(loaded.length)}] ${task.info.id}: ${proof.valid ? "proven" : `NOT proven: ${String(proof.reason)}`}\n`,
      );
    }
    const proofFile = path.join(suite.dir, "proof.json");
    await writeJsonAtomic(proofFile, {
      suite: suite.name,
      labVersion: LAB_VERSION,
      provenAt: new Date().toISOString(),
      proofs,
    });
    const failed = proofs.filter((proof) => !proof.valid);
    io.stdout.write(
      `${String(proofs.length - failed.length)}/${String(proofs.length)} task(s) of ${suite.name} proven; proof in ${proofFile}\n`,
    );
    if (failed.length > 0) {
      throw new LabError(
        "PROOF_FAILED",
        `${String(failed.length)} task(s) failed the proof: ${failed.map((proof) => proof.taskId).join(", ")}.`,
        {
          hint: "See each task's reason above and the grading logs under the cache's proof-logs folder.",
        },
      );
    }
    return 0;
  },
});
