export { generateRepoSuite, type RepoGenOptions, type RepoGenResult } from "./generate-suite.js";
export { DIMENSIONS, parseMix, type Dimension, type Mix } from "./sampling.js";
