import os from "node:os";

/** Who made a container: this host and lab's pid, so another lab can tell when it is gone. */
export function ownerLabel(): string {
  return `${os.hostname()}:${String(process.pid)}`;
}

/** Whether an owner label names a lab of this host that no longer runs. */
export function isOwnerGone(owner: string): boolean {
  const at = owner.lastIndexOf(":");
  const host = owner.slice(0, at);
  const pid = Number(owner.slice(at + 1));
  if (at === -1 || host !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
