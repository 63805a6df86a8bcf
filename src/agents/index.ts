export * from "./types.js";
export * from "./install-agent.js";
export * from "./pricing.js";
export * from "./catalog.js";
export * from "./agent-tool.js";
