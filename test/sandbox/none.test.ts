import { describe } from "vitest";
import { createNoneProvider } from "../../src/sandbox/index.js";
import { defineSandboxContract } from "../contracts/sandbox.js";

describe("none provider", () => {
  defineSandboxContract(() => createNoneProvider());
});
