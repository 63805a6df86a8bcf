export * from "./calibrate.js";
export * from "./kappa.js";
export * from "./markdown.js";
export * from "./schema.js";
export * from "./show.js";
export * from "./store.js";
export * from "./validity.js";
