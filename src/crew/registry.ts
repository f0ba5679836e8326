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

/** The addresses that exist, for an error: `feature/b:worker` for this project's crews, `p:b:a` for others. */
export function addressList(crews: readonly KnownCrew[], from: { project: string; branch: string }): string[] {
  const out: string[] = [];
  for (const crew of crews) {
    if (crew.project === from.project && crew.branch === from.branch) continue;
    const prefix = crew.project === from.project ? `${crew.branch}:` : `${crew.project}:${crew.branch}:`;
    for (const name of ["otto", ...crew.state.agents.map((a) => a.name)]) out.push(`@${prefix}${name}`);
  }
  return out;
}
