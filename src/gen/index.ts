export { proveTask } from "./prove.js";
export { proveSuite } from "./prove-suite.js";
export { generateSwebench, type SwebenchGenResult } from "./swebench.js";
export { writeSwebenchSuiteFiles } from "./swebench-suite-files.js";
export {
  MULTILINGUAL_NODE_DAY,
  multilingualEnvironmentFor,
  multilingualScopeOf,
  multilingualSpecOf,
} from "./swebench-multilingual.js";
export {
  DIMENSIONS,
  generateRepoSuite,
  parseMix,
  type Dimension,
  type Mix,
  type RepoGenOptions,
  type RepoGenResult,
} from "./repo/index.js";
export { localProver, type ProofRequest, type TaskProver } from "./prover.js";
export {
  ledgerClassOf,
  ledgerProofRun,
  ledgerVerdict,
  mergeLedgerSlice,
  NO_MIRROR_REPOS,
  unprovenRecord,
  type LedgerFamily,
  type LedgerSliceInput,
} from "./ledger.js";
export {
  parseStartFacts,
  readLedgerFile,
  writeLedgerSlice,
  type LedgerFamilySource,
  type LedgerSliceOptions,
} from "./ledger-slice.js";
export {
  carryLedgerLines,
  SAME_INSTANCE_FIELDS,
  type LedgerCarryOptions,
  type LedgerCarrySummary,
} from "./ledger-carry.js";
