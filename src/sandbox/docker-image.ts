import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LabError, type ToolInstallation } from "../core/index.js";
import { findOnPath, runCommand } from "../process/index.js";
import {
  checkEngine,
  mountField,
  requireDockerCli,
  type DockerCli,
  type DockerSettings,
} from "./docker-cli.js";
import { ownerLabel } from "./docker-owner.js";
import { withBuildLock } from "./docker-lock.js";
import { SYSTEM_PATH } from "./limits.js";
import { removeTree } from "./rootfs.js";

/** The Debian release lab's images are made of. */
export const DEBIAN_SUITE = "bookworm";

/** The Docker Hub image of that release, used where a registry answers. */
export const DEBIAN_HUB_IMAGE = "debian:bookworm-slim";

/**
 * What lab's base image holds beyond a minimal Debian: git and bash for tools and graders, CA
 * certificates, `ps`, and the shared libraries that interpreters built on the host (pyenv's)
 * link against, since the grader shows them to the container from the host.
 */
export const BASE_PACKAGES = [
  "bash",
  "ca-certificates",
  "git",
  "procps",
  "libbz2-1.0",
  "libexpat1",
  "libffi8",
  "libgdbm-compat4",
  "libgdbm6",
  "liblzma5",
  "libncursesw6",
  "libnsl2",
  "libreadline8",
  "libsqlite3-0",
  "libssl3",
  "libtirpc3",
  "libuuid1",
  "zlib1g",
] as const;

/** The Node that npm agent CLIs run on inside the container (several want 22 or later). */
export const SANDBOX_NODE_VERSION = "22.23.5";

/** Bumped when the way images are made changes, so old tags are not taken for new ones. */
const RECIPE_VERSION = 1;

/** The label every image, build container and sandbox container of lab's carries. */
export const LAB_LABEL = "lab";

/** PATH of images lab makes (Debian's default, with /usr/local for the Node layer). */
const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The packages of the base image: lab's and the user's extra ones, sorted. */
function basePackages(extra: readonly string[] = []): string[] {
  return [...new Set([...BASE_PACKAGES, ...extra])].sort();
}

/** How lab's images are named: by what goes into them, so a change of inputs is a new tag. */
export function imageTags(
  arch: string,
  extraPackages: readonly string[] = [],
): { base: string; sandbox: string } {
  const packages = basePackages(extraPackages);
  const base = `lab-base:${hashOf({ RECIPE_VERSION, DEBIAN_SUITE, packages })}`;
  const sandbox = `lab-sandbox:${hashOf({ base, SANDBOX_NODE_VERSION, arch })}`;
  return { base, sandbox };
}

function hashOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 12);
}

/**
 * What an image of lab's is: the base, the sandbox's (base and Node), one with a task's
 * packages, or one with an agent CLI lab installed.
 */
type ImageKind = "base" | "sandbox" | "packages" | "tool";

/** Where an image build reports what it does; long steps say so before they start. */
export type Progress = (message: string) => void;

/**
 * The image sandboxes run: LAB_DOCKER_IMAGE if set, else lab's own, built when missing (the
 * base from Docker Hub's Debian where a registry answers, else with debootstrap; then a layer
 * with Node). Concurrent builders wait for one another (a lock in `<cacheDir>/docker`).
 */
export async function ensureSandboxImage(
  cli: DockerCli,
  progress: Progress,
  signal?: AbortSignal,
): Promise<string> {
  const { settings } = cli;
  if (settings.image !== undefined) {
    if (!(await imageExists(cli, settings.image))) {
      progress(`pulling ${settings.image} (LAB_DOCKER_IMAGE)`);
      await cli.output(["pull", settings.image], `pull ${settings.image}`, 30 * 60_000);
      throwIfCancelled(signal);
    }
    return settings.image;
  }
  const engine = await checkEngine(cli);
  const tags = imageTags(engine.arch, settings.extraPackages);
  if (await imageExists(cli, tags.sandbox)) return tags.sandbox;
  const dir = path.join(settings.cacheDir, "docker");
  await mkdir(dir, { recursive: true });
  return withBuildLock(dir, progress, async () => {
    if (await imageExists(cli, tags.sandbox)) return tags.sandbox;
    const log = path.join(dir, `build-${tags.sandbox.replace(":", "-")}.log`);
    const step = { cli, dir, log, progress, signal };
    if (!(await imageExists(cli, tags.base))) await buildBase(step, tags.base);
    await addNodeLayer(step, tags, engine.arch);
    return tags.sandbox;
  });
}

