export * from "./prepare.js";
export * from "./python.js";
export * from "./uv.js";
export * from "./cache.js";
export * from "./stand-ins.js";
export * from "./system-packages.js";
export * from "./node/index.js";
