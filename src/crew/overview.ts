import type { Env } from "../core/index.ts";
import { formatUsd, sumUsage } from "../cost/index.ts";
import { unreadFor } from "./policy.ts";
import { listCrews } from "./registry.ts";
import { formatMessage } from "./render.ts";
import { ORCHESTRATOR, type Message } from "./schema.ts";
import { readStream } from "./store.ts";

/*
 * `/otto-agent status --all` and `messages --all-crews`: every crew on the machine, read from otto's
 * data folder without taking any lock or changing anything.
 */

export interface CrewSummary {
  project: string;
  branch: string;
  home: string;
  /** Whether an OpenCode process serves it now, and which. */
  running: boolean;
  pid?: number;
  agents: Array<{ name: string; state: string; human: boolean; usd: number }>;
  needsHuman: string[];
  unread: number;
  usd: number;
}

export async function crewOverview(env: Env, isAlive: (pid: number) => boolean): Promise<CrewSummary[]> {
  const out: CrewSummary[] = [];
  for (const crew of await listCrews(env)) {
    const { state } = crew;
    const stream = await readStream(crew.paths);
    const owner = state.owner?.pid ?? state.host?.pid;
    out.push({
      project: crew.project,
      branch: crew.branch,
      home: crew.paths.root,
      running: owner !== undefined && isAlive(owner),
      ...(owner !== undefined ? { pid: owner } : {}),
      agents: state.agents.map((a) => ({ name: a.name, state: a.state, human: a.human !== undefined, usd: a.spend?.usd ?? 0 })),
      needsHuman: state.agents.filter((a) => a.human).map((a) => a.name),
      unread: unreadFor(ORCHESTRATOR, state, stream).length,
      usd: sumUsage(state.agents.flatMap((a) => (a.spend ? [a.spend] : []))).usd,
    });
  }
  return out;
}

export function renderOverview(crews: readonly CrewSummary[]): string {
  if (!crews.length) return "No crew on this machine yet. Start one with /otto-agent spawn <name> <task>.";
  const rows = crews.map((c) => {
    const agents = c.agents.length ? c.agents.map((a) => `${a.name} ${a.state}`).join(", ") : "-";
    return `| ${c.project} | ${c.branch} | ${c.running ? "running" : "not running"} | ${agents} | ${c.needsHuman.map((n) => `@${n}`).join(", ") || "-"} | ${c.unread} | ${formatUsd(c.usd)} |`;
  });
  return [
    `**Crews on this machine**: ${crews.length}`,
    "",
    "| project | branch | OpenCode | agents | needs a human | unread | spent |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** The traffic between crews: every message that came from another crew, by the crew it went to. */
export async function crossCrewMessages(env: Env): Promise<string> {
  const lines: string[] = [];
  for (const crew of await listCrews(env)) {
    const incoming: Message[] = (await readStream(crew.paths)).filter((m) => m.via);
    if (!incoming.length) continue;
    lines.push(`**To ${crew.project}:${crew.branch}** (${incoming.length}):`, ...incoming.map(formatMessage), "");
  }
  return lines.length ? lines.join("\n").trim() : "No messages between crews yet.";
}
