import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claudeBody,
  codexBody,
  codexHeaders,
  COUNTED_INPUT_TOKENS,
  EDIT_INSTRUCTION,
  FINAL_TEXT,
  findWorkTree,
  geminiBody,
  loadShape,
  MAIN_USAGE,
  opencodeBody,
  qwenBody,
  readAnthropic,
  readChat,
  readGemini,
  readResponses,
  sampleFromSchema,
  SIDE_TEXT,
  SIDE_USAGE,
  startModelServer,
  type CollectedReply,
  type ModelServer,
  type PastCall,
  type Script,
} from "../helpers/model-server/index.js";
import { tempDir } from "../helpers/temp.js";

const WORK_TREE = "/tmp/lab-trial/work";
const HELLO = `${WORK_TREE}/hello.txt`;
const PROMPT = "Fix the greeting bug in hello.txt, please.";

/** Write, read, edit, shell, finish: one step of each kind. */
const SCRIPT: Script = {
  match: "Fix the greeting bug",
  steps: [
    { kind: "write", path: "hello.txt", content: "Hello, wrold!\n" },
    { kind: "read", path: "hello.txt" },
    { kind: "edit", path: "hello.txt", oldString: "Hello, wrold!", newString: "Hello, world!" },
    { kind: "shell", command: "echo checked >> hello.txt" },
    { kind: "finish", text: "Fixed the greeting." },
  ],
};

/** The calls that played the steps before `n`, as the agent would send them back. */
function past(n: number, name = "tool"): PastCall[] {
  return Array.from({ length: n }, () => ({ name, args: {} }));
}

/** Content and strings that break naive shell quoting. */
const TRICKY_CONTENT = "it's $HOME & `pwd` \\n 100%\nsecond line\n\n";
const TRICKY: Script = {
  match: "the tricky file",
  steps: [
    { kind: "write", path: "sub/dir/out.txt", content: TRICKY_CONTENT },
    { kind: "edit", path: "f.txt", oldString: "a & $b", newString: "it's \\1 & `c`" },
  ],
};

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({
    scripts: [SCRIPT, TRICKY],
    dialects: {
      echo: (step, context) => `${step.kind}|${context.done}|${context.workTree ?? "-"}`,
    },
  });
});
afterAll(async () => {
  await server.close();
});

