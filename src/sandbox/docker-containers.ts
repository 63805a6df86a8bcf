import type { DockerCli } from "./docker-cli.js";
import { LAB_LABEL } from "./docker-image.js";
import { isOwnerGone } from "./docker-owner.js";

/** lab's containers on the engine: sandboxes and image builds, with whether their lab is gone. */
export async function listContainers(
  cli: DockerCli,
  filter: { runId?: string } = {},
): Promise<{ name: string; run: string; ownerGone: boolean }[]> {
  const result = await cli.run(
    [
      "ps",
      "--all",
      "--filter",
      filter.runId === undefined ? `label=${LAB_LABEL}` : `label=${LAB_LABEL}.run=${filter.runId}`,
      "--format",
      `{{.Names}}\t{{.Label "${LAB_LABEL}.run"}}\t{{.Label "${LAB_LABEL}.owner"}}`,
    ],
    { timeoutMs: 60_000 },
  );
  if (result.exitCode !== 0) return [];
  return result.stdoutTail
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [name = "", run = "", owner = ""] = line.split("\t");
      // A container without an owner label (a build of an older lab's) is only ever left by
      // a lab that died.
      return { name, run, ownerGone: owner === "" || isOwnerGone(owner) };
    });
}

/**
 * Removes lab's containers whose lab is gone (of one run, or all); a container of a lab still
 * running is left alone. Returns how many were removed and how many were left.
 */
export async function reclaimContainers(
  cli: DockerCli,
  filter: { runId?: string } = {},
): Promise<{ removed: number; kept: number }> {
  const found = await listContainers(cli, filter);
  const stale = found.filter((container) => container.ownerGone).map((c) => c.name);
  if (stale.length > 0) await cli.run(["rm", "--force", ...stale], { timeoutMs: 120_000 });
  return { removed: stale.length, kept: found.length - stale.length };
}
