/**
 * Process groups lab started and has not yet reaped, so none outlives lab.
 * Keyed by group id, which is the leader's pid because every child is spawned `detached`.
 */
const liveGroups = new Map<number, () => void>();
let isExitHookInstalled = false;

/** Sends `signal` to every process in group `groupId`; false when the group is gone or unreachable. */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    // ESRCH (already gone) is the common case; EPERM means a member changed user and is not ours to kill.
    return false;
  }
}

/** Records a live group; `onKilledByLab` runs if killAllChildren() kills it. */
export function registerProcessGroup(groupId: number, onKilledByLab: () => void): void {
  if (!isExitHookInstalled) {
    // 'exit' listeners must be synchronous, and killAllChildren() is.
    process.on("exit", () => killAllChildren());
    isExitHookInstalled = true;
  }
  liveGroups.set(groupId, onKilledByLab);
}

/** Forgets a group whose leader has exited and been dealt with. */
export function unregisterProcessGroup(groupId: number): void {
  liveGroups.delete(groupId);
}

/**
 * SIGKILLs every process group lab started that is still running, synchronously; returns how many.
 * Runs by itself on process 'exit'. A signal that kills Node skips 'exit', so the CLI's
 * SIGINT/SIGTERM handlers must call this too: the children sit in their own groups and sessions,
 * so the terminal's Ctrl-C never reaches them.
 */
export function killAllChildren(): number {
  let killed = 0;
  for (const [groupId, onKilledByLab] of liveGroups) {
    liveGroups.delete(groupId);
    onKilledByLab();
    if (signalProcessGroup(groupId, "SIGKILL")) killed++;
  }
  return killed;
}
