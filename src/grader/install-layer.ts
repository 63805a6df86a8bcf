import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { runPool, type PythonEnvironmentSpec } from "../core/index.js";
import { installLayersDir } from "../environment/index.js";
import { git } from "../git/index.js";
import { listUntracked } from "./install-scope.js";

/** How many of a layer's files are read or written at once. */
const FILE_BATCH = 32;

/** Bumped whenever what a layer holds, or how it is restored, changes. */
const LAYER_LAYOUT = 2;

/**
 * The folder, in a grade's scratch folder, where the base commit is installed for its layer.
 * Its name is long on purpose: compiled extensions keep the build's paths in their string
 * tables (debug info, `__FILE__`), which a grade relocates by rewriting each such string in
 * place, padded with NULs, as conda relocates binaries built under a long placeholder prefix.
 * That works only when the grade's path is not longer than the install's.
 */
export const BASE_INSTALL_FOLDER = `base-install-${"_".repeat(96)}`;

/** The first bytes of an ELF file (a compiled extension, a shared library). */
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** One file an install wrote: in the per-grade venv or in the checkout. */
interface LayerFile {
  readonly place: "venv" | "repo";
  /** Relative to the venv or the checkout. */
  readonly path: string;
  readonly mode: number;
}

/** What an install of a base commit left, kept in lab's cache to stand for the same install. */
export interface InstallLayer {
  readonly key: string;
  readonly dir: string;
  /** The scratch folder of the install it was taken from; its paths are in some files. */
  readonly origin: string;
  readonly files: readonly LayerFile[];
}

/** A layer that could not be made from the install, and why (kept so it is not tried again). */
export interface UnusableLayer {
  readonly key: string;
  readonly unusable: string;
}

/** Everything an install's result depends on besides the change. */
export interface LayerKeyParts {
  readonly repo: string;
  readonly baseCommit: string;
  readonly environmentKey: string;
  /** The cached environment's site-packages (its path is in the per-grade venv's .pth). */
  readonly sitePackages: string;
  readonly spec: Pick<PythonEnvironmentSpec, "preInstall" | "install" | "env">;
  /** The uv binary: its path, size and time identify its version. */
  readonly uv: string;
}

/** The cache key of the install layer of one base commit in one environment. */
export async function installLayerKey(parts: LayerKeyParts): Promise<string> {
  const uv = await stat(parts.uv).catch(() => null);
  return createHash("sha256")
    .update(
      JSON.stringify({
        layout: LAYER_LAYOUT,
        repo: parts.repo,
        baseCommit: parts.baseCommit,
        environmentKey: parts.environmentKey,
        sitePackages: parts.sitePackages,
        preInstall: parts.spec.preInstall,
        install: parts.spec.install,
        env: parts.spec.env,
        uv: [parts.uv, uv?.size ?? null, uv?.mtimeMs ?? null],
      }),
    )
    .digest("hex")
    .slice(0, 24);
}

/**
 * Whether an install command installs the project in editable mode (`pip install -e .`): only
 * then does the installed project read the checkout's files, so that an install of the base
 * commit stands for an install of a change to them. A plain `pip install .` copies the code.
 */
export function isEditableInstall(command: string): boolean {
  return /(?:^|\s)(?:-e|--editable)(?:\s|=|$)/.test(command) && /\bpip\b/.test(command);
}

/** The layer of `key` in the cache: whole, unusable, or null when none was made yet. */
export async function readInstallLayer(
  cacheDir: string,
  key: string,
): Promise<InstallLayer | UnusableLayer | null> {
  const dir = path.join(installLayersDir(cacheDir), key);
  const text = await readFile(path.join(dir, "layer.json"), "utf8").catch(() => null);
  if (text === null) return null;
  const record = JSON.parse(text) as {
    origin?: string;
    files?: LayerFile[];
    unusable?: string;
  };
  if (record.unusable !== undefined) return { key, unusable: record.unusable };
  return { key, dir, origin: record.origin ?? "", files: record.files ?? [] };
}

/** Size, time and inode of each file and link under a folder, by relative path. */
export type TreeStamps = ReadonlyMap<string, string>;

/** Stamps every file and link under `root` (folders are not stamped), to tell what changed. */
export async function stampTree(root: string): Promise<TreeStamps> {
  const stamps = new Map<string, string>();
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else {
        const stats = await lstat(path.join(root, child));
        const kind = stats.isSymbolicLink() ? "link" : stats.isFile() ? "file" : "other";
        stamps.set(
          child,
          `${kind}:${String(stats.size)}:${String(stats.mtimeMs)}:${String(stats.ino)}`,
        );
      }
    }
  };
  await walk("");
  return stamps;
}

/** What the trusted install of a base commit left behind, measured around it. */
export interface InstallTrace {
  /** The install's scratch folder, which holds `repo/` and `venv/`. */
  readonly scratchDir: string;
  readonly repo: string;
  readonly venv: string;
  readonly baseCommit: string;
  readonly gitEnv: Readonly<Record<string, string>>;
  /** The venv's stamps before the install. */
  readonly venvBefore: TreeStamps;
  /** The checkout's untracked files and its diff against the base commit, before the install. */
  readonly repoBefore: RepoState;
}

