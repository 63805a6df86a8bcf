export * from "./config.js";
export * from "./run-suite.js";
export * from "./trial.js";
