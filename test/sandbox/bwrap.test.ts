import { describe } from "vitest";
import { createBwrapProvider } from "../../src/sandbox/index.js";
import { defineSandboxContract } from "../contracts/sandbox.js";
import { hasBwrap } from "./helpers.js";

describe.runIf(hasBwrap())("bwrap provider", () => {
  defineSandboxContract(() => createBwrapProvider({ pathEnv: process.env.PATH ?? "" }));
});
