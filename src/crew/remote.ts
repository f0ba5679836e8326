import type { Address } from "./addresses.ts";
import type { Crew } from "./context.ts";
import type { CrewPaths } from "./paths.ts";
import { addressList, listCrews, reachable, type KnownCrew } from "./registry.ts";
import { HUMAN, ORCHESTRATOR, type Via } from "./schema.ts";
import { transact } from "./store.ts";

/*
 * A message to another crew (`@branch:agent`, `@project:branch:agent`): appended to that crew's
 * stream under its lock, marked with who sent it. The OpenCode process that owns that crew notices
 * it (inbox.ts) and wakes the agent or orchestrator; when none runs, it waits in the stream.
 */

type CrewId = NonNullable<CrewPaths["id"]>;

export interface RemoteResult {
  address: string;
  /** delivered: the crew's OpenCode is running; queued: it is delivered when one starts there. */
  outcome?: "delivered" | "queued";
  /** Why it was not sent, with the addresses that exist. */
  error?: string;
}

function resolve(address: Address, from: CrewId, crews: readonly KnownCrew[]): KnownCrew | string {
  const project = address.project ?? from.project;
  const inProject = crews.filter((c) => c.project === project);
  if (project !== from.project && !(from.tracked === true && inProject.some((c) => reachable(c, from)))) {
    return `@${address.text}: messages go to another project only between repos you track (/otto-repo add); ${from.tracked ? `'${project}' is not tracked` : `this project ('${from.project}') is not tracked`}.`;
  }
  const matches = inProject.filter((c) => c.branch === address.branch && reachable(c, from));
  const known = addressList(crews, from);
  const existing = known.length ? `Addresses: ${known.join(", ")}.` : "No other crew can be reached from here yet.";
  if (matches.length !== 1)
    return `@${address.text}: ${matches.length ? "ambiguous" : `no crew of ${project} on branch ${address.branch ?? "?"}`}. ${existing}`;
  const crew = matches[0] as KnownCrew;
  // `@…:human` escalates where that crew runs (its toast and notification), like a local `@human`.
  if (address.agent !== ORCHESTRATOR && address.agent !== HUMAN && !crew.state.agents.some((a) => a.name === address.agent)) {
    return `@${address.text}: the crew of ${project}:${address.branch ?? ""} has no agent '${address.agent}'. ${existing}`;
  }
  return crew;
}

/**
 * Sends `text` from `via` to every remote address; returns what became of each. Addresses in one
 * crew make one message there that mentions each of them, so its stream holds the text once.
 */
export async function sendRemote(crew: Crew, from: CrewId, via: Via, text: string, addresses: readonly Address[]): Promise<RemoteResult[]> {
  if (!addresses.length) return [];
  const crews = await listCrews(crew.env);
  const results: RemoteResult[] = [];
  const targets = new Map<string, { target: KnownCrew; addresses: Address[] }>();
  for (const address of addresses) {
    const target = resolve(address, from, crews);
    if (typeof target === "string") results.push({ address: address.text, error: target });
    else {
      const group = targets.get(target.paths.dir) ?? { target, addresses: [] };
      group.addresses.push(address);
      targets.set(target.paths.dir, group);
    }
  }
  for (const { target, addresses: named } of targets.values()) {
    const mentions = [...new Set(named.map((a) => a.agent))];
    const committed = await transact(
      target.paths,
      crew.now,
      ({ crew: state, post }) => {
        post({ from: `${via.project}:${via.branch}:${via.agent}`, kind: "say", text, mentions, via });
        return state.owner?.pid;
      },
      crew.secrets?.() ?? [],
    );
    const owner = committed.result;
    const outcome = owner !== undefined && crew.isAlive(owner) ? "delivered" : "queued";
    for (const address of named) results.push({ address: address.text, outcome });
  }
  // In the order they were written.
  return addresses.flatMap((a) => results.filter((r) => r.address === a.text));
}
