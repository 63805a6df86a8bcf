import { UsageError } from "../core/index.js";
import {
  clearEnvironmentCache,
  findOwnUv,
  folderSizeBytes,
  listCachedEnvironments,
  listInstallLayers,
} from "../environment/index.js";
import { clearDockerCache, listDockerCache } from "../sandbox/index.js";
import { defineCommand, flagOption } from "./command.js";
import { alignColumns, formatBytes, settingsFrom } from "./shared.js";

/** When something was built, to the minute, in UTC. */
function builtAt(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** `lab cache list|clear`. */
export const cacheCommand = defineCommand({
  name: "cache",
  summary:
    "List or clear the cached Python environments (one per interpreter and set of pins), the install layers made in them (one per task's base commit), lab's own copy of uv (when it installed one), and the docker sandbox's images. The cache lives in LAB_CACHE_DIR, by default ~/.cache/lab.",
  usage: "cache (list | clear)",
  positionals: { min: 1, max: 1 },
  options: {
    json: { type: "boolean", description: "list: one JSON object per entry on stdout" },
  },
  details: `\`lab cache list\` prints a table: each environment (its interpreter and how many pins) and
each install layer (how many files it restores), with its size and when it was built.
\`lab cache clear\` removes them all. Clear the cache while no grade is running: a grade in
progress uses its era's environment.

The docker sandbox's images (lab-base:<hash>, lab-sandbox:<hash>, lab-packages:<hash>, named by
what goes into them) belong to the cache folder whose lab built them: \`list\` shows them as
"docker image" rows, \`clear\` removes them. Both also find containers a killed lab left (label
"lab"), and \`clear\` removes those whose lab no longer runs.`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const action = args.positionals[0];
    if (action === "list") {
      const docker = await listDockerCache(settings.docker);
      const entries = [
        ...listCachedEnvironments(settings.cacheDir).map((env) => ({
          kind: "environment" as const,
          key: env.key,
          python: env.python,
          pins: env.pins,
          files: null,
          sizeBytes: folderSizeBytes(env.dir),
          builtAt: env.builtAt,
          dir: env.dir,
        })),
        ...listInstallLayers(settings.cacheDir).map((layer) => ({
          kind: "install layer" as const,
          key: layer.key,
          python: null,
          pins: null,
          files: layer.files,
          sizeBytes: folderSizeBytes(layer.dir),
          builtAt: layer.builtAt,
          dir: layer.dir,
        })),
        ...[findOwnUv(settings.cacheDir)]
          .filter((uv) => uv !== null)
          .map((uv) => ({
            kind: "uv" as const,
            key: uv.name,
            python: null,
            pins: null,
            files: null,
            sizeBytes: folderSizeBytes(uv.dir),
            builtAt: uv.builtAt,
            dir: uv.dir,
          })),
        ...docker.images.map((image) => ({
          kind: "docker image" as const,
          key: image.name,
          python: null,
          pins: null,
          files: null,
          sizeBytes: image.sizeBytes,
          builtAt: image.createdAt,
          dir: null,
        })),
      ];
      if (flagOption(args, "json")) {
        for (const entry of entries)
          io.stdout.write(
            `${JSON.stringify({ ...entry, builtAt: entry.builtAt.toISOString() })}\n`,
          );
      } else if (entries.length > 0) {
        io.stdout.write(
          alignColumns([
            ["KIND", "KEY", "PYTHON", "PINS", "FILES", "SIZE", "BUILT"],
            ...entries.map((entry) => [
              entry.kind,
              entry.key,
              entry.python ?? "-",
              entry.pins === null ? "-" : String(entry.pins),
              entry.files === null ? "-" : String(entry.files),
              formatBytes(entry.sizeBytes),
              builtAt(entry.builtAt),
            ]),
          ]),
        );
      }
      const environments = entries.filter((entry) => entry.kind === "environment");
      const layers = entries.filter((entry) => entry.kind === "install layer");
      const total = [...environments, ...layers].reduce((sum, entry) => sum + entry.sizeBytes, 0);
      io.stderr.write(
        `${String(environments.length)} cached environment(s) and ${String(layers.length)} install layer(s), ${formatBytes(total)}, in ${settings.cacheDir}\n`,
      );
      for (const uv of entries.filter((entry) => entry.kind === "uv"))
        io.stderr.write(`lab's own uv: ${formatBytes(uv.sizeBytes)}, in ${uv.dir}\n`);
      if (docker.unavailable === null) {
        const stale = docker.containers.filter((container) => container.ownerGone).length;
        io.stderr.write(
          `docker: ${String(docker.images.length)} image(s); ${String(docker.containers.length)} lab container(s)${stale > 0 ? `, ${String(stale)} left by a lab that is gone (\`lab cache clear\` removes them)` : ""}\n`,
        );
      }
      return 0;
    }
    if (action === "clear") {
      const count = await clearEnvironmentCache(settings.cacheDir);
      io.stderr.write(
        `Removed ${String(count.environments)} cached environment(s) and ${String(count.layers)} install layer(s) from ${settings.cacheDir}\n`,
      );
      if (count.uv !== null)
        io.stderr.write(
          `Removed lab's own uv from ${count.uv} (a grade installs it again when no uv is on PATH)\n`,
        );
      const docker = await clearDockerCache(settings.docker);
      if (docker.unavailable === null) {
        io.stderr.write(
          `docker: removed ${String(docker.images)} image(s) and ${String(docker.containers)} container(s) left by a lab that is gone` +
            (docker.containersKept > 0
              ? `; kept ${String(docker.containersKept)} container(s) of a lab still running`
              : "") +
            (docker.imagesKept.length > 0
              ? `; kept ${docker.imagesKept.join(", ")} (in use by a container)`
              : "") +
            "\n",
        );
      }
      return 0;
    }
    throw new UsageError(`Unknown cache action "${String(action)}": use list or clear.`);
  },
});