/** The tags lab's images have for these settings on this engine. */
export async function imageTagsFor(
  settings: DockerSettings,
): Promise<{ base: string; sandbox: string }> {
  const engine = await checkEngine(requireDockerCli(settings));
  return imageTags(engine.arch, settings.extraPackages);
}

/** Whether the engine has an image by this name. */
export async function imageExists(cli: DockerCli, image: string): Promise<boolean> {
  return (await cli.run(["image", "inspect", "--format", "{{.Id}}", image])).exitCode === 0;
}

/** What every build step works with. */
interface BuildStep {
  readonly cli: DockerCli;
  /** `<cacheDir>/docker`: the lock, the root file system while it is made, Node's package. */
  readonly dir: string;
  readonly log: string;
  readonly progress: Progress;
  readonly signal: AbortSignal | undefined;
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true)
    throw new LabError("CANCELLED", "Building the docker sandbox's image was interrupted.", {
      hint: "Run the same command again: the build starts over.",
    });
}

async function buildBase(step: BuildStep, tag: string): Promise<void> {
  const { cli, log, progress, signal } = step;
  const hub =
    (await imageExists(cli, DEBIAN_HUB_IMAGE)) ||
    (
      await cli.run(["pull", DEBIAN_HUB_IMAGE], {
        timeoutMs: 10 * 60_000,
        logFile: log,
        ...(signal === undefined ? {} : { signal }),
      })
    ).exitCode === 0;
  throwIfCancelled(signal);
  if (hub) {
    progress(`building ${tag} from ${DEBIAN_HUB_IMAGE} (apt-get; once)`);
    await buildBaseFromImage(cli, tag, DEBIAN_HUB_IMAGE, log, signal);
  } else {
    const mirror = cli.settings.debianMirror ?? debianMirror();
    progress(
      `building ${tag} with debootstrap from ${mirror}: no registry answered for ${DEBIAN_HUB_IMAGE} (a few minutes, once; log: ${log})`,
    );
    await buildBaseWithDebootstrap(step, tag, mirror);
  }
}

/** The base on top of an image of Debian that has apt: the packages installed, the lists dropped. */
export async function buildBaseFromImage(
  cli: DockerCli,
  tag: string,
  from: string,
  log: string,
  signal?: AbortSignal,
): Promise<void> {
  await installPackagesInto(cli, {
    from,
    tag,
    packages: basePackages(cli.settings.extraPackages),
    kind: "base",
    log,
    signal,
  });
}

/** A Debian package's name, as apt takes it; nothing a shell would read otherwise. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** `from` with Debian packages installed by apt-get in a build container, saved as `tag`. */
async function installPackagesInto(
  cli: DockerCli,
  build: {
    readonly from: string;
    readonly tag: string;
    readonly packages: readonly string[];
    readonly kind: ImageKind;
    readonly log: string;
    readonly signal: AbortSignal | undefined;
  },
): Promise<void> {
  const { from, tag, packages, log, signal } = build;
  const bad = packages.find((name) => !PACKAGE_NAME.test(name));
  if (bad !== undefined) {
    throw new LabError("SANDBOX_UNAVAILABLE", `"${bad}" is not a Debian package name.`, {
      hint: "Check the task's debianPackages (or LAB_DOCKER_PACKAGES).",
    });
  }
  const script = `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${packages.join(" ")} && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb`;
  await commitLayer(cli, {
    from,
    options: ["--user", "0:0", "--network", "host", "--entrypoint", "/bin/sh"],
    command: ["-c", script],
    what: `install ${packages.join(", ")} into ${from}`,
    tag,
    kind: build.kind,
    log,
    signal,
  });
}

/**
 * Runs `command` in a build container of `from` (labelled as lab's build, with `options`),
 * saves the container as `tag`, and removes it.
 */
