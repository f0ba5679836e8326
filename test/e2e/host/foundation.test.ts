import fs from "node:fs";
import type { Event, OpencodeClient } from "@opencode-ai/sdk";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, hang, slashCommand, text, toolCalls, useE2E, type RecordedRequest } from "../../support/index.ts";
import { ottoCommand } from "../pr/forges.ts";

const envelope = (value: unknown) => text(`BEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);
const REVIEWER_PROMPT = "rigorous, independent reviewer";
const checkOf = (role: string) => new RegExp(`otto's \`${role.replace(/[[\]]/g, "\\$&")}\` model`);
const toolNames = (req: RecordedRequest | undefined) => req?.toolNames ?? [];

/** Sends `prompt` in a new session of a served OpenCode (as `agent`, or the default one) and returns the reply's text. */
async function ask(client: OpencodeClient, prompt: string, agent?: string): Promise<string> {
  const session = (await client.session.create({ body: {}, throwOnError: true })).data;
  const reply = await client.session.prompt({
    path: { id: session.id },
    body: { ...(agent ? { agent } : {}), parts: [{ type: "text", text: prompt }] },
    throwOnError: true,
  });
  return reply.data.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

describe("foundation: otto inside real OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("keeps otto out of other agents' requests: no otto tools, no otto subagents in task", async () => {
    const ws = await e2e.workspace();
    e2e.model.script({ match: { lastUser: "plain question" }, reply: text("plain answer") });
    // One served OpenCode for both questions (the headless path is the other tests').
    const { client } = await e2e.serve(ws);
    expect(await ask(client, "plain question")).toContain("plain answer");
    const request = e2e.model.turns().find((r) => r.lastUser.includes("plain question"));
    expect(toolNames(request)).toContain("bash");
    expect(toolNames(request).filter((n) => n.startsWith("otto_"))).toEqual([]);
    // The built-in task tool lists the subagents it may start: otto's are not among them.
    const task = JSON.stringify(request?.tools.filter((t) => JSON.stringify(t).includes('"task"')));
    expect(toolNames(request)).toContain("task");
    expect(task).toContain("general");
    // Every otto agent (otto, otto-reviewer, otto-executor, otto-crew …), whatever is added later.
    expect(task).not.toMatch(/otto/i);

    e2e.model.script({ match: { lastUser: "otto question" }, reply: text("otto answer") });
    expect(await ask(client, "otto question", "otto")).toContain("otto answer");
    expect(toolNames(e2e.model.turns().find((r) => r.lastUser.includes("otto question")))).toContain("otto_config");
  });

  it("checks each model role in a child session with the reviewer agent and the requested model", async () => {
    const ws = await e2e.workspace({ ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } } });
    e2e.model.script(
      ...slashCommand("otto_config"),
      { label: "primary check", match: { lastUser: checkOf("primary"), model: "m1" }, reply: envelope({ role: "primary", ok: true }) },
      // The secondary first answers with broken JSON; otto must ask again in the same session.
      {
        label: "secondary malformed",
        match: { lastUser: checkOf("secondary"), model: "m2" },
        reply: text('BEGIN_JSON\n{"role": "secondary", ok: tru\nEND_JSON'),
      },
      {
        label: "secondary retry",
        match: { lastUser: "JSON result was missing or invalid", model: "m2" },
        reply: envelope({ role: "secondary", ok: true }),
      },
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-config", "--", "models"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Model check: 2/2 ok");
    expect(run.stdout).toMatch(/secondary \| `mock\/m2` \| config \| ok \(after 2 prompts\)/);

    const primary = e2e.model.turns().find((r) => checkOf("primary").test(r.lastUser));
    const retry = e2e.model.turns().find((r) => r.lastUser.includes("JSON result was missing or invalid"));
    expect(primary?.model).toBe("m1");
    expect(retry?.model).toBe("m2");
    for (const req of [primary, retry]) {
      expect(req?.system).toContain(REVIEWER_PROMPT);
      expect(toolNames(req)).not.toEqual(expect.arrayContaining(["edit"]));
      expect(toolNames(req).filter((n) => ["edit", "write", "patch", "apply_patch"].includes(n) || n.startsWith("otto_"))).toEqual([]);
    }
    // Same session: the retry carries the malformed answer in its history.
    expect(JSON.stringify(retry?.messages)).toContain("ok: tru");
    expect(e2e.model.pending()).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("times out a model that never answers, aborts it, and reports the role as failed", async () => {
    const ws = await e2e.workspace({ ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } } });
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      ...slashCommand("otto_config"),
      { match: { lastUser: checkOf("primary") }, reply: envelope({ role: "primary", ok: true }) },
      { label: "secondary hangs", match: { lastUser: checkOf("secondary") }, reply: hang() },
    );
    const parent = (await client.session.create({ body: { title: "parent" }, throwOnError: true })).data;
    await client.session.command({
      path: { id: parent.id },
      body: { command: "otto-config", arguments: "models --timeout 3s" },
      throwOnError: true,
    });
    const messages = JSON.stringify((await client.session.messages({ path: { id: parent.id }, throwOnError: true })).data);
    expect(messages).toContain("Model check: 1/2 ok");
    expect(messages).toContain("FAILED: session_timeout");

    // The hung turn was aborted: its child session got the abort and was deleted, and the model
    // server saw the request go away.
    const hung = e2e.model.requests.find((r) => r.answeredBy === "secondary hangs");
    const child = events.all.find(
      (e): e is Extract<Event, { type: "session.created" }> =>
        e.type === "session.created" && e.properties.info.parentID === parent.id && e.properties.info.title.includes("secondary"),
    );
    expect(child, JSON.stringify(events.all.filter((e) => e.type === "session.created"))).toBeDefined();
    const childID = child?.properties.info.id ?? "";
    await events.waitFor((e) => e.type === "session.deleted" && e.properties.info.id === childID, { after: 0, timeoutMs: 30_000 });
    const aborted = events.all.find((e) => e.type === "session.error" && e.properties.sessionID === childID);
    expect(JSON.stringify(aborted?.properties)).toContain("MessageAbortedError");
    await expect.poll(() => hung?.aborted, { timeout: 30_000 }).toBe(true);
    expect(hung?.endedAt).toBeDefined();
  });

  it("the reviewer agent cannot write through bash: writing options and redirections are denied, reads work", async () => {
    const ws = await e2e.workspace({ files: { "README.md": "# tiny\n", "x.txt": "x\n", "y.txt": "y\n" } });
    ws.writeFiles({ "README.md": "# tiny, changed\n" });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const writing = [
      "find . -name x.txt -delete",
      "find . -name y.txt -exec rm {} \\;",
      "git diff --output=out.txt",
      "cat README.md > copy.txt",
      "ls && touch and.txt",
      "git difftool -y -x 'touch tool.txt'",
    ];
    const reading = ["git diff", "find . -name '*.txt'", "cat x.txt"];
    const commands = [...writing, ...reading];
    e2e.model.script(
      {
        label: "bash calls",
        match: { system: REVIEWER_PROMPT, lastUser: "try the commands", lastRole: "user" },
        reply: toolCalls(commands.map((command) => ({ name: "bash", args: { command, description: "try" } }))),
      },
      { label: "after the tools", match: { system: REVIEWER_PROMPT, lastRole: "tool" }, reply: text("tried") },
    );
    const before = fs.readdirSync(ws.project).sort();
    const session = (await client.session.create({ body: {}, throwOnError: true })).data;
    await client.session.prompt({
      path: { id: session.id },
      body: { agent: "otto-reviewer", model: { providerID: "mock", modelID: "m1" }, parts: [{ type: "text", text: "try the commands" }] },
      throwOnError: true,
    });
    expect(fs.readdirSync(ws.project).sort()).toEqual(before);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("M README.md");
    const results =
      e2e.model
        .turns()
        .find((r) => r.answeredBy === "after the tools")
        ?.toolResults.map((r) => r.content) ?? [];
    expect(results).toHaveLength(commands.length);
    writing.forEach((command, i) => expect(results[i], command).toContain("prevents you from using this specific tool call"));
    expect(results[writing.length]).toContain("+# tiny, changed");
    expect(results[writing.length + 1]).toContain("./x.txt");
    expect(results[writing.length + 2]).toContain("x");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("creates checks as child sessions of the invoking session and deletes them afterwards", async () => {
    const ws = await e2e.workspace({ ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m1" } } });
    const { client, events } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(...slashCommand("otto_config"), {
      match: { lastUser: /connectivity check/ },
      reply: (req) => envelope({ role: /`(\w+)` model/.exec(req.lastUser)?.[1] ?? "?", ok: true }),
      times: 2,
    });
    const parent = (await client.session.create({ body: { title: "parent" }, throwOnError: true })).data;
    await client.session.command({ path: { id: parent.id }, body: { command: "otto-config", arguments: "models" }, throwOnError: true });
    const created = events.all.filter(
      (e): e is Extract<Event, { type: "session.created" }> => e.type === "session.created" && e.properties.info.parentID === parent.id,
    );
    expect(created).toHaveLength(2);
    // The deletions happen before the command answers; their events reach this client on the event stream, maybe after it.
    for (const child of created)
      await events.waitFor((e) => e.type === "session.deleted" && e.properties.info.id === child.properties.info.id, { timeoutMs: 10_000 });
    const messages = (await client.session.messages({ path: { id: parent.id }, throwOnError: true })).data;
    expect(JSON.stringify(messages)).toContain("Model check: 2/2 ok");
  });
});

describe("foundation: an OpenCode of its own (its env, a broken user config at its start)", () => {
  const e2e = useE2E();

  it("shows the merged config through a slash command, secrets masked, sources named", async () => {
    const ws = await e2e.workspace({
      userOttoConfig: { models: { primary: "mock/m1" }, spec: { max_parallel_tasks: 3 } },
      ottoConfig: { spec: { max_parallel_tasks: 2 } },
      env: { GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" },
    });
    e2e.model.script(...slashCommand("otto_config"));
    const run = await e2e.run(ws, ["run", "--command", "otto-config", "--", "show"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('"mock/m1"');
    expect(run.stdout).toMatch(/"max_parallel_tasks": 2.*repo/);
    expect(run.stdout).toContain("env (GITHUB_TOKEN)");
    expect(run.stdout + run.stderr).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    // The command's turn ran as its own agent (otto.config): the request carries the command's
    // tool and nothing else, and otto's short prompt in place of OpenCode's provider prompt.
    const turns = e2e.model.turns().filter((r) => toolNames(r).includes("otto_config"));
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(toolNames(turn)).toEqual(["otto_config"]);
      expect(turn.tools).toHaveLength(1);
      expect(turn.system).toContain("You are Otto, running the slash command /otto-config");
    }
    // OpenCode's provider prompt ("You are opencode", its tool rules) is not sent; its environment lines are.
    expect(turns[0]?.system).not.toMatch(/You are opencode/i);
    expect(turns[0]?.system).toContain("Working directory:");
    expect(e2e.model.pending()).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a broken otto.jsonc does not stop OpenCode, and validate names file:line:column and key", async () => {
    const ws = await e2e.workspace({
      ottoConfig: '{\n  // repo config\n  "spec": {\n    "max_parallel_tasks": "four"\n  }\n}\n',
      userOttoConfig: '{\n  "models": { "primary": "mock/m1", }\n  "oops"\n}\n',
    });
    e2e.model.script({ match: { lastUser: "still alive?" }, reply: text("yes, alive") }, ...slashCommand("otto_config"));
    // One served OpenCode (it started with the plugin loaded) answers a plain question, then validates.
    const { client } = await e2e.serve(ws);
    expect(await ask(client, "still alive?")).toContain("yes, alive");

    const validate = await ottoCommand(client, "otto-config", "validate");
    expect(validate).toMatch(/\.otto\/otto\.jsonc:4:\d+/);
    expect(validate).toContain("spec.max_parallel_tasks");
    expect(validate).toMatch(/otto\/otto\.jsonc:3:\d+/);
  });
});