/** Posts a request and reads the answer as the API's client would. */
async function ask(
  read: (response: Response) => Promise<CollectedReply>,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<CollectedReply> {
  return read(await post(route, body, headers));
}

function post(
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("Anthropic Messages (Claude Code)", () => {
  const shape = loadShape("claude-2.1.332");
  const turn = (n: number, stream = true) =>
    claudeBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(n), stream });

  test("the first step streams a Write with an absolute path, in the API's event order", async () => {
    const reply = await ask(readAnthropic, "/v1/messages?beta=true", turn(0));
    expect(reply.events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(reply.calls).toEqual([
      {
        id: "call_scripted_0",
        name: "Write",
        args: { file_path: HELLO, content: "Hello, wrold!\n" },
      },
    ]);
    expect(reply.stop).toBe("tool_use");
    expect(reply.final.model).toBe("claude-opus-5-5");
    expect(reply.usage).toEqual({
      input_tokens: MAIN_USAGE.uncachedInputTokens,
      output_tokens: MAIN_USAGE.outputTokens,
      cache_read_input_tokens: MAIN_USAGE.cacheReadInputTokens,
      cache_creation_input_tokens: MAIN_USAGE.cacheCreationInputTokens,
    });
  });

  test("the step follows the number of tool_result blocks: Read, Edit, Bash, then the finish text", async () => {
    const read = await ask(readAnthropic, "/v1/messages", turn(1));
    expect(read.calls[0]).toMatchObject({ name: "Read", args: { file_path: HELLO } });
    const edit = await ask(readAnthropic, "/v1/messages", turn(2, false));
    expect(edit.calls[0]).toMatchObject({
      name: "Edit",
      args: { file_path: HELLO, old_string: "Hello, wrold!", new_string: "Hello, world!" },
    });
    expect(edit.events).toEqual([]);
    const bash = await ask(readAnthropic, "/v1/messages", turn(3));
    expect(bash.calls[0]).toMatchObject({
      name: "Bash",
      args: { command: "echo checked >> hello.txt" },
    });
    const finish = await ask(readAnthropic, "/v1/messages", turn(4));
    expect([finish.text, finish.stop, finish.calls]).toEqual([
      "Fixed the greeting.",
      "end_turn",
      [],
    ]);
    const past = await ask(readAnthropic, "/v1/messages", turn(9, false));
    expect([past.text, past.stop]).toEqual([FINAL_TEXT, "end_turn"]);
  });

  test("any path prefix reaches the API, and count_tokens answers a count", async () => {
    const reply = await ask(
      readAnthropic,
      "/claude/anything/v1/messages?beta=true",
      turn(0, false),
    );
    expect(reply.calls[0]?.name).toBe("Write");
    const count = await post("/claude/v1/messages/count_tokens?beta=true", {
      model: "m",
      messages: [],
    });
    expect(await count.json()).toEqual({ input_tokens: COUNTED_INPUT_TOKENS });
  });

  test("the title side call gets JSON built from output_config.format, with side usage", async () => {
    const schema = {
      type: "object",
      properties: { title: { type: "string" } },
      required: ["title"],
    };
    const body = {
      model: "claude-haiku-4-5",
      max_tokens: 512,
      system: [{ type: "text", text: "Generate a concise title." }],
      messages: [{ role: "user", content: PROMPT }],
      output_config: { format: { type: "json_schema", schema } },
    };
    const reply = await ask(readAnthropic, "/v1/messages", body);
    expect(JSON.parse(reply.text)).toEqual({ title: "Scripted" });
    expect(reply.usage).toMatchObject({
      input_tokens: SIDE_USAGE.uncachedInputTokens,
      output_tokens: 3,
    });
    expect(server.requests.at(-1)).toMatchObject({
      api: "anthropic",
      isSideCall: true,
      step: undefined,
    });
  });
});

describe("shell fallback when the matching file tool is missing", () => {
  test("a write becomes a Bash printf (Claude --bare) that writes the content byte for byte", async () => {
    const body = claudeBody(loadShape("claude-2.1.332-bare"), {
      prompt: "write the tricky file",
      workTree: WORK_TREE,
      stream: false,
    });
    const reply = await ask(readAnthropic, "/v1/messages", body);
    expect(reply.calls[0]?.name).toBe("Bash");
    const dir = tempDir();
    execFileSync("sh", ["-c", String(reply.calls[0]?.args?.command)], { cwd: dir });
    expect(readFileSync(path.join(dir, "sub/dir/out.txt"), "utf8")).toBe(TRICKY_CONTENT);
  });

  test("an edit becomes a literal bash substitution (Codex's exec_command) keeping final newlines", async () => {
    const shape = loadShape("codex-0.171.0");
    const turn = {
      prompt: "edit the tricky file",
      workTree: WORK_TREE,
      past: past(1),
      stream: false,
    };
    const body = codexBody(shape, turn, "mock-model");
    body.tools = (body.tools as { name: string }[]).filter((t) => t.name !== "apply_patch");
    const reply = await ask(readResponses, "/v1/responses", body);
    expect(reply.calls[0]?.name).toBe("exec_command");
    const command = String(reply.calls[0]?.args?.cmd);
    const dir = tempDir();
    writeFileSync(path.join(dir, "f.txt"), "x a & $b y a & $b\n\n");
    execFileSync("sh", ["-c", command], { cwd: dir });
    expect(readFileSync(path.join(dir, "f.txt"), "utf8")).toBe("x it's \\1 & `c` y a & $b\n\n");
    writeFileSync(path.join(dir, "f.txt"), "nothing to replace\n");
    expect(() => execFileSync("sh", ["-c", command], { cwd: dir, stdio: "pipe" })).toThrow(
      /old string not found/,
    );
  });
});

describe("OpenAI Responses (Codex CLI)", () => {
  const shape = loadShape("codex-0.171.0");
  const headers = codexHeaders(shape, WORK_TREE);
  const patchCall = { name: "apply_patch", args: { input: "*** Begin Patch\n*** End Patch\n" } };

  test("a write step streams a custom apply_patch call with an Add File patch and a relative path", async () => {
    const reply = await ask(
      readResponses,
      "/v1/responses",
      codexBody(shape, { prompt: PROMPT, workTree: WORK_TREE }),
      headers,
    );
    expect(reply.events).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(reply.calls).toEqual([
      {
        id: "call_scripted_0",
        name: "apply_patch",
        input: "*** Begin Patch\n*** Add File: hello.txt\n+Hello, wrold!\n*** End Patch\n",
      },
    ]);
    expect(reply.usage).toEqual({
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 200 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1250,
    });
    expect(reply.final.model).toBe("gpt-5.5");
  });

  test("the step follows *_call_output items: cat through exec_command, an Update File patch, then text", async () => {
    const turn = (calls: PastCall[], stream = true) =>
      codexBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: calls, stream });
    const read = await ask(readResponses, "/v1/responses", turn([patchCall]), headers);
    expect(read.calls).toEqual([
      { id: "call_scripted_1", name: "exec_command", args: { cmd: "cat 'hello.txt'" } },
    ]);
    const edit = await ask(
      readResponses,
      "/v1/responses",
      turn([patchCall, { name: "exec_command", args: {} }], false),
      headers,
    );
    expect(edit.calls[0]?.input).toBe(
      "*** Begin Patch\n*** Update File: hello.txt\n@@\n-Hello, wrold!\n+Hello, world!\n*** End Patch\n",
    );
    const finish = await ask(
      readResponses,
      "/v1/responses",
      turn([patchCall, patchCall, patchCall, patchCall]),
      headers,
    );
    expect(finish.events).toContain("response.output_text.delta");
    expect(finish.events.slice(2, 8)).toEqual([
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
    ]);
    expect([finish.text, finish.calls, finish.stop]).toEqual([
      "Fixed the greeting.",
      [],
      "completed",
    ]);
  });

  test("without apply_patch (a model outside Codex's catalog) writes go through exec_command", async () => {
    const body = codexBody(shape, { prompt: PROMPT, workTree: WORK_TREE }, "mock-model");
    body.tools = (body.tools as { name: string }[]).filter((t) => t.name !== "apply_patch");
    const reply = await ask(readResponses, "/v1/responses", body, headers);
    expect(reply.calls[0]).toMatchObject({
      name: "exec_command",
      args: { cmd: "printf '%s' 'Hello, wrold!\n' > 'hello.txt'" },
    });
    expect(reply.final.model).toBe("mock-model");
  });
});

