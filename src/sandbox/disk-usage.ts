import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/** Folders read at once while walking; bounded so a wide tree cannot exhaust file handles. */
const WALK_BATCH = 32;

/**
 * Bytes of disk the given files and folders take (allocated blocks, symlinks not followed,
 * each inode counted once). Entries that vanish while walking are skipped.
 */
export async function diskUsageBytes(roots: readonly string[]): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  let pending = [...roots];
  while (pending.length > 0) {
    const batch = pending.slice(0, WALK_BATCH);
    pending = pending.slice(WALK_BATCH);
    const found = await Promise.all(batch.map((entry) => visit(entry)));
    for (const { bytes, children, inode } of found) {
      if (inode !== null) {
        if (seen.has(inode)) continue;
        seen.add(inode);
      }
      total += bytes;
      pending.push(...children);
    }
  }
  return total;
}

async function visit(
  entry: string,
): Promise<{ bytes: number; children: string[]; inode: string | null }> {
  try {
    const stats = await lstat(entry, { bigint: false });
    const inode = `${String(stats.dev)}:${String(stats.ino)}`;
    // st_blocks counts 512-byte units whatever the filesystem's block size is.
    const bytes = stats.blocks * 512;
    if (!stats.isDirectory()) return { bytes, children: [], inode };
    const names = await readdir(entry);
    return { bytes, children: names.map((name) => path.join(entry, name)), inode };
  } catch {
    return { bytes: 0, children: [], inode: null };
  }
}

/** Watches how much disk some paths take and calls `onExceeded` once when it passes a limit. */
export interface DiskWatch {
  /** Stops watching; resolves when no walk is running. */
  stop(): Promise<void>;
}

/**
 * Polls the usage of `roots` and calls `onExceeded` (once) when it passes `limitBytes`. A walk
 * of a large tree takes time, so the pause between walks grows with it (ten times the last
 * walk, at least `minIntervalMs`): the watch costs at most a tenth of a core.
 */
export function watchDiskUsage(options: {
  roots: readonly string[];
  limitBytes: number;
  minIntervalMs?: number;
  onExceeded: (usedBytes: number) => void;
}): DiskWatch {
  const minIntervalMs = options.minIntervalMs ?? 500;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = (async () => {
      const start = performance.now();
      const used = await diskUsageBytes(options.roots);
      if (stopped) return;
      if (used > options.limitBytes) {
        stopped = true;
        options.onExceeded(used);
        return;
      }
      const wait = Math.max(minIntervalMs, 10 * (performance.now() - start));
      timer = setTimeout(tick, wait);
    })();
  };
  timer = setTimeout(tick, minIntervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
