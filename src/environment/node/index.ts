export * from "./install-key.js";
export * from "./lts.js";
export * from "./package-manager.js";
export * from "./project-files.js";
export * from "./registry-package.js";
export * from "./releases.js";
export * from "./runtime.js";
export * from "./version.js";
