import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { crewsDir } from "./identity.ts";
import { crewPaths, type CrewPaths } from "./paths.ts";
import type { CrewFile } from "./schema.ts";
import { readCrew } from "./store.ts";

/** One crew on this machine, as its files say. */
export interface KnownCrew {
  project: string;
  branch: string;
  paths: CrewPaths;
  state: CrewFile;
}

/** Every crew under otto's data folder (a crew whose file does not parse is left out: its own process reports it). */
export async function listCrews(env: Env): Promise<KnownCrew[]> {
  const base = crewsDir(env);
  const out: KnownCrew[] = [];
  const projects = await fs.readdir(base).catch(() => [] as string[]);
  for (const project of projects.sort()) {
    const branches = await fs.readdir(path.join(base, project)).catch(() => [] as string[]);
    for (const branch of branches.sort()) {
      const dir = path.join(base, project, branch);
      try {
        const probe = crewPaths(dir, dir);
        const state = await readCrew(probe);
        if (!state.id) continue;
        out.push({ project: state.id.project, branch: state.id.branch, paths: crewPaths(state.id.home, dir), state });
      } catch {
        // See above.
      }
    }
  }
  return out;
}

/** The sending crew, as far as reaching others goes. */
export interface Sender {
  project: string;
  branch: string;
  tracked?: boolean;
}

/**
 * Whether `from` may write to `crew`: any crew of its own project; another project's only when both
 * are repos the user tracks (the crew records it, identity.ts).
 */
export function reachable(crew: KnownCrew, from: Sender): boolean {
  return crew.project === from.project || (from.tracked === true && crew.state.id?.tracked === true);
}

/**
 * The addresses `from` can use, for an error: `feature/b:worker` for this project's crews, `p:b:a`
 * for other projects' tracked ones. Crews it could not write to are left out, so nothing offered is refused.
 */
export function addressList(crews: readonly KnownCrew[], from: Sender): string[] {
  const out: string[] = [];
  for (const crew of crews) {
    if ((crew.project === from.project && crew.branch === from.branch) || !reachable(crew, from)) continue;
    const prefix = crew.project === from.project ? `${crew.branch}:` : `${crew.project}:${crew.branch}:`;
    for (const name of ["otto", ...crew.state.agents.map((a) => a.name)]) out.push(`@${prefix}${name}`);
  }
  return out;
}
