import type { GitRun } from "../workspace/index.ts";
import { parseTrailers, type OttoTrailer } from "./commit-message.ts";

/** One commit otto made for a spec, found by its trailer. */
export interface OttoCommit {
  sha: string;
  trailer: OttoTrailer;
  message: string;
}

const RECORD = "\x1e";
const FIELD = "\x1f";

/**
 * Otto's commits for a spec, newest first, read from `git log` (the trailers are the record of
 * what is committed: a phase whose trailer is in the history is never committed again).
 */
export async function ottoCommits(git: GitRun, cwd: string, slug: string): Promise<OttoCommit[]> {
  const result = await git(["log", "-F", `--grep=: ${slug}`, `--format=%H${FIELD}%B${RECORD}`], { cwd });
  // A repository without commits has no log: nothing is committed yet.
  if (result.exitCode !== 0) return [];
  const out: OttoCommit[] = [];
  for (const record of result.stdout.split(RECORD)) {
    const [sha = "", body = ""] = record.replace(/^\s+/, "").split(FIELD);
    if (!sha) continue;
    for (const trailer of parseTrailers(body)) if (trailer.slug === slug) out.push({ sha, trailer, message: body.trim() });
  }
  return out;
}

/** Committed phases of a spec: group → sha of the newest commit for it. */
export function committedPhases(commits: readonly OttoCommit[]): Map<number, string> {
  const map = new Map<number, string>();
  for (const c of commits) if (c.trailer.kind === "phase" && !map.has(c.trailer.group)) map.set(c.trailer.group, c.sha);
  return map;
}