/** The untracked files of a checkout and its diff against the base commit. */
export interface RepoState {
  readonly untracked: ReadonlySet<string>;
  readonly diff: string;
}

/** Reads a checkout's untracked files (ignored ones too) and its binary diff against `base`. */
export async function readRepoState(
  repo: string,
  baseCommit: string,
  gitEnv: Readonly<Record<string, string>>,
): Promise<RepoState> {
  const diff = await git(["diff", "--binary", "--no-ext-diff", "--no-textconv", baseCommit], {
    cwd: repo,
    env: gitEnv,
  });
  return { untracked: new Set(await listUntracked(repo, gitEnv)), diff };
}

/**
 * Keeps what a trusted install of the base commit wrote (new and changed files of the venv, new
 * files of the checkout) as the layer `key` in lab's cache. When the install cannot be kept as
 * files (it removed or linked something, changed tracked files, or wrote its folder's path into
 * a binary file), an unusable layer records why. Concurrent callers may race: the first layer
 * renamed into place stays, and is returned to every caller.
 */
export async function captureInstallLayer(
  cacheDir: string,
  key: string,
  trace: InstallTrace,
): Promise<InstallLayer | UnusableLayer> {
  const files: LayerFile[] = [];
  let unusable: string | null = null;
  const venvAfter = await stampTree(trace.venv);
  for (const [file, stamp] of venvAfter) {
    if (trace.venvBefore.get(file) === stamp) continue;
    if (!stamp.startsWith("file:")) unusable ??= `the install made ${file} in the venv a link`;
    files.push({ place: "venv", path: file, mode: 0 });
  }
  for (const file of trace.venvBefore.keys())
    if (!venvAfter.has(file)) unusable ??= `the install removed ${file} from the venv`;
  const repoAfter = await readRepoState(trace.repo, trace.baseCommit, trace.gitEnv);
  if (repoAfter.diff !== trace.repoBefore.diff)
    unusable ??= "the install changes files the repository tracks";
  for (const file of [...repoAfter.untracked].sort()) {
    if (trace.repoBefore.untracked.has(file)) continue;
    const stats = await lstat(path.join(trace.repo, file));
    if (!stats.isFile()) unusable ??= `the install made ${file} in the checkout, not a file`;
    files.push({ place: "repo", path: file, mode: 0 });
  }

  const layers = installLayersDir(cacheDir);
  const final = path.join(layers, key);
  const staging = path.join(
    layers,
    `.${key}.${String(process.pid)}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  await mkdir(staging, { recursive: true });
  try {
    const kept: LayerFile[] = [];
    for (const file of unusable === null ? files : []) {
      const source = path.join(file.place === "venv" ? trace.venv : trace.repo, file.path);
      const content = await readFile(source);
      // An ELF file's paths sit in NUL-terminated string tables, which a grade can rewrite in
      // place (relocateCStrings); in any other binary file there is no telling where they end.
      if (
        !isUtf8(content) &&
        content.includes(trace.scratchDir) &&
        !content.subarray(0, ELF_MAGIC.length).equals(ELF_MAGIC)
      ) {
        unusable = `the install wrote its folder's path into ${file.path}, a binary file`;
        break;
      }
      const target = path.join(staging, file.place, file.path);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
      kept.push({ ...file, mode: (await lstat(source)).mode & 0o777 });
    }
    const record =
      unusable === null
        ? { layout: LAYER_LAYOUT, origin: trace.scratchDir, files: kept }
        : { layout: LAYER_LAYOUT, unusable };
    await writeFile(path.join(staging, "layer.json"), `${JSON.stringify(record, null, 2)}\n`);
    // Atomic: a concurrent grade sees no layer or a whole one. If another grade put one there
    // first, that one stays (it was made from the same install).
    await rename(staging, final).catch(() => undefined);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const stored = await readInstallLayer(cacheDir, key);
  if (stored === null) throw new Error(`The install layer ${final} could not be stored.`);
  return stored;
}

/**
 * Puts a layer into a grade: its files into the grade's venv and checkout, with the path of
 * the install it was taken from replaced by the grade's own (the editable install's .pth and
 * finder, direct_url.json, console scripts' shebangs), and the RECORD of each distribution
 * updated to match. Nothing is written when a file the layer holds already exists in the
 * checkout, or a folder on its way is a link: the reason is returned instead, and the grade
 * installs the change itself.
 */
