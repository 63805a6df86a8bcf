export type { Grade } from "../core/index.js";
export { checkSuspiciousOutput, evaluateTests } from "./evaluate.js";
export type { TestRunEvidence, TestsToEvaluate, TestVerdicts } from "./evaluate.js";
export { captureWorkTree, type CapturedChange } from "./capture.js";
export { executeGrade, gradeChange, type GradeOutcome } from "./grade.js";
export {
  APPLY_CHAIN,
  describePlan,
  planGrade,
  type Change,
  type GradeOptions,
  type GradingPlan,
  type InstallPlan,
  testLogParserOf,
} from "./plan.js";
export {
  extractTestOutput,
  parseTestLog,
  TEST_OUTPUT_END,
  TEST_OUTPUT_START,
} from "./parse-log.js";
export type { JsLogParser, LogParser, TestLogParser, TestOutput } from "./parse-log.js";
export { SERVICES, STAND_IN_HOSTS, startServices, withServices } from "./services.js";
export type { RunningServices, ServiceDefinition } from "./services.js";
export { detectTestTampering } from "./tamper.js";
export type { GradeSandbox } from "./grade-sandbox.js";
export { withGoldCheckout, type GoldCheckout } from "./gold-checkout.js";
export { judgeTestLog, rejudgeGrade, type RejudgeInput, type Verdict } from "./judge.js";
export { readGradingLog } from "./test-run.js";
export { jsTestRunnerFor, maskJs, type JsRunnerDetection } from "./js/index.js";
export { immutableJsParser } from "./parse-log-js.js";
