export type { Grade } from "../core/index.js";
export * from "./checkout.js";
export * from "./evaluate.js";
export * from "./grade.js";
export * from "./parse-log.js";
export * from "./services.js";
export * from "./tamper.js";
