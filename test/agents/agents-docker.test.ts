/**
 * Agent CLIs installed by `lab tools install` run in the docker sandbox as they do in bubblewrap:
 * an npm CLI (claude-code, on the image's Node) and a PyPI one (mini-swe-agent, its venv over
 * the host's interpreter, both copied into an image layer at their real paths) edit in the gold
 * change of a starter task against the scripted model server on 127.0.0.1, and the task
 * resolves.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerProvider } from "../../src/sandbox/index.js";
import { isWithin } from "../../src/sandbox/mounts.js";
import { sharedToolsDir } from "../helpers/temp.js";
import { startModelServer, type ModelServer } from "../helpers/model-server/index.js";
import { dockerEndToEndUnavailable, dockerLines, testDockerSettings } from "../sandbox/helpers.js";
import { EDIT, LIST, makeAgentLab, PRICE, READ, RESOLVING } from "./helpers.js";

const unavailable = dockerEndToEndUnavailable();
const installedOutsideTmp = !isWithin(path.resolve(sharedToolsDir), "/tmp");

const AGENTS = [
  {
    name: "claude-code",
    model: "claude-sonnet-4-5",
    basePath: "",
    env: { ANTHROPIC_API_KEY: "sk-ant-dummy" },
    finish: { kind: "finish", text: "Fixed." },
  },
  {
    name: "mini-swe-agent",
    model: "mock-model",
    basePath: "/v1",
    env: { OPENAI_API_KEY: "sk-dummy" },
    finish: { kind: "shell", command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" },
  },
] as const;

describe.runIf(unavailable === null)("agent CLIs in the docker sandbox", () => {
  const lab = makeAgentLab({
    prefix: "lab-agents-docker-",
    tools: AGENTS.map((agent) => agent.name),
    config: { prices: Object.fromEntries(AGENTS.map((agent) => [agent.model, PRICE])) },
  });
  const servers: ModelServer[] = [];

  // The first run on a machine builds lab's image (debootstrap where no registry answers).
  beforeAll(() => createDockerProvider({ settings: testDockerSettings() }).checkReady(), 1_800_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    // The layers hold this checkout's installations (its test cache): left, each CI clone
    // would leave an engine two more of them, a gigabyte.
    const layers = toolLayerIds(["--filter", `label=lab.cache=${testDockerSettings().cacheDir}`]);
    if (layers.length > 0)
      execFileSync("docker", ["rmi", "--force", ...layers], { stdio: "ignore" });
  });

  it.each(AGENTS)(
    "$name edits in the gold change as scripted, and the task resolves",
    async (agent) => {
      const server = await startModelServer({
        scripts: [{ match: RESOLVING.match, steps: [LIST, READ, EDIT, agent.finish] }],
      });
      servers.push(server);
      const runId = `docker-${agent.name}`;
      const run = await lab.run({
        tool: agent.name,
        runId,
        tasks: [RESOLVING.id],
        sandbox: "docker",
        model: agent.model,
        server,
        basePath: agent.basePath,
        timeout: "4m",
        env: agent.env,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("sandbox docker");
      const trial = lab.readTrial(runId, RESOLVING.id);
      expect(trial.outcome).toEqual({ kind: "graded" });
      expect(trial.resolved).toBe(true);
      expect(run.requests.filter((request) => request.route === "model").length).toBeGreaterThan(0);
      // It ran from an image layer holding its installation (and mini-swe-agent's interpreter),
      // unless the installation lies under /tmp (a clone there), which a container's own /tmp
      // would hide: then it was bound, and no layer made.
      const layer: unknown = expect.stringMatching(new RegExp(`^${agent.name}@`));
      if (installedOutsideTmp) expect(toolLayers()).toContainEqual(layer);
      else expect(toolLayers()).not.toContainEqual(layer);
    },
    600_000,
  );

  it("lab tools install --sandbox docker also makes the tool's layer, the one runs use", async () => {
    const installed = await lab.tools(["install", "claude-code", "--sandbox", "docker"]);
    expect(installed.code, installed.stderr).toBe(0);
    const image = /claude-code \S+ in docker: image (lab-tool:[0-9a-f]{12})\n/.exec(
      installed.stderr,
    )?.[1];
    expect(image, installed.stderr).toBeDefined();
    const label = execFileSync(
      "docker",
      ["image", "inspect", "--format", '{{index .Config.Labels "lab.tool"}}', image ?? ""],
      { encoding: "utf8" },
    ).trim();
    expect(label).toMatch(/^claude-code@/);
  }, 600_000);
});

/** The `lab.tool` labels of the tool layers of the tests' cache: NAME@VERSION. */
function toolLayers(): string[] {
  const ids = toolLayerIds(["--filter", `label=lab.cache=${testDockerSettings().cacheDir}`]);
  if (ids.length === 0) return [];
  return dockerLines([
    "image",
    "inspect",
    "--format",
    '{{index .Config.Labels "lab.tool"}}',
    ...ids,
  ]);
}

/** The ids of the tool layers the engine holds, of those `filters` (docker images --filter) pass. */
function toolLayerIds(filters: string[] = []): string[] {
  return [
    ...new Set(dockerLines(["images", "--quiet", "--filter", "label=lab.image=tool", ...filters])),
  ];
}
