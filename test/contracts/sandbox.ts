/**
 * The contract every sandbox provider meets, run by test/sandbox/<provider>.test.ts for each
 * provider this machine has. Checks that need isolation are asserted for providers that claim
 * it (`isolatesFilesystem`, `canIsolateNetwork`); a provider that does not claim it must really
 * not have it, so its flags never lie in the safe direction.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  Sandbox,
  SandboxExecResult,
  SandboxLimits,
  SandboxProvider,
  SandboxSpec,
} from "../../src/core/index.js";
import { createEnvMarker, findProcessesByEnvMarker } from "../../src/process/index.js";
import { detectCgroups } from "../../src/sandbox/index.js";
import { outsideTmpRoot } from "../helpers/temp.js";

const NO_LIMITS: SandboxLimits = { memoryMb: null, diskMb: null, maxProcesses: null };
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/** A host laid out like a real one: everything a tool must not see sits beside what it may. */
interface Host {
  readonly root: string;
  readonly workTree: string;
  readonly input: string;
  readonly artifacts: string;
  readonly stateDir: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly pathEnv: string;
  readonly spec: (overrides?: Partial<SandboxSpec>) => SandboxSpec;
}

/**
 * Builds the fake host under the repository's .cache, not /tmp: the sandbox replaces /tmp,
 * which would hide everything there whatever the provider's rules.
 */
function makeHost(): Host {
  const root = mkdtempSync(path.join(outsideTmpRoot, "sandbox-contract-"));
  const at = (...parts: string[]) => path.join(root, ...parts);
  const write = (file: string, text: string): string => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  const trial = at("scratch", "alpha-1");
  const workTree = at("scratch", "alpha-1", "work");
  write(path.join(workTree, "README"), "base\n");
  const input = at("scratch", "alpha-1", "input");
  write(path.join(input, "prompt.txt"), "Fix it.\n");
  const artifacts = at("runs", "run-1", "trials", "alpha", "1", "artifacts");
  mkdirSync(artifacts, { recursive: true });
  const secrets = {
    oracle: write(at("evals", "suite", "oracle", "alpha", "gold.patch"), "GOLD-PATCH-TEXT\n"),
    runs: write(at("runs", "run-0", "trials", "alpha", "1", "result.json"), "{}\n"),
    cache: write(at("cache", "datasets", "rows.json"), "[]\n"),
    otherTrial: write(at("scratch", "beta-1", "work", "fix.py"), "OTHER-TRIAL\n"),
    home: write(at("home", ".ssh", "id_ed25519"), "PRIVATE-KEY\n"),
    homeCredentials: write(at("home", ".cargo", "credentials.toml"), "TOKEN\n"),
    // PATH entries that would expose hidden folders: they must be refused, not bound.
    runsBin: write(at("runs", "bin", "runs-tool"), "#!/bin/sh\n"),
    evalsBin: write(at("evals", "bin", "evals-tool"), "#!/bin/sh\n"),
  };
  write(at("home", ".cargo", "bin", "cargo-tool"), "#!/bin/sh\necho cargo-tool\n");
  write(at("tools", "agent", "bin", "agent"), "#!/bin/sh\necho agent-ran\n");
  write(at("tools", "agent", "lib", "agent.js"), "// the agent's code\n");
  for (const file of [
    at("home", ".cargo", "bin", "cargo-tool"),
    at("tools", "agent", "bin", "agent"),
  ])
    chmodSync(file, 0o755);
  const pathEnv = [
    at("home", ".cargo", "bin"),
    at("tools", "agent", "bin"),
    at("runs", "bin"),
    at("evals", "bin"),
    path.dirname(process.execPath),
    SYSTEM_PATH,
  ].join(":");
  return {
    root,
    workTree,
    input,
    artifacts,
    stateDir: path.join(trial, "sandbox"),
    secrets,
    pathEnv,
    spec: (overrides = {}) => ({
      workTree,
      stateDir: path.join(trial, "sandbox"),
      readOnlyPaths: [input],
      toolPaths: [],
      writablePaths: [artifacts],
      hiddenPaths: [at("evals"), at("runs"), at("cache"), at("scratch")],
      hostHome: at("home"),
      pathEnv,
      network: true,
      limits: NO_LIMITS,
      ...overrides,
    }),
  };
}

