import type { Crew } from "./context.ts";
import { claimOwner } from "./inbox.ts";
import type { Orchestrator } from "./orchestrate.ts";
import { unreadFor } from "./policy.ts";
import { reconcileCrew } from "./reconcile.ts";
import { countLine, renderStatusTable } from "./render.ts";
import { ORCHESTRATOR } from "./schema.ts";
import { readCrew, readStream, transact } from "./store.ts";

/**
 * `/otto-agent status`: reconciles after a restart, then the table (people who are needed first),
 * what the reconciliation changed (shown once, whichever verb ran it) and what is unread. The
 * calling session becomes the orchestrator, so a new conversation that looks at the crew is the one
 * woken from then on.
 */
export async function crewStatus(crew: Crew, orchestrator?: Orchestrator): Promise<string> {
  await reconcileCrew(crew, orchestrator);
  const [read, stream] = await Promise.all([readCrew(crew.paths), readStream(crew.paths)]);
  let state = read;
  if (state.agents.length === 0) {
    // In otto's data folder the crew exists from here on: other crews can wake this conversation (`@branch:otto`).
    if (orchestrator && crew.paths.id && state.orchestrator?.sessionID !== orchestrator.sessionID) {
      await transact(
        crew.paths,
        crew.now,
        ({ crew: current }) => {
          current.orchestrator = orchestrator;
          claimOwner(current, crew);
        },
        crew.secrets?.() ?? [],
      );
    }
    return "The crew has no agents. Start one with /otto-agent spawn <name> <task>.";
  }
  let reconciled: string[] = [];
  if (state.reconciled?.length || (orchestrator && state.orchestrator?.sessionID !== orchestrator.sessionID)) {
    const committed = await transact(
      crew.paths,
      crew.now,
      ({ crew: current }) => {
        const shown = current.reconciled ?? [];
        current.reconciled = undefined;
        if (orchestrator) current.orchestrator = orchestrator;
        return shown;
      },
      crew.secrets?.() ?? [],
    );
    [state, reconciled] = [committed.crew, committed.result];
  }
  const lines = [`**Crew** in ${crew.paths.root}: ${countLine(state.agents)}`, ""];
  const human = state.agents.filter((a) => a.human);
  if (human.length) {
    lines.push(
      `**Needs a human**: ${human.map((a) => `@${a.name} (#${a.human?.seq ?? "?"})`).join(", ")}; answer with /otto-agent prompt <name> <text>.`,
      "",
    );
  }
  lines.push(renderStatusTable(state.agents, crew.now()));
  if (reconciled.length) lines.push("", "Reconciled with OpenCode's sessions after a restart:", ...reconciled.map((l) => `- ${l}`));
  const unread = unreadFor(ORCHESTRATOR, state, stream).length;
  if (unread) lines.push("", `${unread} unread message${unread === 1 ? "" : "s"}: /otto-agent messages`);
  return lines.join("\n");
}
