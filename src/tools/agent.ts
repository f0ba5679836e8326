import type { ToolDefinition } from "@opencode-ai/plugin";
import { OttoError, processAlive } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import {
  archiveAgents,
  agentWorktree,
  checkName,
  crewFor,
  crewStatus,
  crewOverview,
  crossCrewMessages,
  renderOverview,
  findAgent,
  formatMessages,
  isOneShotRun,
  killAgent,
  promptAgent,
  readMessages,
  reconcileCrew,
  snapshot,
  spawnAgent,
  waitForAgent,
  type Agent,
  type Crew,
  type Orchestrator,
} from "../crew/index.ts";
import { loadConfig } from "../config/index.ts";
import { formatUsd, runBudget } from "../cost/index.ts";
import { formatModel, parseModel, renderDialog } from "../session/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb, cwdOf } from "./command.ts";

const str = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);
const orchestratorOf = (ctx: CommandContext): Orchestrator => ({ sessionID: ctx.tool.sessionID, directory: cwdOf(ctx) });

/**
 * The crew, reconciled first if OpenCode restarted since it last ran (before any verb, so dead
 * agents are reported whichever verb comes first). `orchestrator`: the verb speaks for the crew.
 */
async function crewOf(ctx: CommandContext, orchestrator?: Orchestrator): Promise<Crew> {
  const crew = await crewFor(ctx.runtime).at(cwdOf(ctx));
  await reconcileCrew(crew, orchestrator);
  return crew;
}
const MANY = { min: 0, max: 1000 };

async function checkAgentExists(crew: Crew, directory: string, agent: string): Promise<void> {
  const names = await crew.host.agentNames(directory);
  if (!names.includes(agent)) {
    throw new OttoError(
      "crew_agent_type",
      `OpenCode has no agent named '${agent}'.`,
      `Use one of: ${names.join(", ")}; or omit --agent for otto-crew.`,
    );
  }
}

function settledText(agent: Agent, unread: string): string {
  const head =
    agent.state === "done"
      ? `@${agent.name} completed.`
      : agent.state === "blocked"
        ? `@${agent.name} is blocked on a question${agent.question?.human ? " for the human" : ""}; answer with /otto-agent prompt ${agent.name} <text>.`
        : agent.human
          ? `@${agent.name} needs a human.`
          : `@${agent.name} is ${agent.state}${agent.error ? `: ${agent.error}` : ""}.`;
  return unread ? `${head}\n\n${unread}` : head;
}

const spawn: Verb = {
  path: ["spawn"],
  args: "<name> [--agent a] [--model p/m] [--worktree w [--repo r]] [--budget USD] [--wait] <task>",
  summary:
    "Start a background agent on a task (returns at once; --wait blocks until it completes or asks; --budget stops it when its spend reaches it)",
  options: {
    agent: { type: "string" },
    model: { type: "string" },
    worktree: { type: "string" },
    repo: { type: "string" },
    wait: { type: "boolean" },
    budget: { type: "string" },
  },
  positionals: { min: 2, max: 1000 },
  async run({ values, positionals }, ctx) {
    const [name = "", ...words] = positionals;
    const orchestrator = orchestratorOf(ctx);
    const crew = await crewOf(ctx, orchestrator);
    checkName(name, (await snapshot(crew)).state);
    const agent = str(values, "agent");
    if (agent) await checkAgentExists(crew, orchestrator.directory, agent);
    const limits = (await loadConfig({ directory: orchestrator.directory, env: ctx.runtime.env, runtime: ctx.runtime })).config.limits;
    const budget = runBudget({ budget: str(values, "budget") }, { usd: limits.crew_usd_per_agent })?.usd;
    const modelFlag = str(values, "model");
    const model = modelFlag ? parseModel(modelFlag) : (await crew.host.lastRole(orchestrator.sessionID, orchestrator.directory)).model;
    const worktreeName = str(values, "worktree");
    ctx.progress(`otto agent: starting ${name}`);
    const worktree = worktreeName
      ? await agentWorktree({ cwd: orchestrator.directory, name: worktreeName, repo: str(values, "repo"), env: ctx.runtime.env })
      : undefined;
    const spawned = await spawnAgent(
      crew,
      {
        name,
        task: words.join(" "),
        orchestrator,
        agent,
        model,
        directory: worktree?.dir ?? orchestrator.directory,
        worktree,
        ...(budget !== undefined ? { budget } : {}),
      },
      (await snapshot(crew)).state,
    );
    const where = spawned.worktree ? `worktree ${spawned.worktree.dir} (branch ${spawned.worktree.branch})` : spawned.directory;
    const lines = [
      `Spawned @${name} (agent ${spawned.agent}${spawned.model ? `, ${formatModel(spawned.model)}` : ""}) in ${where}${budget !== undefined ? `, with a budget of ${formatUsd(budget)}` : ""}.`,
    ];
    if (isOneShotRun())
      lines.push(
        "Note: `opencode run` exits when this turn ends, and the agent stops with it; run the crew from the TUI or `opencode serve`.",
      );
    if (values.wait !== true) {
      lines.push(
        "It works in the background: you are woken when it asks, completes, fails or mentions @otto. /otto-agent status shows the crew.",
      );
      return { title: `otto agent: spawned ${name}`, output: lines.join("\n") };
    }
    ctx.progress(`otto agent: waiting for ${name}`);
    const settled = await waitForAgent(crew, orchestrator, name, ctx.tool.abort);
    if (!settled)
      return { title: `otto agent: spawned ${name}`, output: `${lines.join("\n")}\nStopped waiting (cancelled); it keeps working.` };
    lines.push(settledText(settled.agent, formatMessages(settled.unread)));
    return { title: `otto agent: ${name} ${settled.agent.state}`, output: lines.join("\n") };
  },
};