/** Registers the contract for one provider. */
export function defineSandboxContract(makeProvider: () => SandboxProvider): void {
  const provider = makeProvider();
  let host: Host;
  const live: Sandbox[] = [];

  beforeAll(async () => {
    await provider.checkReady();
    host = makeHost();
  });
  afterAll(async () => {
    for (const sandbox of live) await sandbox.dispose();
    rmSync(host.root, { recursive: true, force: true });
  });

  const open = async (overrides: Partial<SandboxSpec> = {}): Promise<Sandbox> => {
    const sandbox = await provider.create(host.spec(overrides));
    live.push(sandbox);
    return sandbox;
  };
  const env = (sandbox: Sandbox, extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: host.pathEnv,
    ...(sandbox.homeDir === undefined ? {} : { HOME: sandbox.homeDir }),
    ...extra,
  });
  const sh = async (
    sandbox: Sandbox,
    script: string,
    options: { timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {},
  ): Promise<SandboxExecResult> =>
    sandbox.exec(["bash", "-c", script], {
      cwd: host.workTree,
      env: options.env ?? env(sandbox),
      timeoutMs: options.timeoutMs ?? 30_000,
      signal: options.signal,
    });

  describe(`the ${provider.name} sandbox`, () => {
    it("round-trips files in the work tree, both ways, at the work tree's real path", async () => {
      const sandbox = await open();
      writeFileSync(path.join(host.workTree, "from-host.txt"), "hello from the host\n");
      const result = await sh(sandbox, 'pwd; cat from-host.txt; echo "from inside" > inside.txt');
      expect(result.exitCode).toBe(0);
      expect(result.stdoutTail).toBe(`${host.workTree}\nhello from the host\n`);
      expect(readFileSync(path.join(host.workTree, "inside.txt"), "utf8")).toBe("from inside\n");
    });

    it("runs as the invoking user, so what it writes in the work tree is the user's on the host", async () => {
      const sandbox = await open();
      const result = await sh(sandbox, "id -u; id -g; mkdir made && echo x > made/file.txt");
      expect(result.exitCode).toBe(0);
      const [uid, gid] = [process.getuid?.(), process.getgid?.()];
      expect(result.stdoutTail).toBe(`${String(uid)}\n${String(gid)}\n`);
      for (const made of ["made", "made/file.txt"]) {
        expect(statSync(path.join(host.workTree, made))).toMatchObject({ uid, gid });
      }
    });

    it.runIf(existsSync("/dev/shm"))(
      "round-trips files in a work tree in /dev/shm (a scratch folder in memory), and hides the rest of /dev/shm if it isolates",
      async () => {
        const trial = mkdtempSync(path.join("/dev/shm", "lab-contract-"));
        const other = mkdtempSync(path.join("/dev/shm", "lab-contract-other-"));
        try {
          const workTree = path.join(trial, "work");
          mkdirSync(workTree);
          writeFileSync(path.join(workTree, "from-host.txt"), "in memory\n");
          writeFileSync(path.join(other, "secret.txt"), "OTHER-SHM\n");
          const sandbox = await open({ workTree, stateDir: path.join(trial, "sandbox") });
          const result = await sandbox.exec(
            [
              "bash",
              "-c",
              `pwd; cat from-host.txt; echo inside > inside.txt; cat ${other}/secret.txt 2>/dev/null; true`,
            ],
            { cwd: workTree, env: env(sandbox), timeoutMs: 30_000 },
          );
          expect(result.exitCode).toBe(0);
          expect(readFileSync(path.join(workTree, "inside.txt"), "utf8")).toBe("inside\n");
          const seen = `${workTree}\nin memory\n`;
          if (provider.isolatesFilesystem) expect(result.stdoutTail).toBe(seen);
          else expect(result.stdoutTail).toBe(`${seen}OTHER-SHM\n`);
        } finally {
          rmSync(trial, { recursive: true, force: true });
          rmSync(other, { recursive: true, force: true });
        }
      },
    );

    it("reports exit codes and signals as data", async () => {
      const sandbox = await open();
      expect((await sh(sandbox, "exit 3")).exitCode).toBe(3);
      // bwrap's init reports a command killed by signal N as exit 128 + N.
      const killed = await sh(sandbox, "kill -KILL $$");
      expect(killed.signal === "SIGKILL" || killed.exitCode === 137).toBe(true);
      expect((await sh(sandbox, "echo out; echo err >&2")).stderrTail).toBe("err\n");
    });

    it("gives a command exactly the environment it was given", async () => {
      const sandbox = await open();
      const given = { PATH: host.pathEnv, HOME: sandbox.homeDir ?? "/nowhere", LAB_X: "a b=c" };
      const result = await sandbox.exec(["/usr/bin/env"], {
        cwd: host.workTree,
        env: given,
        timeoutMs: 10_000,
      });
      const seen = result.stdoutTail.trimEnd().split("\n").sort();
      expect(seen).toEqual(
        Object.entries(given)
          .map(([name, value]) => `${name}=${value}`)
          .sort(),
      );
    });

    it("on timeout kills the command's whole process tree", async () => {
      const sandbox = await open();
      const marker = createEnvMarker();
      const result = await sh(sandbox, "sleep 300 & (sleep 300 &) ; sleep 300", {
        timeoutMs: 500,
        env: env(sandbox, { [marker.name]: marker.value }),
      });
      expect(result.timedOut).toBe(true);
      expect(result.durationMs).toBeLessThan(5_000);
      expect(await findProcessesByEnvMarker(marker.name, marker.value)).toEqual([]);
    });

    it("at the time limit sends SIGTERM first, so the tool can save its work", async () => {
      const sandbox = await open();
      const result = await sh(
        sandbox,
        "trap 'echo saved > saved.txt; exit 0' TERM; sleep 300 & wait",
        { timeoutMs: 500 },
      );
      expect(result.timedOut).toBe(true);
      expect(readFileSync(path.join(host.workTree, "saved.txt"), "utf8")).toBe("saved\n");
      rmSync(path.join(host.workTree, "saved.txt"));
    });

    it("stops at once when aborted", async () => {
      const sandbox = await open();
      const controller = new AbortController();
      setTimeout(() => {
        controller.abort();
      }, 200);
      const result = await sh(sandbox, "sleep 300", { signal: controller.signal });
      expect(result).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
      expect(result.durationMs).toBeLessThan(5_000);
    });

    it("enforces a disk limit: a single huge file is capped, many files end the command", async () => {
      const sandbox = await open({ limits: { ...NO_LIMITS, diskMb: 16 } });
      const big = await sh(sandbox, "head -c 64M /dev/zero > big.bin");
      expect(big.exitCode).not.toBe(0);
      expect(readFileSync(path.join(host.workTree, "big.bin")).length).toBeLessThanOrEqual(
        16 << 20,
      );
      rmSync(path.join(host.workTree, "big.bin"));
      const many = await sh(
        sandbox,
        "i=0; while true; do head -c 4M /dev/urandom > fill-$i.bin; i=$((i+1)); sleep 0.05; done",
      );
      expect(many.limitExceeded).toBe("disk");
      for (let i = 0; existsSync(path.join(host.workTree, `fill-${String(i)}.bin`)); i++)
        rmSync(path.join(host.workTree, `fill-${String(i)}.bin`));
    });

    it.runIf(process.platform === "linux")(
      "enforces a process limit where it can (a pids cgroup)",
      async () => {
        if ((await detectCgroups()).pids === null) return;
        const sandbox = await open({ limits: { ...NO_LIMITS, maxProcesses: 40 } });
        // Node (from PATH: the image has its own under docker), not bash: bash retries a refused fork for seconds.
        const script = `const { spawn } = require("node:child_process"); let refused = 0;
          for (let i = 0; i < 100; i++) spawn("sleep", ["5"]).on("error", () => refused++);
          setTimeout(() => { console.log(refused > 0 ? "refused" : "all started"); process.exit(0); }, 1000);`;
        const result = await sandbox.exec(["node", "-e", script], {
          cwd: host.workTree,
          env: env(sandbox),
          timeoutMs: 30_000,
        });
        expect(result.stdoutTail).toBe("refused\n");
        expect(result.limitExceeded).toBe("processes");
      },
    );

    // bash blocks SIGTERM while it waits to retry a refused fork: a fork bomb outlives the grace.
    it.runIf(process.platform === "linux")(
      "still reports the process limit of a command deaf to SIGTERM, killed after the grace",
      async () => {
        if ((await detectCgroups()).pids === null) return;
        const sandbox = await open({ limits: { ...NO_LIMITS, maxProcesses: 40 } });
        const script = `process.on("SIGTERM", () => {}); let refused = 0;
          for (let i = 0; i < 100; i++) require("node:child_process").spawn("sleep", ["300"]).on("error", () => refused++);
          setInterval(() => {}, 1000);`;
        const result = await sandbox.exec(["node", "-e", script], {
          cwd: host.workTree,
          env: env(sandbox),
          timeoutMs: 1_000,
        });
        expect(result.timedOut).toBe(true);
        expect(result.limitExceeded).toBe("processes");
        expect(result.durationMs).toBeLessThan(20_000);
      },
      60_000,
    );

    it.runIf(process.platform === "linux")(
      "enforces a memory limit where it can (a memory cgroup)",
      async () => {
        if ((await detectCgroups()).memory === null) return;
        const sandbox = await open({ limits: { ...NO_LIMITS, memoryMb: 64 } });
        const result = await sandbox.exec(
          ["node", "-e", "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"],
          { cwd: host.workTree, env: env(sandbox), timeoutMs: 30_000 },
        );
        expect(result.limitExceeded).toBe("memory");
        expect(result.signal === "SIGKILL" || result.exitCode === 137).toBe(true);
      },
    );

    describe("isolation", () => {
      it("keeps the oracle, the runs, lab's cache, other trials and the user's home out of sight, or says it does not", async () => {
        const sandbox = await open();
        const readable: string[] = [];
        for (const [what, file] of Object.entries(host.secrets)) {
          const result = await sh(sandbox, `cat ${JSON.stringify(file)}`);
          if (result.exitCode === 0) readable.push(what);
        }
        if (provider.isolatesFilesystem) expect(readable).toEqual([]);
        else expect(readable).toEqual(Object.keys(host.secrets));
        if (!provider.isolatesFilesystem) return;
        // By name and by content everywhere but the large read-only system folders (/usr, /opt).
        const search = await sh(
          sandbox,
          [
            "find / \\( -path /proc -o -path /usr -o -path /opt \\) -prune -o \\( -name gold.patch -o -name rows.json -o -name id_ed25519 -o -name credentials.toml -o -name fix.py \\) -print 2>/dev/null",
            "grep -rIl GOLD-PATCH-TEXT $(ls -d /* | grep -vx -e /usr -e /opt -e /proc -e /sys -e /dev) 2>/dev/null",
            "true",
          ].join("; "),
          { timeoutMs: 120_000 },
        );
        expect(search.stdoutTail).toBe("");
      }, 180_000);

      it.runIf(provider.isolatesFilesystem)(
        "shows a tool installed under /tmp, which the sandbox's private /tmp must not hide",
        async () => {
          const installed = mkdtempSync(path.join(os.tmpdir(), "lab-contract-tool-"));
          try {
            mkdirSync(path.join(installed, "bin"));
            writeFileSync(
              path.join(installed, "bin", "tmp-agent"),
              "#!/bin/sh\necho tmp-agent-ran\n",
              { mode: 0o755 },
            );
            const sandbox = await open({ toolPaths: [installed] });
            const result = await sh(sandbox, path.join(installed, "bin", "tmp-agent"));
            expect(result.stdoutTail).toBe("tmp-agent-ran\n");
          } finally {
            rmSync(installed, { recursive: true, force: true });
          }
        },
      );

      it.runIf(provider.isolatesFilesystem)(
        "shows the prompt read-only, the artifacts folder writable, the tool's installation read-only",
        async () => {
          const sandbox = await open({ toolPaths: [path.join(host.root, "tools", "agent")] });
          const result = await sh(
            sandbox,
            [
              `cat ${host.input}/prompt.txt`,
              `echo x > ${host.input}/prompt.txt && echo prompt-writable`,
              `echo t > ${host.artifacts}/transcript.txt && echo artifacts-ok`,
              "agent; cargo-tool",
              `cat ${host.root}/tools/agent/lib/agent.js`,
              "touch /usr/x /etc/x / 2>/dev/null && echo system-writable",
              "runs-tool 2>/dev/null || echo no-runs-tool",
            ].join("; "),
          );
          expect(result.stdoutTail).toBe(
            "Fix it.\nartifacts-ok\nagent-ran\ncargo-tool\n// the agent's code\nno-runs-tool\n",
          );
          expect(readFileSync(path.join(host.artifacts, "transcript.txt"), "utf8")).toBe("t\n");
        },
      );

      it.runIf(provider.isolatesFilesystem)(
        "refuses to show a tool path that holds a hidden folder",
        async () => {
          await expect(open({ toolPaths: [path.join(host.root, "runs")] })).rejects.toMatchObject({
            code: "SANDBOX_UNAVAILABLE",
          });
        },
      );

      it("gives each trial a private /tmp and HOME, or says it does not", async () => {
        const sandbox = await open();
        const hostTmpFile = path.join("/tmp", `lab-contract-${String(process.pid)}`);
        writeFileSync(hostTmpFile, "host tmp\n");
        try {
          const result = await sh(
            sandbox,
            `cat ${hostTmpFile} 2>/dev/null; echo inside > /tmp/from-sandbox-${String(process.pid)}; echo "$HOME"; ls -A "$HOME"`,
          );
          const sawHostTmp = result.stdoutTail.includes("host tmp");
          const leaked = existsSync(`/tmp/from-sandbox-${String(process.pid)}`);
          rmSync(`/tmp/from-sandbox-${String(process.pid)}`, { force: true });
          if (provider.isolatesFilesystem) {
            expect(sawHostTmp).toBe(false);
            expect(leaked).toBe(false);
            expect(sandbox.homeDir).toBeDefined();
            expect(result.stdoutTail).toBe(`${sandbox.homeDir ?? ""}\n`);
          } else {
            expect(sawHostTmp && leaked).toBe(true);
            expect(sandbox.homeDir).toBeUndefined();
          }
        } finally {
          rmSync(hostTmpFile, { force: true });
        }
      });

      it.runIf(provider.isolatesFilesystem)(
        "runs in its own PID namespace without capabilities, and its processes end with the command",
        async () => {
          const sandbox = await open();
          const marker = createEnvMarker();
          const result = await sh(
            sandbox,
            "setsid sleep 300 & ls -d /proc/[0-9]* | wc -l; grep CapEff /proc/self/status",
            { env: env(sandbox, { [marker.name]: marker.value }) },
          );
          const [count, caps] = result.stdoutTail.trim().split("\n");
          // bwrap's init, bash, the sleeper, ls and wc (and grep, once they are gone).
          expect(Number(count)).toBeLessThanOrEqual(6);
          expect(caps).toMatch(/^CapEff:\s+0+$/);
          expect(await findProcessesByEnvMarker(marker.name, marker.value)).toEqual([]);
        },
      );
    });

    describe("network", () => {
      let server: Server;
      let port = 0;
      beforeAll(async () => {
        server = createServer((socket) => socket.end("hello\n"));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        port = (server.address() as { port: number }).port;
      });
      afterAll(async () => {
        await new Promise((resolve) => server.close(resolve));
      });
      const connect = `exec 3<>/dev/tcp/127.0.0.1/PORT && cat <&3`;

      it("reaches the host's loopback when the network is on", async () => {
        const sandbox = await open({ network: true });
        const result = await sh(sandbox, connect.replace("PORT", String(port)));
        expect(result.stdoutTail).toBe("hello\n");
      });

      it("cannot connect anywhere when the network is off, or says it cannot turn it off", async () => {
        const sandbox = await open({ network: false });
        const result = await sh(sandbox, connect.replace("PORT", String(port)));
        if (provider.canIsolateNetwork) expect(result.exitCode).not.toBe(0);
        else expect(result.stdoutTail).toBe("hello\n");
      });
    });

    it("can be disposed twice, and kills what is left", async () => {
      const sandbox = await open();
      await sandbox.dispose();
      await sandbox.dispose();
    });
  });
}