describe("Gemini (Gemini CLI)", () => {
  const shape = loadShape("gemini-0.61.0");
  const turn = (n: number) =>
    geminiBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(n, "write_file") });

  test("streamGenerateContent sends one whole response per data event and echoes the model", async () => {
    const reply = await ask(
      readGemini,
      "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse",
      turn(0),
    );
    expect(reply.events).toEqual(["data"]);
    expect(reply.calls).toEqual([
      {
        id: "call_scripted_0",
        name: "write_file",
        args: { file_path: HELLO, content: "Hello, wrold!\n" },
      },
    ]);
    expect(reply.final.modelVersion).toBe("gemini-3.8-flash");
    expect(reply.usage).toEqual({
      promptTokenCount: 1200,
      candidatesTokenCount: 50,
      cachedContentTokenCount: 200,
      totalTokenCount: 1250,
    });
  });

  test("functionResponse parts index the step: read_file, replace with its instruction, run_shell_command", async () => {
    const read = await ask(readGemini, "/v1beta/models/gemini-2.5-pro:generateContent", turn(1));
    expect(read.calls[0]).toMatchObject({ name: "read_file", args: { file_path: HELLO } });
    const edit = await ask(
      readGemini,
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      turn(2),
    );
    expect(edit.calls[0]?.args).toEqual({
      file_path: HELLO,
      instruction: EDIT_INSTRUCTION,
      old_string: "Hello, wrold!",
      new_string: "Hello, world!",
    });
    const shell = await ask(
      readGemini,
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      turn(3),
    );
    expect(shell.calls[0]).toMatchObject({
      name: "run_shell_command",
      args: { command: "echo checked >> hello.txt" },
    });
    const done = await ask(readGemini, "/v1beta/models/gemini-2.5-pro:generateContent", turn(4));
    expect([done.text, done.stop]).toEqual(["Fixed the greeting.", "STOP"]);
  });

  test("the router side call gets a complexity score from responseJsonSchema; countTokens counts", async () => {
    const body = {
      contents: [{ role: "user", parts: [{ text: PROMPT }] }],
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "object",
          properties: {
            complexity_reasoning: { type: "string" },
            complexity_score: { type: "integer" },
          },
          required: ["complexity_reasoning", "complexity_score"],
        },
      },
    };
    const reply = await ask(
      readGemini,
      "/v1beta/models/gemini-3.5-flash-lite:generateContent",
      body,
    );
    expect(JSON.parse(reply.text)).toEqual({
      complexity_reasoning: "Scripted",
      complexity_score: 1,
    });
    expect(reply.usage).toMatchObject({ promptTokenCount: 7, candidatesTokenCount: 3 });
    expect(server.requests.at(-1)).toMatchObject({ api: "gemini", isSideCall: true });
    const count = await post("/v1beta/models/gemini-2.5-pro:countTokens", { contents: [] });
    expect(await count.json()).toEqual({ totalTokens: COUNTED_INPUT_TOKENS });
  });
});

