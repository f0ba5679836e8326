import fs from "node:fs";
import path from "node:path";
import type { OpencodeClient } from "@opencode-ai/sdk";
import { text, toolCall, type RecordedRequest, type ScriptEntry, type Workspace } from "../../support/index.ts";

/*
 * Driving otto's crew in a real `opencode serve`: the orchestrator is a session prompted with
 * /otto-agent through the SDK; agents are recognised by their prompts.
 */

export const WAKE = "**Crew update**";
export const deliverFor = (name: string): string => `**Crew messages for @${name}**`;
export const taskOf = (name: string): string => `You are \`${name}\`, a background agent`;

/** The orchestrator: runs every /otto-agent command it is given, and answers wake-ups with one line. */
export function orchestratorScript(): ScriptEntry[] {
  return [
    {
      label: "otto_agent call",
      match: (req) => req.lastRole === "user" && req.toolNames.includes("otto_agent") && req.lastUser.includes("<args>"),
      reply: (req) => toolCall("otto_agent", { args: /<args>([\s\S]*?)<\/args>/.exec(req.lastUser)?.[1] ?? "" }),
      times: Infinity,
    },
    {
      label: "otto_agent echo",
      match: (req) => req.lastRole === "tool" && req.toolNames.includes("otto_agent") && req.lastUser.includes("<args>"),
      reply: (req) => text(req.toolResults[0]?.content ?? ""),
      times: Infinity,
    },
    {
      label: "wake reply",
      match: (req) => req.lastRole === "user" && req.lastUser.startsWith(WAKE),
      reply: text("Noted."),
      times: Infinity,
    },
  ];
}

/** Is this request one of an agent's turns (its task prompt is the last user message)? */
export const inTask = (name: string, role: "user" | "tool") => (req: RecordedRequest) =>
  req.lastRole === role && req.lastUser.includes(taskOf(name));
/** One of its turns after a delivery (a mention, otto's prompt) that contains `needle`. */
export const inDelivery = (name: string, needle: string, role: "user" | "tool") => (req: RecordedRequest) =>
  req.lastRole === role && req.lastUser.startsWith(deliverFor(name)) && req.lastUser.includes(needle);

/** Waits until OpenCode runs no turn in the session (a wake-up's reply has finished). */
export async function idle(client: OpencodeClient, sessionID: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = (await client.session.status({ throwOnError: true })).data;
    if (!status[sessionID] || status[sessionID].type === "idle") return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`session ${sessionID} stayed busy`);
}

/**
 * Runs `/otto-agent <args>` in the orchestrator session once it is idle, and returns the reply's
 * text (the tool's output). A wake-up delivered at the very same moment would share the turn.
 */
export async function ottoAgent(client: OpencodeClient, sessionID: string, args: string): Promise<string> {
  await idle(client, sessionID);
  const result = await client.session.command({
    path: { id: sessionID },
    body: { command: "otto-agent", arguments: args },
    throwOnError: true,
  });
  return result.data.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

interface CrewJson {
  orchestrator?: { sessionID: string };
  agents: Array<{ name: string; state: string; sessionID: string; directory: string; human?: unknown; error?: string; summary?: string }>;
}

/** The folder of the crew whose OpenCode runs in `home` (default: the workspace's project), under otto's data folder. */
export function crewDir(ws: Workspace, home = ws.project): string | undefined {
  const base = path.join(ws.env.XDG_DATA_HOME ?? "", "otto", "crews");
  const real = fs.realpathSync(home);
  for (const project of fs.existsSync(base) ? fs.readdirSync(base) : []) {
    for (const branch of fs.readdirSync(path.join(base, project))) {
      const dir = path.join(base, project, branch);
      try {
        const id = (JSON.parse(fs.readFileSync(path.join(dir, "crew.json"), "utf8")) as { id?: { home: string } }).id;
        if (id?.home === real) return dir;
      } catch {
        // Not written yet.
      }
    }
  }
  return undefined;
}

export function readCrew(ws: Workspace, home?: string): CrewJson {
  try {
    const dir = crewDir(ws, home);
    if (!dir) return { agents: [] };
    return JSON.parse(fs.readFileSync(path.join(dir, "crew.json"), "utf8")) as CrewJson;
  } catch {
    return { agents: [] };
  }
}

export const agentState = (ws: Workspace, name: string, home?: string): string | undefined =>
  readCrew(ws, home).agents.find((a) => a.name === name)?.state;

/** Polls until `check` holds (the limit only stops a broken test from hanging). */
export async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A wake-up of the orchestrator that carries `needle`. */
export const wakeWith = (needle: string) => (req: RecordedRequest) =>
  req.lastRole === "user" && req.lastUser.startsWith(WAKE) && req.lastUser.includes(needle);

/** The orchestrator's wake-up requests, in order. */
export const wakes = (requests: readonly RecordedRequest[]): RecordedRequest[] =>
  requests.filter((r) => r.lastRole === "user" && r.lastUser.startsWith(WAKE));
