export * from "./config.js";
export * from "./run-suite.js";
export * from "./trial.js";
export * from "./select.js";
export * from "./tool-run.js";
export * from "./executor.js";
export { regradeRun, type RegradeOptions, type RegradeResult } from "./regrade.js";
