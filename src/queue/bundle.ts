/**
 * A folder's files packed into one string for a job's return value: JSON of base64 contents,
 * gzipped, in base64. Logs compress about tenfold, and Redis holds a result until its
 * coordinator collects it. Files past a size limit are cut, keeping a log's end and a patch's
 * start, with a note saying so.
 */
import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { z } from "zod";
import { writeFileAtomic } from "../store/index.js";

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Limits of what a worker sends back per trial, before compression. */
export interface BundleLimits {
  /** Any one file (default 8 MiB). */
  readonly maxFileBytes: number;
  /** All files together (default 32 MiB); files past it are replaced by a note. */
  readonly maxTotalBytes: number;
}

/** The default limits. */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  maxFileBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
};

/** One file of a bundle. */
export interface BundleFile {
  /** Relative to the bundle's folder, "/"-separated. */
  readonly path: string;
  readonly data: Buffer;
}

const bundleSchema = z.object({
  files: z.array(z.object({ path: z.string(), base64: z.string() })),
});

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(dir, relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

/** Patches keep their start (what the change begins with); anything else its end (how it ended). */
function keepsHead(file: string): boolean {
  return file.endsWith(".diff") || file.endsWith(".patch");
}

/** Cuts `data` to `limit` bytes with a note naming the whole size and where it was cut. */
function cut(file: string, data: Buffer, limit: number, where: string): Buffer {
  const head = keepsHead(file);
  const note = (kept: number): string =>
    `[lab: ${file} was cut on ${where}: ${head ? "the first" : "the last"} ${String(kept)} of ${String(data.length)} bytes are kept]`;
  const room = Math.max(0, limit - Buffer.byteLength(note(limit)) - 2);
  if (head) return Buffer.concat([data.subarray(0, room), Buffer.from(`\n${note(room)}\n`)]);
  return Buffer.concat([Buffer.from(`${note(room)}\n`), data.subarray(data.length - room)]);
}

/**
 * Packs every file under `dir`; `first` names files packed before the rest (and so before any
 * cut of the total), e.g. result.json. `where` names the machine in cut notes.
 */
export async function packFolder(
  dir: string,
  options: { first: readonly string[]; where: string; limits?: BundleLimits },
): Promise<string> {
  const limits = options.limits ?? DEFAULT_BUNDLE_LIMITS;
  const all = await listFiles(dir);
  const ordered = [
    ...options.first.filter((file) => all.includes(file)),
    ...all.filter((file) => !options.first.includes(file)).sort(),
  ];
  let budget = limits.maxTotalBytes;
  const files: { path: string; base64: string }[] = [];
  for (const file of ordered) {
    const full = path.join(dir, file);
    const size = (await stat(full)).size;
    const limit = Math.min(limits.maxFileBytes, Math.max(budget, 0));
    let data: Buffer = await readFile(full);
    if (size > limit) data = cut(file, data, Math.max(limit, 512), options.where);
    budget -= data.length;
    files.push({ path: file, base64: data.toString("base64") });
  }
  const packed = await gzipAsync(Buffer.from(JSON.stringify({ files })));
  return packed.toString("base64");
}

/** A path from a bundle, checked to stay inside its folder. */
function safeRelative(file: string): string {
  const normal = path.posix.normalize(file);
  if (
    normal === "" ||
    normal === "." ||
    normal.startsWith("../") ||
    normal === ".." ||
    path.posix.isAbsolute(normal) ||
    normal.includes("\0")
  ) {
    throw new Error(`a bundle names a file outside its folder: "${file}"`);
  }
  return normal;
}

/** Unpacks a bundle; fails on a malformed one or one naming a path outside its folder. */
export async function unpackBundle(text: string): Promise<BundleFile[]> {
  const json = (await gunzipAsync(Buffer.from(text, "base64"))).toString("utf8");
  const parsed = bundleSchema.parse(JSON.parse(json));
  return parsed.files.map((file) => ({
    path: safeRelative(file.path),
    data: Buffer.from(file.base64, "base64"),
  }));
}

/**
 * Writes a bundle's files into `dir`, replacing what was there; each file atomically, and the
 * files named in `last` after all the others (result.json: a trial is finished once it exists).
 */
export async function writeBundle(
  dir: string,
  files: readonly BundleFile[],
  last: readonly string[],
): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const ordered = [
    ...files.filter((file) => !last.includes(file.path)),
    ...files.filter((file) => last.includes(file.path)),
  ];
  for (const file of ordered) await writeFileAtomic(path.join(dir, file.path), file.data);
}