const status: Verb = {
  path: ["status"],
  args: "[--all [--json]]",
  summary: "Every agent: state, task, age, last activity, what it spent; who needs the human first (--all: every crew on this machine)",
  options: { all: { type: "boolean" }, json: { type: "boolean" } },
  async run({ values }, ctx) {
    if (values.all === true || values.json === true) {
      const crews = await crewOverview(ctx.runtime.env, processAlive);
      return { title: "otto agent: every crew", output: values.json === true ? JSON.stringify(crews, null, 2) : renderOverview(crews) };
    }
    return { title: "otto agent: status", output: await crewStatus(await crewOf(ctx, orchestratorOf(ctx)), orchestratorOf(ctx)) };
  },
};

/** `list`: the same listing, by the name people look for it under. */
const list: Verb = { ...status, path: ["list"], summary: "Same as status" };

const messages: Verb = {
  path: ["messages"],
  args: "[--all] [--all-crews]",
  summary:
    "The crew's message stream: unread first (--all: the earlier ones too); marks them read. --all-crews: the messages between crews",
  options: { all: { type: "boolean" }, "all-crews": { type: "boolean" } },
  async run({ values }, ctx) {
    if (values["all-crews"] === true) return crossCrewMessages(ctx.runtime.env);
    const { unread, earlier } = await readMessages(await crewOf(ctx, orchestratorOf(ctx)), orchestratorOf(ctx));
    const lines = [unread.length ? `**Unread** (${unread.length}):\n${formatMessages(unread)}` : "No unread messages."];
    if (values.all === true)
      lines.push(earlier.length ? `**Earlier** (${earlier.length}):\n${formatMessages(earlier)}` : "No earlier messages.");
    else if (earlier.length) lines.push(`(${earlier.length} earlier: /otto-agent messages --all)`);
    return lines.join("\n\n");
  },
};

const prompt: Verb = {
  path: ["prompt"],
  args: "<name> <text>",
  summary: "Answer an agent's question or redirect it (wakes it; queued while it is busy)",
  positionals: { min: 2, max: 1000 },
  async run({ positionals }, ctx) {
    const [name = "", ...words] = positionals;
    const { message, queued } = await promptAgent(await crewOf(ctx, orchestratorOf(ctx)), orchestratorOf(ctx), name, words.join(" "));
    return `Sent #${message.seq} to @${name}${queued ? "; it is busy, so it gets the message when its current turn ends" : ""}.`;
  },
};

const peek: Verb = {
  path: ["peek"],
  args: "<name>",
  summary: "An agent's last output",
  positionals: { min: 1, max: 1 },
  async run({ positionals }, ctx) {
    const crew = await crewOf(ctx);
    const agent = findAgent((await snapshot(crew)).state, positionals[0] ?? "");
    const last = (await crew.host.messages(agent.sessionID, agent.directory, 20)).findLast((m) => m.info.role === "assistant");
    const head = `@${agent.name} is ${agent.state} (session ${agent.sessionID}).`;
    return last ? `${head}\n\n${renderDialog([last], { maxToolChars: 1500 })}` : `${head} No output yet.`;
  },
};

const kill: Verb = {
  path: ["kill"],
  args: "<name>",
  summary: "Abort an agent's turn and drop its queued prompts (it stays, idle; prompt it to resume)",
  positionals: { min: 1, max: 1 },
  async run({ positionals }, ctx) {
    const agent = await killAgent(await crewOf(ctx, orchestratorOf(ctx)), orchestratorOf(ctx), positionals[0] ?? "");
    return `Stopped @${agent.name}; it is idle. /otto-agent prompt ${agent.name} <text> resumes it, /otto-agent archive removes it.`;
  },
};

const archive: Verb = {
  path: ["archive"],
  args: "[name...]",
  summary: "Move finished (done, failed, idle, stopped) agents, or the named ones, out of the crew",
  positionals: MANY,
  async run({ positionals }, ctx) {
    const crew = await crewOf(ctx);
    const archived = await archiveAgents(crew, positionals);
    if (!archived.length) return "Nothing to archive: no agent is done, failed or idle.";
    return `Archived ${archived.map((a) => `@${a.name} (${a.state})`).join(", ")} to ${crew.paths.archive}; their names are free again.`;
  },
};

/** /otto-agent: the orchestrator's side of the crew. */
export function agentCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    {
      name: "otto-agent",
      summary: "background agents (the crew): spawn, status, list, messages, prompt, peek, kill, archive",
      verbs: [spawn, status, list, messages, prompt, peek, kill, archive],
    },
    runtime,
  );
}
