import { createServer, type Server } from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fetchRows,
  loadDataset,
  readRowsFile,
  selectRows,
  validateRows,
  type SwebenchRow,
} from "../../src/datasets/index.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

function row(
  id: string,
  repo: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    instance_id: id,
    repo,
    base_commit: "a".repeat(40),
    patch: "diff --git a/x.py b/x.py\n",
    test_patch: "diff --git a/tests/test_x.py b/tests/test_x.py\n",
    problem_statement: `Issue of ${id}`,
    hints_text: "",
    created_at: "2020-01-01T00:00:00Z",
    version: "1.0",
    environment_setup_commit: "b".repeat(40),
    FAIL_TO_PASS: JSON.stringify(["tests/test_x.py::test_a"]),
    PASS_TO_PASS: "[]",
    ...extra,
  };
}

const rows = [
  row("psf__requests-1", "psf/requests"),
  row("psf__requests-2", "psf/requests"),
  row("pallets__flask-1", "pallets/flask"),
  row("django__django-1", "django/django"),
  row("pydata__xarray-1", "pydata/xarray", { version: 0.12 }),
  row("astropy__astropy-1", "astropy/astropy"),
];

describe("SWE-bench rows", () => {
  it("validates rows, reporting each bad one by instance id and keeping the rest", () => {
    const { rows: good, rejected } = validateRows([
      ...rows,
      row("bad__commit-1", "bad/commit", { base_commit: "nope" }),
      row("bad__lists-1", "bad/lists", { FAIL_TO_PASS: "not json" }),
      row("bad__patch-1", "bad/patch", { patch: "" }),
      { repo: "no/id" },
      row("psf__requests-1", "psf/requests"),
    ]);
    expect(good.map((entry) => entry.instance_id)).toEqual(rows.map((entry) => entry.instance_id));
    expect(good[4]?.version).toBe("0.12");
    expect(good[0]?.FAIL_TO_PASS).toEqual(["tests/test_x.py::test_a"]);
    expect(rejected).toEqual([
      { instanceId: "bad__commit-1", reason: "base_commit: a 40-character commit hash" },
      { instanceId: "bad__lists-1", reason: "FAIL_TO_PASS: not a JSON list of test ids" },
      { instanceId: "bad__patch-1", reason: "patch: the gold patch is empty" },
      { instanceId: "row 9", reason: expect.stringContaining("instance_id") as string },
      { instanceId: "psf__requests-1", reason: "duplicate instance_id" },
    ]);
  });

  it("reads a JSON list, an object of rows, JSONL and parquet", async () => {
    const list = path.join(root, "rows.json");
    writeFileSync(list, JSON.stringify(rows));
    const object = path.join(root, "rows-object.json");
    writeFileSync(
      object,
      JSON.stringify(Object.fromEntries(rows.map((entry) => [entry.instance_id, entry]))),
    );
    const jsonl = path.join(root, "rows.jsonl");
    writeFileSync(jsonl, `${rows.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
    const parquet = path.join(root, "rows.parquet");
    const { parquetWriteFile } = await import("hyparquet-writer");
    const columns = Object.keys(rows[0] ?? {}).map((name) => ({
      name,
      data: rows.map((entry) => String(entry[name])),
      type: "STRING" as const,
    }));
    parquetWriteFile({ filename: parquet, columnData: columns });
    for (const file of [list, object, jsonl, parquet]) {
      const loaded = await loadDataset({
        file,
        name: "lite",
        split: "test",
        endpoint: "http://127.0.0.1:9",
      });
      expect(
        loaded.rows.map((entry) => entry.instance_id),
        file,
      ).toEqual(rows.map((entry) => entry.instance_id));
      expect(loaded.rejected).toEqual([]);
    }
    const broken = path.join(root, "broken.jsonl");
    writeFileSync(broken, `${JSON.stringify(rows[0])}\n{oops\n`);
    await expect(readRowsFile(broken)).rejects.toMatchObject({
      code: "DATASET_INVALID",
      message: expect.stringContaining("broken.jsonl line 2 is not valid JSON") as string,
    });
    await expect(readRowsFile(path.join(root, "missing.json"))).rejects.toMatchObject({
      code: "DATASET_NOT_FOUND",
    });
  });

  describe("from the datasets-server rows API", () => {
    let server: Server;
    let endpoint = "";
    const requests: URLSearchParams[] = [];
    let failNext = true;
    beforeAll(async () => {
      server = createServer((request, response) => {
        const url = new URL(request.url ?? "/", "http://localhost");
        requests.push(url.searchParams);
        if (
          url.pathname !== "/rows" ||
          url.searchParams.get("dataset") !== "SWE-bench/SWE-bench_Lite"
        ) {
          response.writeHead(404).end("{}");
          return;
        }
        if (failNext && url.searchParams.get("offset") === "2") {
          failNext = false;
          response.writeHead(503).end("busy");
          return;
        }
        const offset = Number(url.searchParams.get("offset"));
        const length = Number(url.searchParams.get("length"));
        const page = rows
          .slice(offset, offset + length)
          .map((entry, index) => ({ row_idx: offset + index, row: entry, truncated_cells: [] }));
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            features: [],
            rows: page,
            num_rows_total: rows.length,
            num_rows_per_page: 100,
            partial: false,
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      endpoint = `http://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}`;
    });
    afterAll(() => {
      server.close();
    });

    it("pages through every row, retrying a busy answer", async () => {
      const raw = await fetchRows({ name: "lite", split: "test", endpoint, pageSize: 2 });
      expect((raw as SwebenchRow[]).map((entry) => entry.instance_id)).toEqual(
        rows.map((entry) => entry.instance_id),
      );
      expect(requests.map((params) => params.get("offset"))).toEqual(["0", "2", "2", "4"]);
      expect(requests[0]?.get("config")).toBe("default");
      expect(requests[0]?.get("split")).toBe("test");
    });

    it("says how to work without Hugging Face when the dataset cannot be had", async () => {
      await expect(
        fetchRows({ name: "verified", split: "test", endpoint, pageSize: 2 }),
      ).rejects.toMatchObject({
        code: "DATASET_NOT_FOUND",
        hint: expect.stringContaining("--dataset-name") as string,
      });
      await expect(
        fetchRows({ name: "lite", split: "test", endpoint: "http://127.0.0.1:9", pageSize: 2 }),
      ).rejects.toMatchObject({
        code: "DATASET_NOT_FOUND",
        hint: expect.stringContaining("--dataset FILE") as string,
      });
    });
  });
});