describe("Chat Completions (opencode, Qwen Code)", () => {
  test("opencode: a write streams role, tool call and finish chunks, then usage and [DONE]", async () => {
    const shape = loadShape("opencode-1.18.33");
    const reply = await ask(
      readChat,
      "/v1/chat/completions",
      opencodeBody(shape, { prompt: PROMPT, workTree: WORK_TREE }),
    );
    expect(reply.calls).toEqual([
      {
        id: "call_scripted_0",
        name: "write",
        args: { filePath: HELLO, content: "Hello, wrold!\n" },
      },
    ]);
    expect(reply.stop).toBe("tool_calls");
    expect(reply.usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 50,
      total_tokens: 1250,
      prompt_tokens_details: { cached_tokens: 200 },
    });
    const chunks = (reply.final.chunks as { choices: unknown[] }[]).map((c) => c.choices.length);
    expect(chunks).toEqual([1, 1, 1, 0]);
    const edit = await ask(
      readChat,
      "/v1/chat/completions",
      opencodeBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(2) }),
    );
    expect(edit.calls[0]).toMatchObject({
      name: "edit",
      args: { filePath: HELLO, oldString: "Hello, wrold!", newString: "Hello, world!" },
    });
  });

  test("opencode's title call is a side call answered with plain text and side usage", async () => {
    const body = {
      model: "mock-model",
      messages: [
        { role: "system", content: "You are a title generator." },
        { role: "user", content: PROMPT },
      ],
      stream: true,
      stream_options: { include_usage: true },
    };
    const reply = await ask(readChat, "/v1/chat/completions", body);
    expect([reply.text, reply.stop, reply.calls]).toEqual([SIDE_TEXT, "stop", []]);
    expect(reply.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect(server.requests.at(-1)).toMatchObject({ api: "chat", isSideCall: true });
  });

  test("Qwen: write_file, then edit and run_shell_command by role:tool count; JSON without stream", async () => {
    const shape = loadShape("qwen-0.24.4");
    const turn = (n: number) =>
      qwenBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(n), stream: false });
    const write = await ask(readChat, "/v1/chat/completions", turn(0));
    expect(write.calls[0]).toMatchObject({ name: "write_file", args: { file_path: HELLO } });
    expect(write.usage).toMatchObject({ prompt_tokens: 1200 });
    const edit = await ask(readChat, "/v1/chat/completions", turn(2));
    expect(edit.calls[0]).toMatchObject({
      name: "edit",
      args: { old_string: "Hello, wrold!", new_string: "Hello, world!" },
    });
    const shell = await ask(readChat, "/v1/chat/completions", turn(3));
    expect(shell.calls[0]).toMatchObject({
      name: "run_shell_command",
      args: { command: "echo checked >> hello.txt" },
    });
    const streamed = await ask(readChat, "/v1/chat/completions", {
      ...turn(4),
      stream: true,
      stream_options: undefined,
    });
    expect([streamed.text, streamed.stop, streamed.usage]).toEqual([
      "Fixed the greeting.",
      "stop",
      undefined,
    ]);
  });

  test("response_format json_schema gets the first enum value and numbers at their minimum", async () => {
    const schema = {
      type: "object",
      properties: { verdict: { enum: ["yes", "no"] }, score: { type: "number", minimum: 3 } },
    };
    const body = {
      model: "m",
      messages: [{ role: "user", content: "rate" }],
      response_format: { type: "json_schema", json_schema: { name: "r", schema } },
    };
    const reply = await ask(readChat, "/v1/chat/completions", body);
    expect(JSON.parse(reply.text)).toEqual({ verdict: "yes", score: 3 });
  });
});

