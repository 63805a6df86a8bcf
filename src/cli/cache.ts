import { UsageError } from "../core/index.js";
import {
  clearEnvironmentCache,
  countInstallLayers,
  listCachedEnvironments,
} from "../environment/index.js";
import { clearDockerCache, listDockerCache } from "../sandbox/index.js";
import { defineCommand } from "./command.js";
import { settingsFrom } from "./shared.js";

/** `lab cache list|clear`. */
export const cacheCommand = defineCommand({
  name: "cache",
  summary:
    "List or clear the cached Python environments (one per interpreter and set of pins), the install layers made in them (one per task's base commit), and the docker sandbox's images. The cache lives in LAB_CACHE_DIR, by default ~/.cache/lab.",
  usage: "cache (list | clear)",
  positionals: { min: 1, max: 1 },
  options: {},
  details: `Clear the cache while no grade is running: a grade in progress uses its era's environment.

The docker sandbox's images (lab-base:<hash>, lab-sandbox:<hash>, named by what goes into them) belong to the cache folder whose lab built them: \`list\` shows them as "docker-image" lines, \`clear\` removes them. Both also find containers a killed lab left (label "lab"), and \`clear\` removes those whose lab no longer runs.`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const action = args.positionals[0];
    if (action === "list") {
      const envs = listCachedEnvironments(settings.cacheDir);
      for (const env of envs)
        io.stdout.write(`${env.key}\t${env.builtAt.toISOString()}\t${env.dir}\n`);
      const docker = await listDockerCache(settings.docker);
      for (const image of docker.images)
        io.stdout.write(`${image.name}\t${image.createdAt}\tdocker-image ${image.size}\n`);
      io.stderr.write(
        `${String(envs.length)} cached environment(s) and ${String(countInstallLayers(settings.cacheDir))} install layer(s) in ${settings.cacheDir}\n`,
      );
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
