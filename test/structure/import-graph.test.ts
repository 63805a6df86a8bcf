import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp.js";

const srcDir = path.join(repoRoot, "src");

/** Every .ts file under src/, relative to it. */
function sourceFiles(dir = srcDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [path.relative(srcDir, full)] : [];
  });
}

/** File → the src files it imports or re-exports (type-only imports too), as TypeScript reads them. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(path.join(srcDir, file), "utf8"), true, true);
    const targets = info.importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => path.join(path.dirname(file), name).replace(/\.js$/, ".ts"));
    graph.set(file, targets);
  }
  return graph;
}

/** The cycles of a graph, each as the files along it (depth-first, one per back edge). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

/** The top folder of a src file ("grader"), or "." for src/index.ts. */
function folderOf(file: string): string {
  return file.includes(path.sep) ? (file.split(path.sep)[0] ?? ".") : ".";
}

describe("src's import graph", () => {
  const graph = importGraph();

  it("resolves every relative import to a file of src/", () => {
    const files = new Set(graph.keys());
    const dangling = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !files.has(target)).map((target) => `${file} -> ${target}`),
    );
    expect(dangling).toEqual([]);
  });

  it("has no cycle, type-only imports included", () => {
    expect(findCycles(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("finds a cycle when there is one", () => {
    const looped = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(findCycles(looped)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("keeps the floors pointing one way: core imports nothing, nothing imports cli/, reports never import the runner, the runner never imports a tool", () => {
    const edges = [...graph].flatMap(([file, targets]) =>
      targets.map((target) => ({ file, from: folderOf(file), to: folderOf(target) })),
    );
    const crossing = (from: string, to: string): string[] =>
      edges.filter((edge) => edge.from === from && edge.to === to).map((edge) => edge.file);
    expect(edges.filter((edge) => edge.from === "core" && edge.to !== "core")).toEqual([]);
    expect(
      edges.filter((edge) => edge.to === "cli" && edge.from !== "cli" && edge.from !== "."),
    ).toEqual([]);
    expect(crossing("report", "runner")).toEqual([]);
    expect(crossing("runner", "agents")).toEqual([]);
    expect(crossing("runner", "tools")).toEqual([]);
    expect(crossing("agents", "tools")).toEqual([]);
  });
});
