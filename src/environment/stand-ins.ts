import { copyFile, lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** The file that marks a distribution's metadata as a stand-in copied by lab. */
export const STAND_IN_MARKER = "LAB_STAND_IN";

/** The metadata files uv and setuptools read of an installed distribution. */
const METADATA_FILES = ["METADATA", "INSTALLER", "direct_url.json", "entry_points.txt"];

/**
 * Makes the cached environment's distributions count as installed in a per-grade environment
 * for the length of the project's install. The per-grade environment sees the cached packages
 * through a .pth file, which Python honours and uv does not: uv reads only the environment's own
 * site-packages, so `pip install -e .` would download and copy every dependency again (numpy
 * and pandas for xarray, 33 packages for sphinx) although the pins already hold them. pip, in
 * upstream's images, finds them installed ("Requirement already satisfied").
 *
 * So before the install each cached distribution gets a stand-in in the per-grade site-packages:
 * a copy of its metadata and a RECORD that lists only those files, so that if the install
 * replaces the distribution (a change that asks for another version), uninstalling the stand-in
 * removes the stand-in and nothing of the cached environment. The stand-ins are removed after
 * the install (`removeStandIns`), so the tests see the same packages as without them.
 *
 * Returns the folder names of the stand-ins made.
 */
export async function addStandIns(
  cachedSitePackages: string,
  ownSitePackages: string,
): Promise<string[]> {
  const made: string[] = [];
  const entries = await readdir(cachedSitePackages);
  await Promise.all(
    entries
      .filter((entry) => entry.endsWith(".dist-info"))
      .map(async (entry) => {
        const target = path.join(ownSitePackages, entry);
        // Already installed here for real (not expected before the install): leave it.
        if ((await lstat(target).catch(() => null)) !== null) return;
        await mkdir(target);
        const copied: string[] = [];
        for (const name of METADATA_FILES) {
          try {
            await copyFile(path.join(cachedSitePackages, entry, name), path.join(target, name));
            copied.push(name);
          } catch {
            // Not every distribution has every file.
          }
        }
        await writeFile(path.join(target, STAND_IN_MARKER), "");
        const record = [...copied, STAND_IN_MARKER, "RECORD"].map((name) => `${entry}/${name},,\n`);
        await writeFile(path.join(target, "RECORD"), record.join(""));
        made.push(entry);
      }),
  );
  return made.sort();
}

/**
 * Removes the stand-ins that are still stand-ins: the install may have replaced some with real
 * distributions of the same name, which stay. A stand-in the install's code turned into a link
 * is removed as a link, never followed.
 */
export async function removeStandIns(
  ownSitePackages: string,
  standIns: readonly string[],
): Promise<void> {
  await Promise.all(
    standIns.map(async (entry) => {
      const target = path.join(ownSitePackages, entry);
      const stats = await lstat(target).catch(() => null);
      if (stats === null) return;
      if (stats.isDirectory()) {
        const marker = await lstat(path.join(target, STAND_IN_MARKER)).catch(() => null);
        if (marker === null) return;
      }
      await rm(target, { recursive: true, force: true });
    }),
  );
}
