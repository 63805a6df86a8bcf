export * from "./prove.js";
export * from "./drop-reasons.js";
export * from "./swebench.js";
export * from "./tier-readme.js";
export * from "./repo/index.js";