async function commitLayer(
  cli: DockerCli,
  layer: {
    readonly from: string;
    readonly options: readonly string[];
    readonly command: readonly string[];
    readonly what: string;
    readonly tag: string;
    readonly kind: ImageKind;
    /** Labels beyond lab's own. */
    readonly labels?: Readonly<Record<string, string>>;
    readonly log: string;
    readonly signal: AbortSignal | undefined;
  },
): Promise<void> {
  const { tag, log, signal } = layer;
  const labels = Object.entries(layer.labels ?? {}).flatMap(([key, value]) => [
    "--change",
    `LABEL ${key}=${JSON.stringify(value)}`,
  ]);
  const name = `lab-build-${randomUUID().slice(0, 12)}`;
  try {
    await checked(
      cli,
      [
        "run",
        "--name",
        name,
        "--label",
        `${LAB_LABEL}=build`,
        // A clear (lab cache clear, a resumed run) leaves the build of a lab still running.
        "--label",
        `${LAB_LABEL}.owner=${ownerLabel()}`,
        ...layer.options,
        layer.from,
      ],
      layer.command,
      layer.what,
      log,
      signal,
    );
    await checked(
      cli,
      ["commit", ...imageChanges(layer.kind, cli.settings.cacheDir), ...labels, name, tag],
      [],
      `save the image ${tag}`,
      log,
      signal,
    );
  } finally {
    await cli.run(["rm", "-f", name]);
  }
}

/**
 * The image for commands that need Debian packages beyond it (a task's compiler, headers,
 * tools): `image` with them added, one layer per set, named by the image's id and the set, and
 * built once (under the build lock). `image` itself when there are none.
 */
export async function ensurePackagesImage(
  cli: DockerCli,
  image: string,
  packages: readonly string[],
  progress: Progress,
  signal?: AbortSignal,
): Promise<string> {
  const wanted = [...new Set(packages)].sort();
  if (wanted.length === 0) return image;
  const id = (
    await cli.output(["image", "inspect", "--format", "{{.Id}}", image], `inspect ${image}`)
  ).trim();
  const tag = `lab-packages:${hashOf({ RECIPE_VERSION, id, wanted })}`;
  if (await imageExists(cli, tag)) return tag;
  const dir = path.join(cli.settings.cacheDir, "docker");
  await mkdir(dir, { recursive: true });
  return withBuildLock(dir, progress, async () => {
    if (await imageExists(cli, tag)) return tag;
    const log = path.join(dir, `build-${tag.replace(":", "-")}.log`);
    progress(`adding ${wanted.join(", ")} to ${image} as ${tag} (apt-get; once; log: ${log})`);
    await installPackagesInto(cli, {
      from: image,
      tag,
      packages: wanted,
      kind: "packages",
      log,
      signal,
    });
    return tag;
  });
}

/**
 * The image a tool lab installed runs from: `image` with the installation's files copied in at
 * their host paths (owners, modes and links kept), one layer per installation (its key: a
 * reinstall is a new layer) and per image under it, built once (under the build lock).
 */
export async function ensureToolImage(
  cli: DockerCli,
  image: string,
  installation: ToolInstallation,
  progress: Progress,
  signal?: AbortSignal,
): Promise<string> {
  const id = (
    await cli.output(["image", "inspect", "--format", "{{.Id}}", image], `inspect ${image}`)
  ).trim();
  const { name, version, paths, key } = installation;
  const tag = `lab-tool:${hashOf({ RECIPE_VERSION, id, name, version, paths, key })}`;
  if (await imageExists(cli, tag)) return tag;
  const missing = paths.find((source) => !existsSync(source));
  if (missing !== undefined) {
    throw new LabError(
      "TOOL_NOT_INSTALLED",
      `${name} ${version}'s installation is incomplete: ${missing} is missing.`,
      { hint: `Run \`lab tools install ${name} --force\`.` },
    );
  }
  const dir = path.join(cli.settings.cacheDir, "docker");
  await mkdir(dir, { recursive: true });
  return withBuildLock(dir, progress, async () => {
    if (await imageExists(cli, tag)) return tag;
    const log = path.join(dir, `build-${tag.replace(":", "-")}.log`);
    progress(
      `adding ${name} ${version} to ${image} as ${tag} (once per installation; log: ${log})`,
    );
    await commitLayer(cli, {
      from: image,
      options: [
        "--user",
        "0:0",
        "--network",
        "none",
        ...paths.flatMap((source, index) => [
          "--mount",
          `type=bind,${mountField("source", source)},target=/lab-tool/${String(index)},readonly`,
        ]),
        "--entrypoint",
        "/bin/sh",
      ],
      command: [
        "-c",
        'i=0; for to; do mkdir -p "$(dirname "$to")" && cp -a "/lab-tool/$i" "$to" || exit 1; i=$((i + 1)); done',
        "lab-tool",
        ...paths,
      ],
      what: `copy ${name} ${version} into ${image}`,
      tag,
      kind: "tool",
      labels: { [`${LAB_LABEL}.tool`]: `${name}@${version}` },
      log,
      signal,
    });
    return tag;
  });
}