describe("choosing instances", () => {
  const valid = validateRows(rows).rows;

  it("keeps every repository lab has environments for, skipping others with their reasons", () => {
    const others = validateRows([...rows, row("acme__anvil-1", "acme/anvil")]).rows;
    const { chosen, skipped } = selectRows(others, { all: false, limit: 100 });
    expect(chosen.map((entry) => entry.instance_id)).toEqual([
      "psf__requests-1",
      "psf__requests-2",
      "pallets__flask-1",
      "django__django-1",
      "pydata__xarray-1",
      "astropy__astropy-1",
    ]);
    expect(skipped).toEqual([
      {
        instanceId: "acme__anvil-1",
        reason: "lab has no environments for acme/anvil (pass --all to let the proof decide)",
        category: "out_of_scope",
      },
    ]);
  });

  it("takes requests-3362 like any other instance: the grader's stand-in network answers its unroutable address", () => {
    const withTimeouts = validateRows([...rows, row("psf__requests-3362", "psf/requests")]).rows;
    expect(selectRows(withTimeouts, { all: true }).skipped).toEqual([]);
    const named = selectRows(withTimeouts, { all: false, instances: ["psf__requests-3362"] });
    expect(named.chosen.map((entry) => entry.instance_id)).toEqual(["psf__requests-3362"]);
    expect(named.skipped).toEqual([]);
  });

  it("spreads a sample over the repositories, and takes exact ids or everything when asked", () => {
    expect(selectRows(valid, { all: false, limit: 2 }).chosen.map((entry) => entry.repo)).toEqual([
      "astropy/astropy",
      "django/django",
    ]);
    // By default one per repository (12): these six rows all fit.
    expect(selectRows(valid, { all: false }).chosen).toHaveLength(6);
    expect(selectRows(valid, { all: true }).chosen).toHaveLength(6);
    const exact = selectRows(valid, {
      all: false,
      instances: ["django__django-1", "nope__nope-1"],
    });
    expect(exact.chosen.map((entry) => entry.instance_id)).toEqual(["django__django-1"]);
    expect(exact.unknown).toEqual(["nope__nope-1"]);
  });
});
