import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { delay, hang, slashCommand, text, useE2E } from "../../support/index.ts";
import { buildKindOf, buildPrompts, builderModel, oneTaskPerTurn, tasksMd } from "../build/builder-model.ts";

const OTTO = { models: { primary: "mock/m1", secondary: "mock/m2" } };

function state(project: string, key: string): { status: string; sessionID?: string; iteration: number } {
  return JSON.parse(fs.readFileSync(path.join(project, ".otto/build", `${key}.json`), "utf8")) as {
    status: string;
    sessionID?: string;
    iteration: number;
  };
}

describe("/otto-build: stop, --all, OpenSpec changes, interruptions", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("refuses a second loop for the same spec from another session of the same server, and says how to stop the first", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", ".otto/specs/demo/tasks.md": tasksMd(["One", "Two"]) },
      ottoConfig: OTTO,
    });
    e2e.model.script(...slashCommand("otto_build"), ...slashCommand("otto_build"), ...slashCommand("otto_build"), {
      label: "builder hangs",
      match: (req) => buildKindOf(req.lastUser) === "start",
      reply: hang(),
    });
    const { client } = await e2e.serve(ws);
    const first = (await client.session.create({ body: {}, throwOnError: true })).data;
    const building = client.session.command({
      path: { id: first.id },
      body: { command: "otto-build", arguments: "--spec demo" },
      throwOnError: true,
    });
    await e2e.model.waitForRequest((req) => buildKindOf(req.lastUser) === "start", 60_000);
    const second = (await client.session.create({ body: {}, throwOnError: true })).data;
    await client.session.command({
      path: { id: second.id },
      body: { command: "otto-build", arguments: "--spec demo" },
      throwOnError: true,
    });
    const refusal =
      e2e.model.requests.find((r) => r.lastRole === "tool" && r.toolResults[0]?.content.includes("already running"))?.toolResults[0]
        ?.content ?? "";
    expect(refusal).toContain("A build loop for 'demo' is already running");
    expect(refusal).toContain(`builder session ${state(ws.project, "demo").sessionID ?? "?"}`);
    expect(refusal).toContain("/otto-build stop --spec demo");
    await client.session.command({
      path: { id: second.id },
      body: { command: "otto-build", arguments: "stop --spec demo" },
      throwOnError: true,
    });
    await building;
    expect(state(ws.project, "demo")).toMatchObject({ status: "stopped", iteration: 1 });
    expect(buildPrompts(e2e.model.requests)).toEqual(["start"]);
  });

  it("--all builds the incomplete specs in order (numeric prefixes first), one commit and archive each", async () => {
    const ws = await e2e.workspace({
      files: {
        "README.md": "# demo\n",
        ".otto/specs/beta/tasks.md": tasksMd(["Beta"]),
        ".otto/specs/1-alpha/tasks.md": tasksMd(["Alpha"]),
      },
      ottoConfig: OTTO,
    });
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--all"], { timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual([
      "feat(beta): implementation complete",
      "feat(1-alpha): implementation complete",
      "Initial commit",
    ]);
    expect(
      fs
        .readdirSync(path.join(ws.project, ".otto/specs/archive"))
        .map((d) => d.slice(11))
        .sort(),
    ).toEqual(["1-alpha", "beta"]);
  });

  it("works an OpenSpec change's checkbox tasks to done, and says the change stays when the openspec CLI is missing", async () => {
    const change = "openspec/changes/add-auth";
    const ws = await e2e.workspace({
      files: {
        "README.md": "# demo\n",
        [`${change}/proposal.md`]: "# Add auth\n",
        [`${change}/tasks.md`]: "# Tasks\n\n## 1. Auth\n- [ ] 1.1 Add the login route\n- [ ] 1.2 Add the session check\n",
      },
      ottoConfig: OTTO,
    });
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--openspec", "add-auth"], { timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "continue", "verify"]);
    expect(ws.readFile(`${change}/tasks.md`)).toContain("- [x] 1.1 Add the login route\n- [x] 1.2 Add the session check");
    expect(run.stdout).toContain("openspec CLI is not installed");
    expect((await ws.repo.log()).map((c) => c.subject)[0]).toBe("feat(add-auth): implementation complete");
    expect(state(ws.project, "openspec-add-auth").status).toBe("done");
  });

  it("pauses when the user writes in the builder's session during a turn", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", ".otto/specs/demo/tasks.md": tasksMd(["One", "Two"]) },
      ottoConfig: OTTO,
    });
    e2e.model.script(
      ...slashCommand("otto_build"),
      {
        label: "builder, slow first turn",
        match: (req) => buildKindOf(req.lastUser) === "start",
        reply: delay(1_500, text("Looking around.")),
      },
      { label: "the user's question", match: { lastUser: "What are you doing?" }, reply: text("Building task-001.") },
    );
    const { client } = await e2e.serve(ws);
    const parent = (await client.session.create({ body: {}, throwOnError: true })).data;
    const command = client.session.command({
      path: { id: parent.id },
      body: { command: "otto-build", arguments: "--spec demo" },
      throwOnError: true,
    });
    await e2e.model.waitForRequest((req) => buildKindOf(req.lastUser) === "start", 60_000);
    const builder = state(ws.project, "demo").sessionID ?? "";
    await client.session.promptAsync({
      path: { id: builder },
      body: { parts: [{ type: "text", text: "What are you doing?" }] },
      throwOnError: true,
    });
    await command;
    const after = state(ws.project, "demo");
    expect(after, JSON.stringify(after)).toMatchObject({ status: "paused", iteration: 1 });
    expect(buildPrompts(e2e.model.requests)).toEqual(["start"]);

    // `/otto-build` again, from another session: the loop goes on in the builder's session, with the user's exchange in it.
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const other = (await client.session.create({ body: {}, throwOnError: true })).data;
    await client.session.command({ path: { id: other.id }, body: { command: "otto-build", arguments: "--spec demo" }, throwOnError: true });
    expect(state(ws.project, "demo")).toMatchObject({ status: "done", sessionID: builder, iteration: 4 });
    const resumed = e2e.model.requests.filter((r) => !r.isTitle && r.lastRole === "user" && buildKindOf(r.lastUser) === "start")[1];
    expect(JSON.stringify(resumed?.messages)).toContain("What are you doing?");
    expect(JSON.stringify(resumed?.messages)).toContain("Building task-001.");
  });
});

describe("/otto-build stop from another process (an OpenCode of its own, so there is a process to abort)", () => {
  const e2e = useE2E();

  it("`/otto-build stop` from another process aborts the running turn and ends the loop", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", ".otto/specs/demo/tasks.md": tasksMd(["One", "Two"]) },
      ottoConfig: OTTO,
    });
    e2e.model.script(...slashCommand("otto_build"), ...slashCommand("otto_build"), {
      label: "builder hangs",
      match: (req) => buildKindOf(req.lastUser) === "start",
      reply: hang(),
    });
    const building = e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 120_000 });
    await e2e.model.waitForRequest((req) => buildKindOf(req.lastUser) === "start", 60_000);
    const stop = await e2e.run(ws, ["run", "--command", "otto-build", "--", "stop"], { timeoutMs: 60_000 });
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("Asked demo to stop");
    const run = await building;
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("stopped on request");
    expect(state(ws.project, "demo")).toMatchObject({ status: "stopped", iteration: 1 });
    expect(buildPrompts(e2e.model.requests)).toEqual(["start"]);
  });
});