/**
 * Builds now the image a tool lab installed runs from in docker sandboxes (`lab tools install
 * --sandbox docker`): lab's sandbox image, built first when missing, with the installation.
 */
export async function prepareToolImage(
  settings: DockerSettings,
  installation: ToolInstallation,
  progress: Progress,
  signal?: AbortSignal,
): Promise<string> {
  const cli = requireDockerCli(settings);
  await checkEngine(cli);
  const image = await ensureSandboxImage(cli, progress, signal);
  return ensureToolImage(cli, image, installation, progress, signal);
}

/** The base from a root file system debootstrap makes (root only), imported as one layer. */
async function buildBaseWithDebootstrap(
  step: BuildStep,
  tag: string,
  mirror: string,
): Promise<void> {
  const { cli, dir, log, signal } = step;
  const debootstrap = findOnPath("debootstrap", `${SYSTEM_PATH}:${cli.settings.env.PATH ?? ""}`);
  if (debootstrap === null || os.userInfo().uid !== 0) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      `lab cannot build its sandbox image: no registry answered for ${DEBIAN_HUB_IMAGE}, and ${debootstrap === null ? "debootstrap is not installed" : "debootstrap needs root"}.`,
      {
        hint: "Make Docker Hub reachable, or run lab once as root with debootstrap installed (`apt-get install debootstrap`), or set LAB_DOCKER_IMAGE to a Debian-like image of your own with bash and git.",
      },
    );
  }
  const rootfs = path.join(dir, `rootfs-${randomUUID().slice(0, 12)}`);
  try {
    const made = await runCommand(
      [
        debootstrap,
        "--variant=minbase",
        `--include=${basePackages(cli.settings.extraPackages).join(",")}`,
        DEBIAN_SUITE,
        rootfs,
        mirror,
      ],
      { env: { PATH: SYSTEM_PATH }, timeoutMs: 60 * 60_000, logFile: log, signal },
    );
    throwIfCancelled(signal);
    if (made.exitCode !== 0) {
      throw new LabError(
        "SANDBOX_UNAVAILABLE",
        `debootstrap could not make a ${DEBIAN_SUITE} root file system from ${mirror} (exit ${String(made.exitCode ?? made.signal)}).`,
        {
          hint: `See ${log} and ${path.join(rootfs, "debootstrap", "debootstrap.log")}; set LAB_DEBIAN_MIRROR to a Debian mirror that answers.`,
        },
      );
    }
    // Only what a tool or a grade uses: no package lists, downloaded packages or manuals.
    for (const junk of [
      "var/lib/apt/lists",
      "var/cache/apt/archives",
      "usr/share/doc",
      "usr/share/man",
      "usr/share/info",
    ]) {
      await rm(path.join(rootfs, junk), { recursive: true, force: true });
    }
    await mkdir(path.join(rootfs, "var/lib/apt/lists/partial"), { recursive: true });
    await mkdir(path.join(rootfs, "var/cache/apt/archives/partial"), { recursive: true });
    const imported = await runCommand(
      [
        "sh",
        "-c",
        'rootfs=$1 docker=$2; shift 2; tar --numeric-owner -C "$rootfs" -c . | "$docker" import "$@"',
        "lab-import",
        rootfs,
        cli.binary,
        ...imageChanges("base", cli.settings.cacheDir),
        "-",
        tag,
      ],
      { env: cli.settings.env, timeoutMs: 30 * 60_000, logFile: log, signal },
    );
    throwIfCancelled(signal);
    if (imported.exitCode !== 0) {
      throw new LabError("SANDBOX_UNAVAILABLE", `docker could not import the image ${tag}.`, {
        hint: `See ${log}.`,
      });
    }
  } finally {
    await removeTree(rootfs);
  }
}