export async function restoreInstallLayer(
  layer: InstallLayer,
  places: { scratchDir: string; venv: string; repo: string },
): Promise<string | null> {
  const rootOf = (file: LayerFile): string => (file.place === "venv" ? places.venv : places.repo);
  for (const file of layer.files.filter((entry) => entry.place === "repo")) {
    const blocked = await firstObstacle(places.repo, file.path);
    if (blocked !== null) return blocked;
  }
  if (Buffer.byteLength(places.scratchDir) > Buffer.byteLength(layer.origin)) {
    for (const file of layer.files) {
      const content = await readFile(path.join(layer.dir, file.place, file.path));
      if (!isUtf8(content) && content.includes(layer.origin))
        return `${file.path}, a compiled file, holds the base install's path, and this grade's (${places.scratchDir}) is longer`;
    }
  }
  const origin = Buffer.from(layer.origin);
  const target = Buffer.from(places.scratchDir);
  // Binary files are rewritten in place, which needs room: the grade's path no longer.
  const shorter = target.length <= origin.length;
  // Hundreds of small files (sphinx's install brings 700): read and written a batch at a time.
  const entries: { file: LayerFile; content: Buffer }[] = layer.files.map((file) => ({
    file,
    content: Buffer.alloc(0),
  }));
  /** The files whose content the relocation changed, by their path in the grade. */
  const relocated = new Map<string, Buffer>();
  await runPool(entries, FILE_BATCH, async (entry) => {
    const content = await readFile(path.join(layer.dir, entry.file.place, entry.file.path));
    entry.content = isUtf8(content)
      ? replaceAll(content, origin, target)
      : shorter
        ? relocateCStrings(content, origin, target)
        : content;
    if (entry.content !== content)
      relocated.set(path.join(rootOf(entry.file), entry.file.path), entry.content);
  });
  // A RECORD lists each installed file's hash and size: those of relocated files change.
  for (const entry of entries) {
    const { file } = entry;
    if (file.place !== "venv" || !/\.dist-info\/RECORD$/.test(file.path)) continue;
    const sitePackages = path.dirname(path.dirname(path.join(places.venv, file.path)));
    entry.content = Buffer.from(
      updateRecord(entry.content.toString("utf8"), sitePackages, relocated),
    );
  }
  const folders = new Set(
    layer.files.map((file) => path.dirname(path.join(rootOf(file), file.path))),
  );
  for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true });
  await runPool(entries, FILE_BATCH, async ({ file, content }) => {
    const destination = path.join(rootOf(file), file.path);
    // A venv file the install changed (it was there before) is replaced, never written through.
    await writeFile(destination, content, { flag: "wx", mode: file.mode }).catch(
      async (error: unknown) => {
        if (file.place !== "venv" || (error as NodeJS.ErrnoException).code !== "EEXIST")
          throw error;
        await rm(destination, { force: true });
        await writeFile(destination, content, { flag: "wx", mode: file.mode });
      },
    );
    await chmod(destination, file.mode);
  });
  return null;
}

/** Why `relative` cannot be written fresh under `root`: it exists, or a folder on the way is not one. */
async function firstObstacle(root: string, relative: string): Promise<string | null> {
  let current = root;
  const parts = relative.split("/");
  for (const [index, part] of parts.entries()) {
    current = path.join(current, part);
    const stats = await lstat(current).catch(() => null);
    if (stats === null) return null;
    if (index === parts.length - 1) return `the checkout already has ${relative}`;
    if (!stats.isDirectory())
      return `${parts.slice(0, index + 1).join("/")} in the checkout is not a folder`;
  }
  return null;
}

/** `content` with every `from` replaced by `to`; the same Buffer when there is none. */
function replaceAll(content: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = content.indexOf(from);
  if (at < 0 || from.length === 0) return content;
  const pieces: Buffer[] = [];
  let start = 0;
  while (at >= 0) {
    pieces.push(content.subarray(start, at), to);
    start = at + from.length;
    at = content.indexOf(from, start);
  }
  pieces.push(content.subarray(start));
  return Buffer.concat(pieces);
}

/**
 * `content` (an ELF file) with `from` replaced by `to` in every NUL-terminated string holding
 * it, each string padded with NULs to its old length, so no offset or size in the file moves:
 * conda's relocation of binaries. `to` must not be longer than `from`.
 */
export function relocateCStrings(content: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = content.indexOf(from);
  if (at < 0 || from.length === 0) return content;
  const out = Buffer.from(content);
  while (at >= 0) {
    const end = out.indexOf(0, at);
    const stop = end < 0 ? out.length : end;
    const rewritten = replaceAll(out.subarray(at, stop), from, to);
    out.fill(0, at, stop);
    rewritten.copy(out, at);
    at = out.indexOf(from, stop);
  }
  return out;
}

/** A RECORD with the hash and size of each relocated file (by its path) recomputed. */
function updateRecord(
  record: string,
  sitePackages: string,
  relocated: ReadonlyMap<string, Buffer>,
): string {
  return record
    .split("\n")
    .map((line) => {
      // A quoted name (one with a comma) is left alone: none of lab's relocated files has one.
      const [name, hash, size] = line.startsWith('"') ? [] : line.split(",");
      if (name === undefined || hash === undefined || size === undefined || hash === "")
        return line;
      const content = relocated.get(path.resolve(sitePackages, name));
      if (content === undefined) return line;
      const digest = createHash("sha256").update(content).digest("base64url");
      return `${name},sha256=${digest},${String(content.length)}`;
    })
    .join("\n");
}
