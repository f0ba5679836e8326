import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { afterEach, describe, expect, it } from "vitest";
import { EventBus, silentLogger, type Runtime } from "../../../src/core/index.ts";
import { agentCommand } from "../../../src/tools/agent.ts";
import { crewTools } from "../../../src/tools/crew.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-crew-tools-"));
afterEach(() => fs.rmSync(path.join(dir, ".otto"), { recursive: true, force: true }));

const runtime = {
  client: {} as Runtime["client"],
  directory: dir,
  worktree: dir,
  events: new EventBus(),
  log: silentLogger,
  env: { PATH: process.env.PATH, GIT_CEILING_DIRECTORIES: path.dirname(dir) },
  once: new Set<string>(),
  sessions: {} as Runtime["sessions"],
} satisfies Runtime;

const ctx = { sessionID: "ses_x", messageID: "m", agent: "build", directory: dir, worktree: dir, abort: new AbortController().signal, metadata: () => undefined } as unknown as ToolContext;

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
    expect(await tool.execute({ args: "" }, ctx)).toContain("/otto-agent spawn <name> [--agent a] [--model p/m] [--worktree w [--repo r]] [--wait] <task>");
    expect(await tool.execute({ args: "spawn alice" }, ctx)).toContain("Error: Missing argument for 'spawn'.");
    expect(await tool.execute({ args: "prompt alice" }, ctx)).toContain("Usage: /otto-agent prompt <name> <text>");
    expect(await tool.execute({ args: "status" }, ctx)).toMatchObject({ output: "The crew has no agents. Start one with /otto-agent spawn <name> <task>." });
    expect(fs.existsSync(path.join(dir, ".otto"))).toBe(false);
  });
});