/** Node, from the npm registry's node-linux-ARCH package, as a layer on the base. */
async function addNodeLayer(
  step: BuildStep,
  tags: { base: string; sandbox: string },
  arch: string,
): Promise<void> {
  const { cli, dir, log, progress, signal } = step;
  const nodeDir = path.join(dir, `node-${SANDBOX_NODE_VERSION}-${arch}`);
  const nodeBin = path.join(nodeDir, "package", "bin", "node");
  if (!existsSync(nodeBin)) {
    progress(`fetching Node ${SANDBOX_NODE_VERSION} (node-linux-${arch}) from the npm registry`);
    await mkdir(nodeDir, { recursive: true });
    const spec = `node-linux-${arch}@${SANDBOX_NODE_VERSION}`;
    const packed = await runCommand(
      ["npm", "pack", "--silent", "--pack-destination", nodeDir, spec],
      { env: cli.settings.env, cwd: nodeDir, timeoutMs: 10 * 60_000, logFile: log, signal },
    );
    throwIfCancelled(signal);
    const tarball = readdirSync(nodeDir).find((file) => file.endsWith(".tgz"));
    if (packed.exitCode !== 0 || tarball === undefined) {
      throw new LabError("SANDBOX_UNAVAILABLE", `npm could not fetch ${spec}.`, {
        hint: `Check that the npm registry is reachable (see ${log}).`,
      });
    }
    const unpacked = await runCommand(
      ["tar", "-xzf", path.join(nodeDir, tarball), "-C", nodeDir, "package/bin/node"],
      { env: { PATH: SYSTEM_PATH }, timeoutMs: 5 * 60_000, logFile: log },
    );
    await rm(path.join(nodeDir, tarball), { force: true });
    if (unpacked.exitCode !== 0) {
      throw new LabError("SANDBOX_UNAVAILABLE", `Could not unpack ${spec}.`, {
        hint: `See ${log}.`,
      });
    }
  }
  progress(`adding Node ${SANDBOX_NODE_VERSION} to make ${tags.sandbox}`);
  await commitLayer(cli, {
    from: tags.base,
    options: [
      "--network",
      "none",
      "--mount",
      `type=bind,${mountField("source", path.dirname(nodeBin))},target=/lab-node,readonly`,
    ],
    command: [
      "/bin/sh",
      "-c",
      "cp /lab-node/node /usr/local/bin/node && /usr/local/bin/node --version",
    ],
    what: "add Node to the image",
    tag: tags.sandbox,
    kind: "sandbox",
    log,
    signal,
  });
}

/**
 * `--change` options giving an image lab's labels (what it is, and the cache folder whose lab
 * built it: `lab cache clear` there removes it) and a PATH.
 */
function imageChanges(kind: ImageKind, cacheDir: string): string[] {
  return [
    "--change",
    `LABEL ${LAB_LABEL}=image ${LAB_LABEL}.image=${kind} ${LAB_LABEL}.cache=${JSON.stringify(cacheDir)}`,
    "--change",
    `ENV PATH=${IMAGE_PATH}`,
  ];
}

async function checked(
  cli: DockerCli,
  args: readonly string[],
  command: readonly string[],
  what: string,
  log: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const result = await cli.run([...args, ...command], {
    timeoutMs: 30 * 60_000,
    logFile: log,
    ...(signal === undefined ? {} : { signal }),
  });
  throwIfCancelled(signal);
  if (result.exitCode !== 0) {
    const reason = result.stderrTail.trim().split("\n").pop() ?? "";
    throw new LabError("SANDBOX_UNAVAILABLE", `docker could not ${what}: ${reason}`, {
      hint: `See ${log}.`,
    });
  }
}

/**
 * The Debian mirror apt uses on this machine (its sources' first `.../debian` URI), else
 * deb.debian.org.
 */
export function debianMirror(): string {
  const files = ["/etc/apt/sources.list"];
  try {
    for (const file of readdirSync("/etc/apt/sources.list.d").sort())
      files.push(path.join("/etc/apt/sources.list.d", file));
  } catch {
    // No apt here.
  }
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const match of text.matchAll(/(?:^deb\s+(?:\[[^\]]*\]\s+)?|^URIs:\s*)(\S+)/gm)) {
      const uri = match[1]?.replace(/\/+$/, "");
      if (uri !== undefined && /^https?:\/\/.*\/debian$/.test(uri)) return uri;
    }
  }
  return "http://deb.debian.org/debian";
}
