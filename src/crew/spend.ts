import { formatError } from "../core/index.ts";
import { Account, formatCost, formatUsage, formatUsd, type Usage } from "../cost/index.ts";
import type { Crew } from "./context.ts";
import { SYSTEM, type Agent, type NewMessage } from "./schema.ts";
import { readCrew, transact } from "./store.ts";
import { dispatch } from "./wake.ts";

/*
 * What crew agents spend. Every agent's session is charged to an account of its own (labels: the
 * repository and the agent), so the ledger has each of its calls, however many times it is woken.
 * The account stops the agent in flight when its budget is reached; when a turn ends, the spend on
 * record is read from the session's messages (exact, whichever process or plugin instance ran it).
 */

const REGISTRY = Symbol.for("opencode-otto.crew.accounts");

/**
 * The agents' accounts of this process, by session. Per process like the prompt gates: an agent in
 * a worktree is served by another plugin instance (its events reach that instance's meter), and
 * both instances must charge the one account.
 */
function accounts(): Map<string, { root: string; account: Account }> {
  const holder = globalThis as { [REGISTRY]?: Map<string, { root: string; account: Account }> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** "$0.42 of $1.00", or the spend alone without a budget. */
export function spendText(agent: Pick<Agent, "spend" | "budget">): string {
  const spent = agent.spend ? formatUsage(agent.spend) : "nothing yet";
  return agent.budget !== undefined ? `${spent} (budget ${formatUsd(agent.budget)})` : spent;
}

/** Whether the spend on record reached the agent's budget. */
export function overBudget(agent: Pick<Agent, "spend" | "budget">): boolean {
  return agent.budget !== undefined && (agent.spend?.usd ?? 0) >= agent.budget;
}

/**
 * Charges the agent's session to its account in this plugin instance's meter (idempotent): at
 * spawn, before each prompt otto sends, and on its events, so an agent woken after an OpenCode
 * restart or served by a worktree's instance is counted too. The account's budget is what is left
 * of the agent's.
 */
export function meterAgent(crew: Crew, agent: Pick<Agent, "name" | "sessionID" | "createdAt" | "budget" | "spend">): void {
  if (!crew.meter) return;
  const known = accounts();
  const entry = known.get(agent.sessionID);
  let account = entry?.root === crew.paths.root ? entry.account : undefined;
  if (!account) {
    const left = agent.budget !== undefined ? Math.max(agent.budget - (agent.spend?.usd ?? 0), 0) : undefined;
    account = new Account(`crew ${agent.name}`, {
      labels: { repo: crew.paths.root, crew: agent.name, run: agent.createdAt },
      ...(left !== undefined ? { budget: { usd: left } } : {}),
      onStop: () => {
        stopForBudget(crew, agent.name).catch((error: unknown) =>
          crew.log.log("warn", `crew: could not stop ${agent.name} at its budget`, { error: formatError(error) }),
        );
      },
    });
    known.set(agent.sessionID, { root: crew.paths.root, account });
  }
  crew.meter.track(agent.sessionID, account);
}

/** Whether the agent of this session was stopped at its budget by its account here (its turn then ends with an error). */
export function stoppedAtBudget(sessionID: string): boolean {
  return accounts().get(sessionID)?.account.stopped !== undefined;
}

/** An event about a session whose agent has an account here: this instance's meter charges it too. */
export function meterKnownSession(crew: Crew, sessionID: string | undefined): void {
  if (!sessionID || !crew.meter) return;
  const entry = accounts().get(sessionID);
  if (entry) crew.meter.track(sessionID, entry.account);
}

/** The stream's notice that an agent was stopped at its budget; it wakes otto, as a failure does. */
export function budgetNotice(agent: Pick<Agent, "name" | "spend" | "budget">): NewMessage {
  return {
    from: SYSTEM,
    kind: "failed",
    text: `@${agent.name} stopped: budget reached, spent ${budgetLine(agent)}. It takes no more prompts.`,
    mentions: [],
  };
}

function budgetLine(agent: Pick<Agent, "spend" | "budget">): string {
  return `${agent.spend ? formatCost(agent.spend) : "$0.00"} of ${formatUsd(agent.budget ?? 0)}`;
}

/** Records what the agent's session has used (a turn ended); stops it when that reaches its budget. */
export async function recordSpend(crew: Crew, agent: Pick<Agent, "name" | "sessionID" | "directory">): Promise<void> {
  const spend = await readSpend(crew, agent);
  if (!spend) return;
  await settle(crew, agent.name, spend);
}

async function readSpend(crew: Crew, agent: Pick<Agent, "name" | "sessionID" | "directory">): Promise<Usage | undefined> {
  try {
    return await crew.spendOf?.(agent.sessionID, agent.directory);
  } catch (error) {
    crew.log.log("warn", `crew: could not read what ${agent.name} spent`, { error: formatError(error) });
    return undefined;
  }
}

/** The agent's budget was reached (its account stopped it in flight): read its spend, stop it. */
export async function stopForBudget(crew: Crew, name: string): Promise<void> {
  const agent = (await readCrew(crew.paths)).agents.find((a) => a.name === name);
  if (!agent) return;
  await settle(crew, name, (await readSpend(crew, agent)) ?? agent.spend, true);
}

/**
 * Writes the spend; an agent over its budget (or stopped by its account) becomes `stopped`, its
 * queued prompts are dropped, its turn is aborted, otto is told through the stream and the human by
 * one notification.
 */
async function settle(crew: Crew, name: string, spend: Usage | undefined, reached = false): Promise<void> {
  const committed = await transact(
    crew.paths,
    crew.now,
    ({ crew: state, post, now }) => {
      const agent = state.agents.find((a) => a.name === name);
      if (!agent) return undefined;
      if (spend) agent.spend = spend;
      if (agent.state === "stopped" || agent.budget === undefined || !(reached || overBudget(agent))) return undefined;
      Object.assign(agent, {
        state: "stopped",
        resume: undefined,
        question: undefined,
        error: `budget reached: spent ${budgetLine(agent)}`,
        activeAt: now.toISOString(),
      });
      post(budgetNotice(agent));
      return { ...agent };
    },
    crew.secrets?.() ?? [],
  );
  const stopped = committed.result;
  if (!stopped) return;
  crew.gates.clear(stopped.sessionID);
  await crew.host
    .abort(stopped.sessionID, stopped.directory)
    .catch((error: unknown) => crew.log.log("warn", `crew: could not abort ${name}`, { error: formatError(error) }));
  dispatch(crew, committed.posted, committed.crew);
  await crew.notify(crew.paths.root, {
    kind: "human_needed",
    title: `@${name} stopped at its budget`,
    text: `@${name} spent ${budgetLine(stopped)} and was stopped; its work so far is in its session (/otto-agent peek ${name}).`,
    facts: { agent: name, spent: budgetLine(stopped), crew: crew.paths.root },
  });
}
