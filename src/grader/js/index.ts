/** JavaScript test runners: which one a project uses, the command, and its results as test ids. */
export { jsTestRunnerFor, type JsRunnerDetection, type JsTestRunner } from "./runners.js";
export { jsTestCommand } from "./command.js";
export { parseJsResults } from "./results.js";
export { FILE_TITLE } from "./outcomes.js";
export {
  JS_RESULTS_END,
  JS_RESULTS_START,
  jsResultsBlock,
  parseJsResultsLog,
  readJsResultsLog,
} from "./results-log.js";
export { maskJs } from "./canaries.js";
