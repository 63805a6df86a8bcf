import { UsageError } from "../core/index.js";
import {
  clearEnvironmentCache,
  countInstallLayers,
  listCachedEnvironments,
} from "../environment/index.js";
import { defineCommand } from "./command.js";
import { settingsFrom } from "./shared.js";

/** `lab cache list|clear`. */
export const cacheCommand = defineCommand({
  name: "cache",
  summary:
    "List or clear the cached Python environments (one per interpreter and set of pins) and the install layers made in them (one per task's base commit). The cache lives in LAB_CACHE_DIR, by default ~/.cache/lab.",
  usage: "cache (list | clear)",
  positionals: { min: 1, max: 1 },
  options: {},
  details:
    "Clear the cache while no grade is running: a grade in progress uses its era's environment.",
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const action = args.positionals[0];
    if (action === "list") {
      const envs = listCachedEnvironments(settings.cacheDir);
      for (const env of envs)
        io.stdout.write(`${env.key}\t${env.builtAt.toISOString()}\t${env.dir}\n`);
      io.stderr.write(
        `${String(envs.length)} cached environment(s) and ${String(countInstallLayers(settings.cacheDir))} install layer(s) in ${settings.cacheDir}\n`,
      );
      return 0;
    }
    if (action === "clear") {
      const count = await clearEnvironmentCache(settings.cacheDir);
      io.stderr.write(
        `Removed ${String(count.environments)} cached environment(s) and ${String(count.layers)} install layer(s) from ${settings.cacheDir}\n`,
      );
      return 0;
    }
    throw new UsageError(`Unknown cache action "${String(action)}": use list or clear.`);
  },
});
