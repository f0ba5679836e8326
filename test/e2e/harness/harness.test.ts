import fs from "node:fs";
import path from "node:path";
import type { AssistantMessage, Part } from "@opencode-ai/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  as,
  assertPluginLoaded,
  createRepoWithRemote,
  createWorkspace,
  error,
  hang,
  liveHandles,
  raw,
  slashCommand,
  sse,
  survivors,
  startModelServer,
  text,
  toolCall,
  useE2E,
  type ModelServer,
  type ProcessHandle,
  type Repo,
  type Serve,
  type Workspace,
} from "../../support/index.ts";

/** Reads an SSE body the way a client would: the JSON payloads of its data lines. */
async function sseEvents(res: Response): Promise<unknown[]> {
  const body = await res.text();
  return body
    .split("\n\n")
    .map((block) => block.replace(/^data: /, "").trim())
    .filter((data) => data && data !== "[DONE]")
    .map((data) => JSON.parse(data) as unknown);
}

function chat(model: ModelServer, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${model.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m1", stream: true, ...body }),
    signal,
  });
}

const user = (content: string) => ({
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content },
  ],
});

const textOf = (parts: Part[]): string =>
  parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

describe("scripted model server (no OpenCode)", () => {
  let model: ModelServer;
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterEach(() => model.reset());
  afterAll(async () => {
    await model.close();
  });

  it("answers by matcher, not arrival order, and falls back when nothing matches", async () => {
    model.script({ match: { lastUser: "beta" }, reply: text("B") }, { match: { lastUser: "alpha" }, reply: text("A") });
    const alpha = await sseEvents(await chat(model, user("alpha please")));
    const other = await sseEvents(await chat(model, user("gamma")));
    const beta = await sseEvents(await chat(model, user("beta please")));
    expect(JSON.stringify(alpha)).toContain('"content":"A"');
    expect(JSON.stringify(beta)).toContain('"content":"B"');
    expect(JSON.stringify(other)).toContain('"content":"ok"');
    expect(model.pending()).toEqual([]);
    expect(model.unmatched().map((r) => r.lastUser)).toEqual(["gamma"]);
  });

  it("answers title requests itself without using up the script", async () => {
    model.script(text("real answer"));
    const title = await sseEvents(
      await chat(model, {
        messages: [
          { role: "system", content: "You are a title generator. …" },
          { role: "user", content: "x" },
        ],
      }),
    );
    expect(JSON.stringify(title)).toContain("Test session");
    expect(model.requests[0]).toMatchObject({ isTitle: true, answeredBy: "title" });
    expect(model.pending()).toHaveLength(1);
  });

  it("streams tool calls, dynamic replies, other model names, raw chunks and errors", async () => {
    model.script(
      toolCall("read", { filePath: "/x" }, "call_x"),
      (req) => text(`echo:${req.lastUser}`),
      as("other-model", text("hi")),
      raw(["data: {not json\n\n"]),
      error(503, { error: { message: "busy" } }),
    );
    const tools = JSON.stringify(await sseEvents(await chat(model, user("one"))));
    expect(tools).toContain('"id":"call_x"');
    expect(tools).toContain('"finish_reason":"tool_calls"');
    expect(tools).toContain(JSON.stringify(JSON.stringify({ filePath: "/x" })));
    expect(JSON.stringify(await sseEvents(await chat(model, user("two"))))).toContain("echo:two");
    expect(JSON.stringify(await sseEvents(await chat(model, user("three"))))).toContain('"model":"other-model"');
    expect(await (await chat(model, user("four"))).text()).toBe("data: {not json\n\n");
    const failed = await chat(model, user("five"));
    expect(failed.status).toBe(503);
    expect(model.requests.map((r) => r.answeredBy)).toEqual(["#1 tools", "#2 dynamic", "#3 as", "#4 raw", "#5 error"]);
  });

  it("turns a throwing script into a 400 that OpenCode will not retry", async () => {
    model.script(() => {
      throw new Error("boom");
    });
    const res = await chat(model, user("x"));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("boom");
    expect(model.requests[0]?.answeredBy).toBe("script error");
  });

  it("sse() frames a payload as one data line, for building raw() streams", () => {
    expect(sse({ a: 1 })).toBe('data: {"a":1}\n\n');
  });

  it("keeps entries with times: Infinity and serves /v1/models", async () => {
    model.script({ reply: text("always"), times: Infinity });
    await chat(model, user("a"));
    await chat(model, user("b"));
    expect(model.unmatched()).toEqual([]);
    expect(model.pending()).toEqual([]);
    const models = (await (await fetch(`${model.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["m1", "m2"]);
  });

  it("waits for requests, and ends a hanging reply when the client aborts", async () => {
    model.script(hang());
    const controller = new AbortController();
    const response = chat(model, user("stuck"), controller.signal).then((res) => res.text());
    const seen = await model.waitForRequest({ lastUser: "stuck" }, 5_000);
    expect(seen.endedAt).toBeUndefined();
    controller.abort();
    await expect(response).rejects.toThrow();
    await expect.poll(() => seen.aborted).toBe(true);
    await expect(model.waitForRequest({ lastUser: "never" }, 50)).rejects.toThrow(/no matching model request/);
  });
});

describe("git helpers", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());

  it("creates a repo on main with a bare remote that has the initial commit", async () => {
    repo = await createRepoWithRemote({ files: { "a.txt": "one\n" } });
    expect(await repo.git(["branch", "--show-current"])).toBe("main");
    await repo.commit("Second", { "a.txt": "two\n" });
    await repo.git(["push", "-q", "origin", "main"]);
    expect((await repo.remoteLog()).map((c) => c.subject)).toEqual(["Second", "Initial commit"]);
    expect(await repo.remoteFile("a.txt")).toBe("two\n");
    expect(await repo.remoteFile("missing.txt")).toBeUndefined();
    expect(await repo.remoteBranches()).toEqual(["main"]);
  });
});

describe("real OpenCode against the scripted model", () => {
  const e2e = useE2E();
  // Every process the tests below start, for the leak check at the end.
  const handles: ProcessHandle[] = [];

  async function serveIn(ws: Workspace): Promise<Serve> {
    const serve = await e2e.serve(ws);
    handles.push(serve.process);
    return serve;
  }

  it("opencode run: the scripted text comes back and the request carries the build agent's tools", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    model.script({ match: { lastUser: "hello" }, reply: text("Hello from the script") });
    const result = await e2e.run(ws, ["run", "hello"]);
    handles.push(result.process);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Hello from the script");
    const [turn] = model.turns();
    expect(turn?.model).toBe("m1");
    expect(turn?.toolNames).toEqual(expect.arrayContaining(["bash", "read", "edit", "write", "glob", "grep"]));
    expect(turn?.tools.find((t) => t.name === "read")?.parameters).toMatchObject({ type: "object" });
    expect(turn?.system).toContain("You are opencode");
    expect(model.pending()).toEqual([]);
    expect(model.unmatched()).toEqual([]);
  });

  it("opencode run: a scripted tool call runs and its result reaches the next request", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    ws.writeFiles({ "notes.txt": "the secret is 4217\n" });
    const file = path.join(ws.project, "notes.txt");
    model.script(
      { match: { lastUser: "read the notes", lastRole: "user" }, reply: toolCall("read", { filePath: file }, "call_read") },
      {
        match: { lastRole: "tool" },
        reply: (req) => text(`tool said: ${/secret is (\d+)/.exec(req.toolResults[0]?.content ?? "")?.[1] ?? "nothing"}`),
      },
    );
    const result = await e2e.run(ws, ["run", "read the notes"]);
    handles.push(result.process);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("tool said: 4217");
    const followUp = model.turns()[1];
    expect(followUp?.toolResults).toHaveLength(1);
    expect(followUp?.toolResults[0]?.callId).toBe("call_read");
    expect(followUp?.toolResults[0]?.content).toContain("the secret is 4217");
    expect(model.pending()).toEqual([]);
  });

  it("opencode run --command: otto's slash command reaches its tool and prints the tool's output", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    model.script(...slashCommand("otto_config"));
    const result = await e2e.run(ws, ["run", "--command", "otto-config", "--", "--help"]);
    handles.push(result.process);
    expect(result.exitCode, result.stderr).toBe(0);
    const [call, echo] = model.turns();
    expect(call?.system).toContain("Otto");
    // The assistant turn OpenCode replays before the tool result carries the call as the model made it.
    expect(echo?.messages.at(-2)?.tool_calls?.[0]?.function.arguments).toBe('{"args":"--help"}');
    const output = echo?.toolResults[0]?.content ?? "";
    expect(output).toContain("/otto-config");
    expect(result.stdout.trim()).toBe(output.trim());
    expect(model.pending()).toEqual([]);
  });

  it("opencode serve + SDK: create a session, prompt it, read its messages; the plugin and config are loaded", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace({
      config: { agent: { probe: { description: "Harness probe", mode: "primary", prompt: "You are the probe." } } },
      ottoConfig: "// repo layer\n{}\n",
      userOttoConfig: {},
    });
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(await ws.repo.git(["show", "HEAD:.otto/otto.jsonc"])).toContain("// repo layer");
    expect(fs.existsSync(path.join(ws.dirs.configHome, "otto", "otto.jsonc"))).toBe(true);
    const { client } = await serveIn(ws);
    await assertPluginLoaded(client);
    const agents = (await client.app.agents({ throwOnError: true })).data.map((a) => a.name);
    expect(agents).toEqual(expect.arrayContaining(["build", "probe", "otto"]));
    model.script({ match: { lastUser: "ping" }, reply: as("m2", text("pong")) });
    const session = (await client.session.create({ body: { title: "harness" }, throwOnError: true })).data;
    const reply = await client.session.prompt({
      path: { id: session.id },
      body: { parts: [{ type: "text", text: "ping" }] },
      throwOnError: true,
    });
    expect(textOf(reply.data.parts)).toBe("pong");
    const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant"]);
    expect(textOf(messages[1]?.parts ?? [])).toBe("pong");
    expect(model.unmatched()).toEqual([]);
  });

  it("a 4xx ends the turn with an error; a 500 is retried (OpenCode backs off, honouring retry-after-ms)", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    model.script({ match: { lastUser: "bad" }, reply: error(400, { error: { message: "scripted bad request" } }) });
    const run = await e2e.run(ws, ["run", "bad"]);
    handles.push(run.process);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("scripted bad request");

    const { client, events } = await serveIn(ws);
    const session = (await client.session.create({ body: {}, throwOnError: true })).data;
    model.script(
      { match: { lastUser: "flaky" }, reply: error(500, { error: { message: "scripted outage" } }, { "retry-after-ms": "50" }) },
      { match: { lastUser: "flaky" }, reply: text("recovered") },
    );
    const reply = await client.session.prompt({
      path: { id: session.id },
      body: { parts: [{ type: "text", text: "flaky" }] },
      throwOnError: true,
    });
    expect(textOf(reply.data.parts)).toBe("recovered");
    const retry = events.all.find((e) => e.type === "session.status" && e.properties.status.type === "retry");
    expect(JSON.stringify(retry)).toContain("scripted outage");
  });

  it("a hanging model is aborted through session.abort; the harness ends the hung reply", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    const { client, events } = await serveIn(ws);
    model.script({ match: { lastUser: "wait forever" }, reply: hang() });
    const session = (await client.session.create({ body: {}, throwOnError: true })).data;
    const mark = events.all.length;
    await client.session.promptAsync({
      path: { id: session.id },
      body: { parts: [{ type: "text", text: "wait forever" }] },
      throwOnError: true,
    });
    const stuck = await model.waitForRequest({ lastUser: "wait forever" }, 20_000);
    await client.session.abort({ path: { id: session.id }, throwOnError: true });
    await events.waitFor((e) => e.type === "session.idle" && e.properties.sessionID === session.id, { after: mark, timeoutMs: 10_000 });
    const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
    const last = messages.at(-1)?.info as AssistantMessage | undefined;
    expect(last?.error?.name).toBe("MessageAbortedError");
    // OpenCode sometimes leaves the aborted model connection open; reset() (after each test) ends it.
    model.reset();
    await expect.poll(() => stuck.endedAt).toBeDefined();
  });

  it("a run killed mid-turn through its signal takes its whole process group with it", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace();
    model.script({ match: { lastUser: "never ends" }, reply: hang() });
    const controller = new AbortController();
    const running = e2e.run(ws, ["run", "never ends"], { signal: controller.signal });
    await model.waitForRequest({ lastUser: "never ends" }, 30_000);
    controller.abort();
    const result = await running;
    handles.push(result.process);
    expect(result).toMatchObject({ aborted: true, timedOut: false, exitCode: undefined });
    expect(survivors(result.process)).toEqual([]);
  });

  it("a command the model backgrounds with the bash tool dies with the run", async () => {
    const { model } = e2e;
    const ws = await e2e.workspace({ plugin: false });
    model.script(toolCall("bash", { command: "sleep 600 >/dev/null 2>&1 & echo $!", description: "Start a sleeper" }), {
      match: { lastRole: "tool" },
      reply: (req) => text(`sleeper ${req.toolResults[0]?.content.trim() ?? "?"}`),
    });
    const result = await e2e.run(ws, ["run", "start a sleeper"]);
    handles.push(result.process);
    expect(result.exitCode, result.stderr).toBe(0);
    const pid = Number(/sleeper (\d+)/.exec(result.stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    // OpenCode ran it in its own session and it was reparented to init: only the env token finds it.
    // Checked by command line, not the bare pid: on a busy CI machine the pid can be reused at once.
    const cmdline = (() => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "";
      }
    })();
    expect(cmdline).not.toBe("sleep\u0000600\u0000");
    expect(survivors(result.process)).toEqual([]);
  });

  it("a run that outlives its timeout is killed", async () => {
    const ws = await e2e.workspace({ plugin: false });
    // `opencode debug wait` waits forever without needing a model.
    const result = await e2e.run(ws, ["debug", "wait"], { timeoutMs: 1_500 });
    handles.push(result.process);
    expect(result).toMatchObject({ timedOut: true, exitCode: undefined });
    expect(survivors(result.process)).toEqual([]);
  });

  it("leaves no OpenCode process behind", () => {
    for (const handle of handles) expect(survivors(handle)).toEqual([]);
    expect(liveHandles()).toEqual([]);
  });

  it("cleanup removes the workspace", async () => {
    const ws = await createWorkspace({ model: e2e.model, plugin: false });
    await ws.cleanup();
    expect(fs.existsSync(ws.root)).toBe(false);
  });
});

let sharedUrl = "";

describe("one served OpenCode for a block (useE2E shareServer)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("runs go through it in each workspace's project; a refusal is exit 1; other config is refused", async () => {
    const [a, b] = [await e2e.workspace(), await e2e.workspace({ files: { "README.md": "# b\n" } })];
    e2e.model.script(
      { match: { lastUser: "hello-a" }, reply: text("Hello, A") },
      { match: { lastUser: "hello-b" }, reply: text("Hello, B") },
      ...slashCommand("otto_config"),
    );
    const first = await e2e.run(a, ["run", "hello-a"]);
    const second = await e2e.run(b, ["run", "hello-b"]);
    expect(first).toMatchObject({ exitCode: 0, stdout: "Hello, A\n" });
    expect(second).toMatchObject({ exitCode: 0, stdout: "Hello, B\n" });
    // One server, kept for the worker (so not a test's live process), no process per run, and each turn in its own project.
    expect(liveHandles()).toEqual([]);
    sharedUrl = (await e2e.serve(a)).url;
    const turns = e2e.model.turns();
    expect(turns.map((t) => [t.lastUser, t.system.includes(a.project), t.system.includes(b.project)])).toEqual([
      ["hello-a", true, false],
      ["hello-b", false, true],
    ]);
    // A command otto refuses is exit 1, as headless (its arguments quoted as `opencode run` quotes them).
    const refused = await e2e.run(a, ["run", "--command", "otto-config", "--", "frobnicate", "two words"]);
    expect(refused.exitCode, refused.stdout).toBe(1);
    expect(refused.stdout).toContain("unknown verb 'frobnicate'");
    expect(e2e.model.turns().at(-2)?.lastUser).toContain('frobnicate "two words"');
    await expect(e2e.workspace({ config: { small_model: "mock/m2" } })).rejects.toThrow(/differ from the shared server's/);
  });

  it("a later test starts from empty otto user folders, with its own user config", async () => {
    const ws = await e2e.workspace({ userOttoConfig: { models: { primary: "mock/m2" } } });
    expect(fs.readFileSync(path.join(ws.dirs.configHome, "otto", "otto.jsonc"), "utf8")).toContain("mock/m2");
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto"))).toBe(false);
    e2e.model.script(...slashCommand("otto_config"));
    const shown = await e2e.run(ws, ["run", "--command", "otto-config", "--", "show"]);
    expect(shown.exitCode, shown.stdout).toBe(0);
    expect(shown.stdout).toContain("mock/m2");
  });
});

describe("the worker keeps its shared server for later blocks and files", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("a later block with the same options gets the same server, cleaned between", async () => {
    const ws = await e2e.workspace();
    expect((await e2e.serve(ws)).url).toBe(sharedUrl);
    // The model starts from a clean script and record.
    e2e.model.script({ match: { lastUser: "again" }, reply: text("Again") });
    expect(await e2e.run(ws, ["run", "again"])).toMatchObject({ exitCode: 0, stdout: "Again\n" });
    expect(e2e.model.turns().map((t) => t.lastUser)).toEqual(["again"]);
  });
});
