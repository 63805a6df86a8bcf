import { rm } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../core/index.js";
import { checkEngine, findDockerCli, type DockerCli, type DockerSettings } from "./docker-cli.js";
import { listContainers, reclaimContainers } from "./docker-containers.js";
import { LAB_LABEL } from "./docker-image.js";

/** What lab keeps in the Docker engine, for `lab cache list`. */
export interface DockerCacheListing {
  /** Why nothing could be listed (no docker command, no engine answering), or null. */
  readonly unavailable: string | null;
  /**
   * lab's images built for this cache folder: `lab-base:<hash>`, `lab-sandbox:<hash>`,
   * `lab-packages:<hash>` and `lab-tool:<hash>`, tagged by what went into them.
   */
  readonly images: readonly { name: string; createdAt: Date; sizeBytes: number }[];
  /** lab's containers; `ownerGone` when the lab that made them no longer runs. */
  readonly containers: readonly { name: string; run: string; ownerGone: boolean }[];
}

async function engine(settings: DockerSettings): Promise<DockerCli | string> {
  const cli = findDockerCli(settings);
  if (cli === null) return "no docker command on PATH";
  try {
    await checkEngine(cli);
    return cli;
  } catch (error) {
    return errorMessage(error);
  }
}

/** lab's images built for this cache folder (its label says so). */
async function listImages(cli: DockerCli): Promise<DockerCacheListing["images"]> {
  const result = await cli.run([
    "images",
    "--filter",
    `label=${LAB_LABEL}=image`,
    "--filter",
    `label=${LAB_LABEL}.cache=${cli.settings.cacheDir}`,
    "--format",
    "{{.Repository}}:{{.Tag}}\t{{.CreatedAt}}\t{{.Size}}",
  ]);
  if (result.exitCode !== 0) return [];
  return result.stdoutTail
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [name = "", createdAt = "", size = ""] = line.split("\t");
      return { name, createdAt: parseDockerDate(createdAt), sizeBytes: parseDockerSize(size) };
    });
}

/** docker's "2026-12-02 02:38:25 +0000 UTC" as a Date (the epoch when it cannot be read). */
export function parseDockerDate(text: string): Date {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})/.exec(text);
  if (match === null) return new Date(0);
  return new Date(`${match[1] ?? ""}T${match[2] ?? ""}${match[3] ?? ""}:${match[4] ?? ""}`);
}

/** docker's sizes ("337MB", "1.2GB", "512kB": powers of 1000) in bytes; 0 when unreadable. */
export function parseDockerSize(text: string): number {
  const match = /^([\d.]+)\s*(B|kB|KB|MB|GB|TB)$/.exec(text.trim());
  if (match === null) return 0;
  const unit = { B: 1, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 }[match[2] as "B"];
  return Math.round(Number(match[1]) * unit);
}

/** lab's images and containers in the Docker engine. */
export async function listDockerCache(settings: DockerSettings): Promise<DockerCacheListing> {
  const cli = await engine(settings);
  if (typeof cli === "string") return { unavailable: cli, images: [], containers: [] };
  return {
    unavailable: null,
    images: await listImages(cli),
    containers: await listContainers(cli),
  };
}

/**
 * Removes lab's containers whose lab is gone (killed mid-run), then the images built for this
 * cache folder, and the files image builds keep (`<cacheDir>/docker`). An image a running
 * sandbox uses stays.
 */
export async function clearDockerCache(settings: DockerSettings): Promise<{
  unavailable: string | null;
  containers: number;
  containersKept: number;
  images: number;
  imagesKept: string[];
}> {
  await rm(path.join(settings.cacheDir, "docker"), { recursive: true, force: true });
  const cli = await engine(settings);
  if (typeof cli === "string")
    return { unavailable: cli, containers: 0, containersKept: 0, images: 0, imagesKept: [] };
  const reclaimed = await reclaimContainers(cli);
  const images = await listImages(cli);
  const kept: string[] = [];
  // Children first: tools over packages over the sandbox image over the base.
  const order = ["lab-tool:", "lab-packages:", "lab-sandbox:"];
  const rank = (name: string): number => {
    const index = order.findIndex((prefix) => name.startsWith(prefix));
    return index === -1 ? order.length : index;
  };
  for (const image of [...images].sort((a, b) => rank(a.name) - rank(b.name))) {
    const removed = await cli.run(["rmi", image.name], { timeoutMs: 120_000 });
    if (removed.exitCode !== 0) kept.push(image.name);
  }
  return {
    unavailable: null,
    containers: reclaimed.removed,
    containersKept: reclaimed.kept,
    images: images.length - kept.length,
    imagesKept: kept,
  };
}
