export * from "./reporters.js";
