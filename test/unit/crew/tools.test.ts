import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { EventBus, silentLogger } from "../../../src/core/index.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { crewFor, snapshot, spawnAgent } from "../../../src/crew/index.ts";
import { agentCommand } from "../../../src/tools/agent.ts";
import { crewTools } from "../../../src/tools/crew.ts";
import { fakeCrew, ORCH } from "./fake-crew.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-crew-tools-"));
// Otto's data folder, where crews live: never the real home's.
const data = fs.mkdtempSync(path.join(os.tmpdir(), "otto-crew-data-"));
afterAll(() => {
  for (const d of [dir, data]) fs.rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  fs.rmSync(path.join(dir, ".otto"), { recursive: true, force: true });
  fs.rmSync(path.join(data, "otto"), { recursive: true, force: true });
});

const runtime = {
  client: {} as Runtime["client"],
  directory: dir,
  worktree: dir,
  events: new EventBus(),
  log: silentLogger,
  env: { PATH: process.env.PATH, GIT_CEILING_DIRECTORIES: path.dirname(dir), HOME: data, XDG_DATA_HOME: data },
  once: new Set<string>(),
  secrets: new KnownSecrets(),
  sessions: {} as Runtime["sessions"],
  guard: {} as Runtime["guard"],
  meter: {} as Runtime["meter"],
} satisfies Runtime;

const ctx = {
  sessionID: "ses_x",
  messageID: "m",
  agent: "build",
  directory: dir,
  worktree: dir,
  abort: new AbortController().signal,
  metadata: () => undefined,
} as unknown as ToolContext;

describe("crew tools at the tool boundary", () => {
  it("refuse a session that is not a crew agent, with the reason and what to use instead", async () => {
    const say = crewTools(runtime).otto_agent_say;
    const output = await say?.execute({ message: "@otto hi" }, ctx);
    expect(output).toBe(
      "Error: This session is not an agent of otto's crew, so it cannot post to the crew's stream.\nNext step: Crew tools are for agents started with /otto-agent spawn; the orchestrator uses /otto-agent.",
    );
    expect(fs.existsSync(path.join(dir, ".otto"))).toBe(false);
  });

  it("/otto-agent answers help and usage errors without touching the crew", async () => {
    const tool = agentCommand(runtime);
    expect(await tool.execute({ args: "" }, ctx)).toContain(
      "/otto-agent spawn <name> [--agent a] [--model p/m] [--worktree w [--repo r]] [--budget USD] [--wait] <task>",
    );
    const output = async (args: string): Promise<string> => {
      const result = await tool.execute({ args }, ctx);
      return typeof result === "string" ? result : result.output;
    };
    expect(await output("spawn alice")).toContain("Error: Missing argument for 'spawn'.");
    expect(await output("prompt alice")).toContain("Usage: /otto-agent prompt <name> <text>");
    expect(await tool.execute({ args: "status" }, ctx)).toMatchObject({
      output: "The crew has no agents. Start one with /otto-agent spawn <name> <task>.",
    });
    expect(fs.existsSync(path.join(dir, ".otto"))).toBe(false);
  });

  it("after an OpenCode restart the first verb, whichever it is, reconciles; status still lists what changed", async () => {
    // The first OpenCode process (pid 1) runs alice and bob.
    const before = fakeCrew({ pid: 1, root: dir });
    for (const name of ["alice", "bob"]) {
      await spawnAgent(
        before.crew,
        { name, task: `task of ${name}`, orchestrator: ORCH, directory: dir },
        (await snapshot(before.crew)).state,
      );
    }
    await vi.waitFor(() => expect(before.host.prompts).toHaveLength(2));
    const bob = (await snapshot(before.crew)).state.agents[1];
    // It dies: alice's turn died with it, bob's session was deleted. A new process (pid 2) starts,
    // and a new conversation's first verb is spawn, which used to take the crew over unchecked.
    before.host.deleted.add(bob?.sessionID ?? "");
    const restarted = { ...runtime };
    crewFor(restarted, { ...before.crew, pid: 2 });
    const tool = agentCommand(restarted);
    const run = async (args: string): Promise<string> => {
      const result: unknown = await tool.execute({ args }, ctx);
      return typeof result === "string" ? result : (result as { output: string }).output;
    };

    expect(await run("spawn carol Write the docs")).toContain("Spawned @carol");
    // The crew of the previous layout (under the project) was moved to otto's data folder once.
    const moved = await crewFor(restarted).at(dir);
    expect(moved.paths.dir.startsWith(path.join(data, "otto", "crews"))).toBe(true);
    expect(fs.existsSync(path.join(dir, ".otto", "crew", "crew.json"))).toBe(false);
    const agents = (await snapshot(moved)).state.agents;
    expect(agents.map((a) => [a.name, a.state, a.error])).toEqual([
      ["alice", "failed", "its session is idle after OpenCode restarted: it stopped without completing"],
      ["bob", "failed", "its session no longer exists"],
      ["carol", "busy", undefined],
    ]);
    // The calling session is told, not the conversation that ran the crew before the restart.
    const wakes = () =>
      before.host.prompts
        .filter((p) => p.sessionID === ctx.sessionID)
        .map((p) => p.text)
        .join("\n");
    await vi.waitFor(() => expect(wakes()).toContain("crew notice: @alice failed: its session is idle after OpenCode restarted"));
    before.idle(ctx.sessionID);
    await vi.waitFor(() => expect(wakes()).toContain("crew notice: @bob failed: its session no longer exists"));
    expect(before.host.prompts.filter((p) => p.sessionID === ORCH.sessionID)).toEqual([]);

    const status = await run("status");
    expect(status).toContain("3 agents: 1 busy, 2 failed");
    expect(status).toContain(
      "Reconciled with OpenCode's sessions after a restart:\n- alice: failed, its session is idle after OpenCode restarted: it stopped without completing\n- bob: failed, its session no longer exists",
    );
    expect(await run("status")).not.toContain("Reconciled");
  });
});
