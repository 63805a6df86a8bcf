import { existsSync } from "node:fs";
import { proofFileSchema, type ProofFile } from "../core/index.js";
import { suiteLayout } from "./layout.js";
import { readJson } from "./load.js";

/**
 * A suite's proof.json through its schema (errors name the file and the field), or undefined
 * when gen has written none.
 */
export async function readProofFile(suiteDir: string): Promise<ProofFile | undefined> {
  const { proofFile } = suiteLayout(suiteDir);
  if (!existsSync(proofFile)) return undefined;
  return readJson(
    proofFile,
    proofFileSchema,
    "proof.json is lab gen's record of its proofs: fix it, or delete it and run `lab gen` again to prove the tasks afresh.",
  );
}
