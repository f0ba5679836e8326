import fs from "node:fs";
import path from "node:path";
import type { Event } from "@opencode-ai/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  archiveAgents,
  ask,
  complete,
  compactionContext,
  crewStatus,
  killAgent,
  promptAgent,
  readMessages,
  say,
  spawnAgent,
  snapshot,
  waitForAgent,
} from "../../../src/crew/index.ts";
import { handleCrewEvent } from "../../../src/crew/events.ts";
import { fakeCrew, ORCH, type FakeCrew } from "./fake-crew.ts";

let f: FakeCrew;
afterEach(() => f.cleanup());

async function spawn(name: string, task = `task of ${name}`) {
  return spawnAgent(f.crew, { name, task, orchestrator: ORCH, directory: "/project" }, (await snapshot(f.crew)).state);
}

const state = async (name: string) => (await snapshot(f.crew)).state.agents.find((a) => a.name === name);
const event = (type: "session.idle", sessionID: string): Event => ({ type, properties: { sessionID } });

describe("crew flows on real files with a fake OpenCode", () => {
  it("spawn sends the agent template through the gate; names are unique and checked", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await vi.waitFor(() => expect(f.host.prompts).toHaveLength(1));
    expect(f.host.prompts[0]).toMatchObject({ sessionID: alice.sessionID, agent: "otto-crew" });
    expect(f.host.prompts[0]?.text).toContain("You are `alice`, a background agent");
    expect(f.host.prompts[0]?.text).toContain("task of alice");
    await spawn("bob");
    await vi.waitFor(() => expect(f.host.prompts).toHaveLength(2));
    expect(f.host.prompts[1]?.text).toContain("- @alice: task of alice (busy)");
    await expect(spawn("alice")).rejects.toThrow("This crew already has an agent named 'alice'. Agents: alice (busy), bob (busy).");
    await expect(spawn("otto")).rejects.toThrow("cannot be an agent's name");
    await expect(spawn("Bad Name")).rejects.toThrow("cannot be an agent's name");
  });

  it("say with @name wakes that agent; ask blocks and wakes otto; otto's answer resumes; complete wakes otto", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    const bob = await spawn("bob");
    f.idle(alice.sessionID);
    f.idle(bob.sessionID);
    const said = await say(f.crew, alice.sessionID, "@bob the API is ready, @carol too");
    expect(said.woken).toEqual(["bob"]);
    expect(said.unknown).toEqual(["carol"]);
    await vi.waitFor(() =>
      expect(f.host.prompts.find((p) => p.sessionID === bob.sessionID && p.text.includes("**Crew messages for @bob**"))?.text).toContain(
        "#1 alice: @bob the API is ready",
      ),
    );

    const asked = await ask(f.crew, alice.sessionID, "Which port?", false);
    expect(asked.woken).toEqual(["otto"]);
    expect(await state("alice")).toMatchObject({ state: "blocked", question: { seq: 2, text: "Which port?", human: false } });
    await vi.waitFor(() => expect(f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)).toHaveLength(1));
    const wake = f.host.prompts.find((p) => p.sessionID === ORCH.sessionID);
    expect(wake?.text).toContain("#1 alice: @bob the API is ready");
    expect(wake?.text).toContain("#2 alice asks: Which port?");
    expect(wake?.text).toContain("Crew: alice blocked · bob busy");
    f.idle(ORCH.sessionID);

    await promptAgent(f.crew, ORCH, "alice", "Use 8080");
    await vi.waitFor(() => expect(f.host.prompts.filter((p) => p.sessionID === alice.sessionID)).toHaveLength(2));
    expect(f.host.prompts.at(-1)?.text).toContain("#3 otto → @alice: Use 8080");
    expect(await state("alice")).toMatchObject({ state: "busy" });
    expect((await state("alice"))?.question).toBeUndefined();

    await complete(f.crew, alice.sessionID, "Done on 8080.");
    await vi.waitFor(() => expect(f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)).toHaveLength(2));
    const second = f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)[1]?.text ?? "";
    expect(second).toContain("#4 alice completed: Done on 8080.");
    expect(second).not.toContain("Which port?");
    expect(await state("alice")).toMatchObject({ state: "done", summary: "Done on 8080." });
  });

  it("an agent that goes idle without completing has failed; otto is told; a teammate's mention does not fail it", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    const bob = await spawn("bob");
    await handleCrewEvent(f.crew, event("session.idle", alice.sessionID));
    expect(await state("alice")).toMatchObject({ state: "failed", error: "its turn ended without otto_agent_complete or otto_agent_ask" });
    await vi.waitFor(() =>
      expect(f.host.prompts.find((p) => p.sessionID === ORCH.sessionID)?.text).toContain("crew notice: @alice failed"),
    );

    await complete(f.crew, bob.sessionID, "ok");
    f.idle(bob.sessionID);
    await say(f.crew, alice.sessionID, "@bob one more thing");
    await vi.waitFor(() =>
      expect(f.host.prompts.some((p) => p.sessionID === bob.sessionID && p.text.includes("one more thing"))).toBe(true),
    );
    expect(await state("bob")).toMatchObject({ state: "busy", resume: "done" });
    await handleCrewEvent(f.crew, event("session.idle", bob.sessionID));
    f.idle(bob.sessionID);
    expect(await state("bob")).toMatchObject({ state: "done" });

    const error: Event = {
      type: "session.error",
      properties: { sessionID: bob.sessionID, error: { name: "APIError", data: { message: "quota", isRetryable: false } } },
    };
    await promptAgent(f.crew, ORCH, "bob", "again");
    await vi.waitFor(async () => expect(await state("bob")).toMatchObject({ state: "busy" }));
    await handleCrewEvent(f.crew, error);
    expect(await state("bob")).toMatchObject({ state: "failed", error: "APIError: quota" });
  });

  it("a session.idle from before the turn that made the agent busy (a killed turn's late end) fails nothing; that turn's own end does", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    const at = (iso: string) => Date.parse(iso);
    await killAgent(f.crew, ORCH, "alice");
    f.clock.now = new Date("2026-01-01T10:00:05Z");
    await promptAgent(f.crew, ORCH, "alice", "Only the lexer");
    f.idle(alice.sessionID);
    await vi.waitFor(async () => expect(await state("alice")).toMatchObject({ state: "busy", busySince: "2026-01-01T10:00:05.000Z" }));
    // The killed turn's aborted answer is still the session's newest message: its idle is late news.
    const aborted = { role: "assistant" as const, time: { created: at("2026-01-01T10:00:01Z"), completed: at("2026-01-01T10:00:02Z") } };
    f.host.newest.set(alice.sessionID, { ...aborted, error: { name: "MessageAbortedError" } });
    await handleCrewEvent(f.crew, event("session.idle", alice.sessionID));
    // The prompt is in the session, not answered yet; then the answer's first step ends in a tool call.
    f.host.newest.set(alice.sessionID, { role: "user", time: { created: at("2026-01-01T10:00:06Z") } });
    await handleCrewEvent(f.crew, event("session.idle", alice.sessionID));
    const step = { role: "assistant" as const, time: { created: at("2026-01-01T10:00:07Z"), completed: at("2026-01-01T10:00:08Z") } };
    f.host.newest.set(alice.sessionID, { ...step, finish: "tool-calls" });
    await handleCrewEvent(f.crew, event("session.idle", alice.sessionID));
    expect(await state("alice")).toMatchObject({ state: "busy" });
    // Its own answer, finished without otto_agent_complete: that idle is the turn's end.
    f.host.newest.set(alice.sessionID, { ...step, finish: "stop" });
    await handleCrewEvent(f.crew, event("session.idle", alice.sessionID));
    expect(await state("alice")).toMatchObject({ state: "failed", error: "its turn ended without otto_agent_complete or otto_agent_ask" });
  });

  it("@human and questions for the human toast where otto runs, notify, and stay flagged until otto answers", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await say(f.crew, alice.sessionID, "@human is this licence OK?");
    await vi.waitFor(() => expect(f.notified).toHaveLength(1));
    expect(f.host.toasts).toEqual([
      { directory: "/project", title: "otto crew: @alice needs a human", message: "@human is this licence OK?" },
    ]);
    expect(f.notified[0]).toEqual({ title: "@alice needs a human", text: "@human is this licence OK?" });
    await ask(f.crew, alice.sessionID, "Pick a colour", true);
    expect(await state("alice")).toMatchObject({ state: "blocked", question: { human: true }, human: { seq: 2, text: "Pick a colour" } });
    const status = await crewStatus(f.crew);
    expect(status).toContain("**Needs a human**: @alice (#2)");
    expect(status).toMatch(/\| alice \| blocked \(human\) \| task of alice \| 0s \| 0s ago \| - \| NEEDS A HUMAN \(#2\): Pick a colour \|/);
    await promptAgent(f.crew, ORCH, "alice", "Blue");
    expect((await state("alice"))?.human).toBeUndefined();
  });

  it("messages lists unread first and marks them read; --wait returns when the agent settles", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await say(f.crew, alice.sessionID, "progress");
    // The orchestrator is busy: it is running `spawn --wait`.
    f.host.busySessions.add(ORCH.sessionID);
    f.busy(ORCH.sessionID);
    const waiting = waitForAgent(f.crew, ORCH, "alice");
    await ask(f.crew, alice.sessionID, "Which DB?", false);
    const settled = await waiting;
    expect(settled?.agent.state).toBe("blocked");
    expect(settled?.unread.map((m) => m.text)).toEqual(["progress", "Which DB?"]);
    expect((await readMessages(f.crew, ORCH)).unread).toEqual([]);
    await say(f.crew, alice.sessionID, "still here");
    const read = await readMessages(f.crew, ORCH);
    expect(read.unread.map((m) => m.text)).toEqual(["still here"]);
    expect(read.earlier.map((m) => m.text)).toEqual(["progress", "Which DB?"]);
    // The wake-up the question queued finds nothing new when the turn ends: it is dropped.
    f.host.busySessions.clear();
    f.idle(ORCH.sessionID);
    await vi.waitFor(() => expect(f.gates.pending(ORCH.sessionID)).toBe(0));
    expect(f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)).toEqual([]);
    const aborted = new AbortController();
    aborted.abort();
    expect(await waitForAgent(f.crew, ORCH, "alice", aborted.signal)).toBeUndefined();
  });

  it("a wake-up queued for an orchestrator session that has since handed over goes to the new one", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    f.host.busySessions.add(ORCH.sessionID);
    f.busy(ORCH.sessionID);
    await ask(f.crew, alice.sessionID, "Which DB?", false);
    await vi.waitFor(() => expect(f.gates.pending(ORCH.sessionID)).toBe(1));
    // A new conversation speaks for the crew (its first /otto-agent verb).
    await promptAgent(f.crew, { sessionID: "ses_new", directory: "/project" }, "alice", "Postgres");
    f.host.busySessions.clear();
    f.idle(ORCH.sessionID);
    await vi.waitFor(() => expect(f.host.prompts.filter((p) => p.sessionID === "ses_new")).toHaveLength(1));
    expect(f.host.prompts.find((p) => p.sessionID === "ses_new")?.text).toContain("#1 alice asks: Which DB?");
    expect(f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)).toEqual([]);
  });

  it("kill aborts and drops queued prompts; archive moves finished agents out and frees their names", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await spawn("bob");
    f.host.busySessions.add(alice.sessionID);
    await promptAgent(f.crew, ORCH, "alice", "queued");
    const killed = await killAgent(f.crew, ORCH, "alice");
    expect(killed.state).toBe("idle");
    expect(f.host.aborted).toEqual([alice.sessionID]);
    expect(f.gates.pending(alice.sessionID)).toBe(0);
    await expect(archiveAgents(f.crew, ["bob"])).rejects.toThrow("bob is busy: only done, failed, idle or stopped agents can be archived.");
    expect((await archiveAgents(f.crew, [])).map((a) => a.name)).toEqual(["alice"]);
    expect((await snapshot(f.crew)).state.agents.map((a) => a.name)).toEqual(["bob"]);
    await spawn("alice");
    await expect(promptAgent(f.crew, ORCH, "nobody", "x")).rejects.toThrow("The crew has no agent named 'nobody'.");
  });

  it("after a restart, reconciles with the sessions that exist and reports every change", async () => {
    f = fakeCrew({ pid: 1 });
    const busy = await spawn("busy");
    const gone = await spawn("gone");
    const done = await spawn("done");
    await complete(f.crew, done.sessionID, "ok");
    f.host.busySessions.add(busy.sessionID);
    f.host.deleted.add(gone.sessionID);
    f.host.deleted.add(done.sessionID);
    // Same process: nothing to reconcile.
    expect(await crewStatus(f.crew)).not.toContain("Reconciled");
    const restarted = { ...f.crew, pid: 2 };
    f.host.busySessions.clear();
    const status = await crewStatus(restarted);
    expect(status).toContain("Reconciled with OpenCode's sessions after a restart:");
    expect(status).toContain("- busy: failed, its session is idle after OpenCode restarted: it stopped without completing");
    expect(status).toContain("- gone: failed, its session no longer exists");
    expect(status).toContain("- done: session deleted");
    expect(await state("done")).toMatchObject({ state: "done", note: "session deleted" });
    expect(await crewStatus(restarted)).not.toContain("Reconciled");
  });

  it("compaction context: the orchestrator's sessions get the crew, unread messages and the tools; others nothing", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await ask(f.crew, alice.sessionID, "Which DB?", false);
    const text = await compactionContext(f.crew, ORCH.sessionID, "/project");
    expect(text).toContain("# Otto's state (keep it in the summary)");
    expect(text).toMatch(/\| alice \| blocked \|/);
    expect(text).toContain("#1 alice asks: Which DB?");
    expect(text).toContain("`otto_agent`: the crew.");
    expect(await compactionContext(f.crew, alice.sessionID, "/project")).toBeUndefined();
    // Another session of the otto agent (the fake says every session's last prompt was otto's).
    expect(await compactionContext(f.crew, "ses_other", "/project")).toContain("Otto's state");
    // One whose last turn was a slash command's (its own agent, otto.spec) is otto's too; a build session is not.
    f.host.role = { agent: "otto.spec" };
    expect(await compactionContext(f.crew, "ses_other", "/project")).toContain("Otto's state");
    f.host.role = { agent: "build" };
    expect(await compactionContext(f.crew, "ses_other", "/project")).toBeUndefined();
  });

  it("an agent's @otto mention wakes the orchestrator with the message; a plain say wakes nobody", async () => {
    f = fakeCrew();
    const alice = await spawn("alice");
    await say(f.crew, alice.sessionID, "progress: schema drafted");
    expect(f.gates.pending(ORCH.sessionID)).toBe(0);
    const said = await say(f.crew, alice.sessionID, "@otto the schema is done; should the API be REST or gRPC?");
    expect(said.woken).toEqual(["otto"]);
    const wakes = () => f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID);
    await vi.waitFor(() => expect(wakes()).toHaveLength(1));
    expect(wakes()[0]).toMatchObject({ directory: "/project", agent: "otto" });
    expect(wakes()[0]?.text).toContain("**Crew update**");
    // The unread message before the mention comes along; the mention does not change alice's state.
    expect(wakes()[0]?.text).toContain(
      "#1 alice: progress: schema drafted\n#2 alice: @otto the schema is done; should the API be REST or gRPC?",
    );
    expect(wakes()[0]?.text).toContain("Crew: alice busy");
    expect(await state("alice")).toMatchObject({ state: "busy" });
  });

  it("a wake-up after /otto-agent (its turn ran as otto.agent, offered one tool) goes to the otto agent, with the command's model", async () => {
    f = fakeCrew();
    f.host.role = { agent: "otto.agent", model: { providerID: "mock", modelID: "m2" } };
    const alice = await spawn("alice");
    await say(f.crew, alice.sessionID, "@otto done with the schema");
    const wakes = () => f.host.prompts.filter((p) => p.sessionID === ORCH.sessionID);
    await vi.waitFor(() => expect(wakes()).toHaveLength(1));
    expect(wakes()[0]).toMatchObject({ agent: "otto", model: { providerID: "mock", modelID: "m2" } });
  });

  it("compaction after a restart reconciles first; status still lists what that reconcile changed", async () => {
    f = fakeCrew({ pid: 1 });
    const alice = await spawn("alice");
    await vi.waitFor(() => expect(f.host.prompts).toHaveLength(1));
    const restarted = { ...f.crew, pid: 2 };
    const text = await compactionContext(restarted, ORCH.sessionID, "/project");
    expect(text).toMatch(/\| alice \| failed \|.*idle after OpenCode restarted/);
    await vi.waitFor(() =>
      expect(f.host.prompts.find((p) => p.sessionID === ORCH.sessionID)?.text).toContain("crew notice: @alice failed"),
    );
    expect(await state("alice")).toMatchObject({ sessionID: alice.sessionID, state: "failed", note: "reconciled after a restart" });
    expect(await crewStatus(restarted, ORCH)).toContain(
      "Reconciled with OpenCode's sessions after a restart:\n- alice: failed, its session is idle after OpenCode restarted: it stopped without completing",
    );
    expect(await crewStatus(restarted, ORCH)).not.toContain("Reconciled");
  });

  it("compaction context names the specs in progress and how far they are; finished specs are left out", async () => {
    f = fakeCrew();
    const write = (rel: string, text: string) => {
      const file = path.join(f.crew.paths.root, ".otto", "specs", rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    };
    const tasks = (...statuses: string[]) =>
      `# Tasks\n\n${statuses
        .map(
          (status, i) =>
            `## Task ${i + 1}: Step ${i + 1}\n- **id**: task-00${i + 1}\n- **status**: ${status}\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: Do step ${i + 1}.\n`,
        )
        .join("\n")}`;
    write("add-auth/requirements.md", "# Requirements\n");
    write("add-auth/tasks.md", tasks("completed", "completed", "failed", "pending"));
    write("rate-limit/requirements.md", "# Requirements\n");
    write("rate-limit/research.md", "# Research\n");
    write("shipped/tasks.md", tasks("completed", "skipped"));
    const text = await compactionContext(f.crew, ORCH.sessionID, "/project");
    expect(text).toContain(
      "## Specs in progress (`/otto-spec list`)\n\n- add-auth: 2/4 tasks completed, 1 failed\n- rate-limit: requirements, research written; no tasks yet\n",
    );
    expect(text).not.toContain("shipped");
  });
});
