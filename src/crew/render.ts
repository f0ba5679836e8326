import { formatUsage, formatUsd } from "../cost/index.ts";
import { sortForStatus } from "./policy.ts";
import { AGENT_STATES, SYSTEM, type Agent, type Message } from "./schema.ts";
import { cell, oneLine } from "../core/index.ts";
import { untrusted } from "../prompts/index.ts";

/*
 * Plain text for people and models: messages, the status table, ages. Pure.
 */

const VERB: Partial<Record<Message["kind"], string>> = { ask: " asks", complete: " completed" };

/** `#4 alice asks: Which port?`; continuation lines indented. */
export function formatMessage(m: Message): string {
  // Another crew's message is text from another session: data for the reader, never a command.
  if (m.via)
    return `#${m.seq} from another crew, @${m.from}:\n${untrusted("message", m.text.trim(), `@${m.from}, an agent of another crew`)}`;
  const who = m.kind === "prompt" && m.to ? `${m.from} → @${m.to}` : `${m.from}${VERB[m.kind] ?? ""}`;
  const text = m.text.trim().replace(/\n/g, "\n   ");
  return `#${m.seq} ${m.from === SYSTEM ? "crew notice" : who}: ${text}`;
}

export function formatMessages(messages: readonly Message[]): string {
  return messages.map(formatMessage).join("\n");
}

/** `45s`, `12m`, `3h`, `2d`. */
export function formatAge(since: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

function notes(agent: Agent): string {
  const out: string[] = [];
  if (agent.human) out.push(`NEEDS A HUMAN (#${agent.human.seq}): ${oneLine(agent.human.text, 80)}`);
  if (agent.question && !agent.human) out.push(`question #${agent.question.seq}: ${oneLine(agent.question.text, 80)}`);
  if (agent.error) out.push(`error: ${oneLine(agent.error, 80)}`);
  if (agent.summary && agent.state === "done") out.push(`summary: ${oneLine(agent.summary, 80)}`);
  if (agent.worktree) out.push(`worktree ${agent.worktree.dir} (${agent.worktree.branch})`);
  if (agent.note) out.push(agent.note);
  return out.join("; ") || "-";
}

/** "12.3k tokens, $0.42 of $1.00": what its session used (when its last turn ended), and its budget. */
export function spentCell(agent: Pick<Agent, "spend" | "budget">): string {
  const spent = agent.spend ? formatUsage(agent.spend) : "-";
  return agent.budget !== undefined ? `${spent} of ${formatUsd(agent.budget)}` : spent;
}

/** The `/otto-agent status` table, people who are needed first. */
export function renderStatusTable(agents: readonly Agent[], now: Date): string {
  const rows = sortForStatus(agents).map(
    (a) =>
      `| ${a.name} | ${a.state}${a.human ? " (human)" : ""}${a.state === "stopped" ? " (budget)" : ""} | ${cell(a.task, 60)} | ${formatAge(a.createdAt, now)} | ${formatAge(a.activeAt, now)} ago | ${spentCell(a)} | ${cell(notes(a))} |`,
  );
  return ["| agent | state | task | age | last activity | spent | notes |", "|---|---|---|---|---|---|---|", ...rows].join("\n");
}

/** `3 agents: 1 blocked, 2 done`. */
export function countLine(agents: readonly Agent[]): string {
  const counts = AGENT_STATES.map((s) => [s, agents.filter((a) => a.state === s).length] as const).filter(([, n]) => n > 0);
  const noun = agents.length === 1 ? "agent" : "agents";
  return `${agents.length} ${noun}${counts.length ? `: ${counts.map(([s, n]) => `${n} ${s}`).join(", ")}` : ""}`;
}
