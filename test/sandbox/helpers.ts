import { execFileSync } from "node:child_process";

/**
 * Whether bubblewrap can make a sandbox here (scripts/test.sh installs it). Without it the
 * sandbox tests skip; the runner's and CLI's tests, which use the default sandbox, fail with
 * SANDBOX_UNAVAILABLE and say how to install it.
 */
export function hasBwrap(): boolean {
  try {
    execFileSync("bwrap", ["--unshare-user", "--ro-bind", "/", "/", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
