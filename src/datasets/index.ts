export * from "./swebench/data.js";
export * from "./swebench/load.js";
export * from "./swebench/render.js";
export * from "./swebench/repos.js";
export * from "./swebench/row.js";
export * from "./swebench/scope.js";
export * from "./difficulty.js";
export * from "./predictions.js";
