import type { Event } from "@opencode-ai/sdk";
import { loadConfig } from "../config/index.ts";
import { formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { notifierFor, type NotifyEvent } from "../notify/index.ts";
import { compactionContext } from "./compaction.ts";
import { processAlive } from "../core/index.ts";
import { abortableSleep, crewAt, type Crew, type CrewDeps } from "./context.ts";
import { handleCrewEvent } from "./events.ts";
import { processGates } from "./gate.ts";
import { openCodeHost } from "./host.ts";
import { crewPaths, type CrewPaths } from "./paths.ts";
import { crewDirOf, crewPlaceOf, crewProjectOf, type CrewPlace } from "./identity.ts";
import { adoptRenamedCrew, migrateLegacyCrew } from "./migrate.ts";
import { watchInbox, watchedCrews } from "./inbox.ts";
import { listCrews } from "./registry.ts";
import { readCrew, sameCrewId, transact } from "./store.ts";
import { messageUsage, priceLookup, sumUsage, type Usage } from "../cost/index.ts";
import { meterKnownSession } from "./spend.ts";

/** The crew side of one plugin instance: crews by directory, the event hook, the compaction hook. */
export interface CrewService {
  /** The crew a directory belongs to (the main clone's, for a worktree). */
  at(directory: string): Promise<Crew>;
  /** The crew a session is an agent of (an agent in a worktree belongs to its orchestrator's crew); else the directory's. */
  agentCrew(sessionID: string, directory: string): Promise<Crew>;
  /** Starts delivering messages from other crews to this instance's crew (OpenCode started). */
  start(): Promise<void>;
  onEvent(event: Event): void;
  compacting(input: { sessionID: string }, output: { context: string[] }): Promise<void>;
}

type CrewRuntime = Pick<Runtime, "client" | "directory" | "env" | "log"> & Partial<Pick<Runtime, "secrets" | "guard" | "sessions">>;

/** What a session's assistant messages used, priced as the meter prices them (src/cost). */
async function sessionSpend(
  runtime: CrewRuntime,
  priced: (providerID: string, modelID: string) => Promise<boolean>,
  sessionID: string,
  directory: string,
): Promise<Usage> {
  const result = await runtime.client.session.messages({ path: { id: sessionID }, query: { directory } });
  if (result.error !== undefined || !result.data) throw new Error(`could not read the messages of ${sessionID}`);
  const usages: Usage[] = [];
  for (const { info } of result.data) {
    if (info.role !== "assistant") continue;
    usages.push(messageUsage(info, info.cost > 0 || (await priced(info.providerID, info.modelID).catch(() => false))));
  }
  return sumUsage(usages);
}

/** The session an event is about, if any (status, idle, error, a message of it). */
function eventSession(event: Event): string | undefined {
  if (event.type === "message.updated") return event.properties.info.sessionID;
  if (event.type === "session.status" || event.type === "session.idle" || event.type === "session.error") return event.properties.sessionID;
  return undefined;
}

/** Sends config.notify's webhooks and command; the toast is the crew's own (shown where the orchestrator runs). */
async function notifyHuman(runtime: CrewRuntime, root: string, event: NotifyEvent): Promise<void> {
  try {
    const loaded = await loadConfig({ directory: root, env: runtime.env, runtime });
    const notify = notifierFor(runtime, { secrets: loaded.secrets, config: { notify: { ...loaded.config.notify, toast: false } } });
    const report = await notify(event);
    for (const failed of report.failed) runtime.log.log("warn", `crew notification via ${failed.channel} failed`, { error: failed.error });
  } catch (error) {
    runtime.log.log("warn", "could not send the crew's notification", { error: formatError(error) });
  }
}

export function createCrewService(runtime: CrewRuntime, overrides: Partial<CrewDeps> = {}): CrewService {
  const report = (what: string) => (error: unknown) => runtime.log.log("warn", `crew: ${what} failed`, { error: formatError(error) });
  const priced = priceLookup(runtime.client, runtime.directory);
  const meter = runtime.sessions?.meter;
  const deps: CrewDeps = {
    ...(meter ? { meter } : {}),
    spendOf: (sessionID, directory) => sessionSpend(runtime, priced, sessionID, directory),
    host: openCodeHost(runtime.client, (id) => runtime.guard?.track(id)),
    gates: processGates(runtime.log),
    log: runtime.log,
    env: runtime.env,
    now: () => new Date(),
    notify: (root, event) => notifyHuman(runtime, root, event),
    sleep: abortableSleep,
    pid: process.pid,
    isAlive: processAlive,
    secrets: () => runtime.secrets?.values() ?? [],
    ...overrides,
  };
  // What git says about a directory is kept for the process; the project's name and whether it is
  // tracked are read again on every look, so /otto-repo add takes effect without a restart.
  const places = new Map<string, Promise<CrewPlace>>();
  const placeOf = (directory: string): Promise<CrewPlace> => {
    let place = places.get(directory);
    if (!place) {
      place = crewPlaceOf(directory, runtime.env);
      places.set(directory, place);
      place.catch(() => places.delete(directory));
    }
    return place;
  };
  const at = async (directory: string): Promise<Crew> => {
    const place = await placeOf(directory);
    const id = { ...place, ...(await crewProjectOf(directory, place, runtime.env)) };
    const paths: CrewPaths = {
      ...crewPaths(id.home, crewDirOf(id, runtime.env)),
      id: { project: id.project, branch: id.branch, home: id.home, tracked: id.tracked },
    };
    await migrateLegacyCrew(id, paths, runtime.env).catch(report("moving the crew to otto's data folder"));
    await adoptRenamedCrew(id.home, id.branch, paths, runtime.env).catch(report("moving the crew to its project's new name"));
    const crew: Crew = { ...deps, paths };
    // A crew that exists records who it is now (tracked since, renamed): other crews read that.
    const recorded = await readCrew(paths).catch(() => undefined);
    if (recorded?.id && !sameCrewId(recorded.id, paths.id)) {
      await transact(paths, deps.now, () => undefined, deps.secrets?.() ?? []).catch(report("recording the crew's project"));
    }
    watchInbox(crew, () => at(directory));
    return crew;
  };
  const agentCrew = async (sessionID: string, directory: string): Promise<Crew> => {
    const own = await at(directory);
    const hasAgent = async (c: Pick<Crew, "paths">) => (await readCrew(c.paths)).agents.some((a) => a.sessionID === sessionID);
    if (await hasAgent(own)) return own;
    for (const crew of watchedCrews()) if (await hasAgent(crew).catch(() => false)) return crew;
    const found = (await listCrews(runtime.env)).find((c) => c.state.agents.some((a) => a.sessionID === sessionID));
    return found ? { ...deps, paths: { ...found.paths, id: found.state.id } } : own;
  };
  // Only the meter and the registry of accounts are used to charge a known session: no crew file is read.
  const meterCrew = deps.meter ? crewAt(runtime.directory, deps) : undefined;

  // Events are handled one after another, in arrival order: an agent's session.error must be
  // recorded before the session.idle that follows it (both wait on the same locked state file).
  let handled: Promise<void> = Promise.resolve();
  return {
    at,
    agentCrew,
    async start() {
      await at(runtime.directory);
    },
    onEvent(event) {
      deps.gates.observe(event);
      if (meterCrew) meterKnownSession(meterCrew, eventSession(event));
      if (event.type !== "session.idle" && event.type !== "session.error") return;
      // The agent may belong to a crew of another directory of this process (a worktree's agent, its orchestrator's crew).
      handled = handled
        .then(async () => {
          const own = await at(runtime.directory);
          for (const crew of [own, ...watchedCrews().filter((c) => c.paths.dir !== own.paths.dir)]) await handleCrewEvent(crew, event);
        })
        .catch(report(event.type));
    },
    async compacting(input, output) {
      try {
        const text = await compactionContext(await at(runtime.directory), input.sessionID, runtime.directory);
        if (text) output.context.push(text);
      } catch (error) {
        report("compaction context")(error);
      }
    },
  };
}

const services = new WeakMap<object, CrewService>();

/** The crew service of a plugin instance (one per runtime); `overrides` apply when it is made (tests fake OpenCode). */
export function crewFor(runtime: CrewRuntime, overrides?: Partial<CrewDeps>): CrewService {
  let service = services.get(runtime);
  if (!service) {
    service = createCrewService(runtime, overrides);
    services.set(runtime, service);
  }
  return service;
}
