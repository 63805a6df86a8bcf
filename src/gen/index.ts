export * from "./prove.js";