describe("scripts, dialects and the request log", () => {
  const shape = loadShape("opencode-1.18.33");

  test("without a matching script the model answers text only; a default script plays instead", async () => {
    const body = opencodeBody(shape, { prompt: "Something unscripted.", workTree: WORK_TREE });
    const reply = await ask(readChat, "/v1/chat/completions", body);
    expect([reply.text, reply.calls]).toEqual([FINAL_TEXT, []]);
    expect(server.requests.at(-1)).toMatchObject({ script: undefined, step: 0, isSideCall: false });
    const withDefault = await startModelServer({
      scripts: [SCRIPT],
      defaultScript: { match: "", steps: [{ kind: "shell", command: "true" }] },
    });
    const response = await fetch(`${withDefault.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    const fallback = await readChat(response);
    await withDefault.close();
    expect(fallback.calls[0]).toMatchObject({ name: "bash", args: { command: "true" } });
  });

  test("every request is logged with its API, headers, body, script, step and work tree", async () => {
    const body = opencodeBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(3) });
    await (await post("/oc/v1/chat/completions", body, { authorization: "Bearer sk-mock" })).text();
    expect(server.requests.at(-1)).toMatchObject({
      method: "POST",
      url: "/oc/v1/chat/completions",
      path: "/oc/v1/chat/completions",
      headers: { authorization: "Bearer sk-mock" },
      body,
      api: "chat",
      route: "model",
      isSideCall: false,
      script: SCRIPT.match,
      step: 3,
      workTree: WORK_TREE,
      reply: { kind: "function", name: "bash" },
      outcome: 200,
    });
  });

  test("a gzip-encoded body is read like a plain one", async () => {
    const body = opencodeBody(shape, { prompt: PROMPT, workTree: WORK_TREE, stream: false });
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync(JSON.stringify(body)),
    });
    expect((await readChat(response)).calls[0]?.name).toBe("write");
  });

  test("/text/<dialect>/ serves a text dialect: no tools, the step is the assistant-message count", async () => {
    const messages = [
      { role: "system", content: `You are a helpful assistant.\nWorking directory: ${WORK_TREE}` },
      { role: "user", content: PROMPT },
    ];
    const first = await ask(readChat, "/text/echo/v1/chat/completions", {
      model: "m",
      messages,
      stream: true,
    });
    expect([first.text, first.calls, first.stop]).toEqual([`write|false|${WORK_TREE}`, [], "stop"]);
    const later = [
      ...messages,
      { role: "assistant", content: "a" },
      { role: "user", content: "out" },
      { role: "assistant", content: "b" },
    ];
    const third = await ask(readChat, "/x/text/echo/v1/chat/completions", {
      model: "m",
      messages: later,
    });
    expect(third.text).toBe(`edit|false|${WORK_TREE}`);
    expect(server.requests.at(-1)).toMatchObject({ dialect: "echo", step: 2, isSideCall: false });
    const done = Array.from({ length: 7 }, () => ({ role: "assistant", content: "x" }));
    const past = await ask(readChat, "/text/echo/v1/chat/completions", {
      model: "m",
      messages: [...messages, ...done],
    });
    expect(past.text).toBe(`finish|true|${WORK_TREE}`);
    expect(past.usage).toMatchObject({ prompt_tokens: 1200 });
  });

  test("an unknown dialect, or a dialect outside chat completions, is a 400 with a message", async () => {
    const unknown = await post("/text/nope/v1/chat/completions", { model: "m", messages: [] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
      /Unknown text dialect "nope" \(known: .*echo/,
    );
    const messagesRoute = await post("/text/echo/v1/messages", { model: "m", messages: [] });
    expect(messagesRoute.status).toBe(400);
  });

  test("other routes, methods, HEAD probes and WebSocket upgrades get a 404", async () => {
    expect((await fetch(`${server.url}/api/hello`, { method: "HEAD" })).status).toBe(404);
    expect((await fetch(`${server.url}/v1/messages`)).status).toBe(404);
    expect((await post("/v1/completions", {})).status).toBe(404);
    expect((await post("/v1/models/gemini:embedContent", {})).status).toBe(404);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(`${server.url}/v1/responses`);
      const request = http.request(url, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "c2NyaXB0ZWQtbW9kZWwtc2U=",
        },
      });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on("upgrade", () => {
        reject(new Error("upgraded"));
      });
      request.on("error", reject);
      request.end();
    });
    expect(status).toBe(404);
    expect(server.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/v1/responses",
      route: "none",
      outcome: 404,
    });
  });
});

describe("failures", () => {
  const shape = loadShape("claude-2.1.332");
  const body = claudeBody(shape, { prompt: PROMPT, workTree: WORK_TREE });

  test("failWith a status answers it with an error body in the API's shape", async () => {
    const failing = await startModelServer({
      scripts: [SCRIPT],
      failWith: { kind: "status", status: 529, message: "Overloaded." },
    });
    const response = await fetch(`${failing.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    expect([response.status, await response.json()]).toEqual([
      529,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded." } },
    ]);
    expect(failing.requests[0]).toMatchObject({ step: 0, reply: undefined, outcome: 529 });
    await failing.close();
  });

  test("a failWith function picks requests: here only the second main call fails", async () => {
    const failing = await startModelServer({
      scripts: [SCRIPT],
      failWith: (request) => (request.step === 1 ? { kind: "status", status: 500 } : undefined),
    });
    const send = (n: number) =>
      fetch(`${failing.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify(
          claudeBody(shape, { prompt: PROMPT, workTree: WORK_TREE, past: past(n) }),
        ),
      });
    expect((await send(0)).status).toBe(200);
    const second = await send(1);
    expect([
      second.status,
      ((await second.json()) as { error: { type: string } }).error.type,
    ]).toEqual([500, "api_error"]);
    await failing.close();
  });

  test("close drops the connection and truncate cuts the stream after its first event", async () => {
    const closing = await startModelServer({ scripts: [SCRIPT], failWith: { kind: "close" } });
    await expect(
      fetch(`${closing.url}/v1/messages`, { method: "POST", body: JSON.stringify(body) }),
    ).rejects.toThrow();
    await closing.close();
    const cutting = await startModelServer({ scripts: [SCRIPT], failWith: { kind: "truncate" } });
    const response = await fetch(`${cutting.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(cutting.requests[0]?.outcome).toBe("truncate");
    await cutting.close();
  });

  test("hang never answers, and close() still returns at once", async () => {
    const hanging = await startModelServer({ scripts: [SCRIPT], failWith: { kind: "hang" } });
    const request = fetch(`${hanging.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(300),
    });
    await expect(request).rejects.toThrow(/timeout|aborted/i);
    const started = Date.now();
    await hanging.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("helpers", () => {
  test("each CLI's statement of its working directory is found", () => {
    const cases: [string, string][] = [
      ["claude", ` - Primary working directory: /w/claude\n - Is a git repository: true`],
      ["codex", `<environment_context>\n  <cwd>/w/codex</cwd>\n</environment_context>`],
      [
        "gemini",
        `My operating system is: linux\nI'm currently working in the directory: /w/gemini\nHere is`,
      ],
      ["qwen", `I'm currently working in the following directories:\n  - /w/qwen\n  - /w/other`],
      [
        "opencode",
        `<env>\n  Working directory: /w/opencode\n  Is directory a git repo: yes\n</env>`,
      ],
    ];
    for (const [cli, text] of cases) expect(findWorkTree(["preamble", text], {})).toBe(`/w/${cli}`);
    const header = codexHeaders(loadShape("codex-0.171.0"), "/w/header");
    expect(findWorkTree(["no directory here"], header)).toBe("/w/header");
    expect(findWorkTree(["Working directory: relative/path"], {})).toBeUndefined();
  });

  test("values built from schemas respect enums, minimums, Gemini's upper-case types and minItems", () => {
    expect(sampleFromSchema({ type: "INTEGER", minimum: 1, maximum: 100 })).toBe(1);
    expect(sampleFromSchema({ type: "integer", exclusiveMinimum: 0 })).toBe(1);
    expect(sampleFromSchema({ type: ["null", "string"], minLength: 12 })).toHaveLength(12);
    expect(
      sampleFromSchema({
        type: "OBJECT",
        properties: {
          kind: { enum: ["a", "b"] },
          tags: { type: "array", items: { type: "string" }, minItems: 2 },
          ok: { type: "boolean" },
          n: { anyOf: [{ type: "null" }, { type: "number", minimum: 0.5 }] },
        },
      }),
    ).toEqual({ kind: "a", tags: ["Scripted", "Scripted"], ok: false, n: 0.5 });
  });
});
