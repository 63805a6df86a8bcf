import { execFileSync } from "node:child_process";

/** git's environment for tests: no user or system config, a fixed author. */
export const testGitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

/** Runs git in `cwd` with testGitEnv; its stdout, trimmed. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: testGitEnv, encoding: "utf8" }).trim();
