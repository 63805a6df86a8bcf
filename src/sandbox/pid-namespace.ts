import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * Sends `signal` to every process in the PID namespace of the sandbox whose command line holds
 * `token`, except that namespace's init (bwrap's own reaper, whose death would SIGKILL the
 * rest at once). Reaches daemons that left their process group or session, and nothing else.
 * Linux only; a sandbox already gone is not an error.
 */
export async function signalPidNamespace(token: string, signal: NodeJS.Signals): Promise<number> {
  const pids = (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry));
  const ownNamespace = await readlink("/proc/self/ns/pid");
  const needle = Buffer.from(token);
  let namespace: string | null = null;
  let init: string | null = null;
  for (const pid of pids) {
    try {
      if (!(await readFile(`/proc/${pid}/cmdline`)).includes(needle)) continue;
      const candidate = await readlink(`/proc/${pid}/ns/pid`);
      // The outer bwrap lives in lab's namespace; the one inside another is the sandbox's init.
      if (candidate === ownNamespace) continue;
      namespace = candidate;
      init = pid;
      break;
    } catch {
      // Gone, or not ours to read.
    }
  }
  if (namespace === null) return 0;
  let signalled = 0;
  for (const pid of pids) {
    if (pid === init) continue;
    try {
      if ((await readlink(`/proc/${pid}/ns/pid`)) !== namespace) continue;
      process.kill(Number(pid), signal);
      signalled++;
    } catch {
      // Gone since the scan.
    }
  }
  return signalled;
}
