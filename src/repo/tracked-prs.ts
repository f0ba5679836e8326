import fs from "node:fs/promises";
import path from "node:path";
import matter from "gray-matter";
import { z } from "zod";
import { matterOptions } from "../core/index.ts";
import { normalizeRemoteUrl } from "../workspace/index.ts";

/*
 * Tracked PR documents (`$XDG_DATA_HOME/otto/prs/<provider>-<id>.md`, written by the PR
 * features) are read here only to show which worktree a PR uses. Reading is tolerant: a missing
 * folder, an unreadable file or odd frontmatter means "no PR", never an error in a listing.
 */

const field = z.string().min(1).optional().catch(undefined);
const Frontmatter = z.object({ branch: field, repo: field, url: field, title: field, status: field });

export interface TrackedPr {
  /** `<provider>-<id>` from the file name. */
  id: string;
  file: string;
  branch?: string | undefined;
  /** As the document writes it: a URL, `org/repo`, or a tracked repo's name. */
  repo?: string | undefined;
  url?: string | undefined;
  title?: string | undefined;
  status?: string | undefined;
}

/** `$XDG_DATA_HOME/otto/prs` */
export function prDocumentsDir(ottoDataDir: string): string {
  return path.join(ottoDataDir, "prs");
}

export async function readTrackedPrs(dir: string): Promise<TrackedPr[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".md")).sort();
  } catch {
    return [];
  }
  const prs = await Promise.all(
    names.map(async (name): Promise<TrackedPr | undefined> => {
      const file = path.join(dir, name);
      try {
        const data = Frontmatter.parse(matter(await fs.readFile(file, "utf8"), matterOptions()).data);
        return { id: name.slice(0, -3), file, ...data };
      } catch {
        return undefined;
      }
    }),
  );
  return prs.filter((pr): pr is TrackedPr => pr !== undefined);
}

/** The repository URL inside a PR's web URL (GitHub `/pull/N`, Azure DevOps `/pullrequest/N`). */
export function repoUrlOfPr(url: string): string {
  return url.replace(/\/(pull|pullrequest)\/\d+.*$/i, "");
}

/** True when the PR document names this repo: by tracked name, by URL, or as `org/repo`. */
export function prBelongsTo(pr: TrackedPr, repo: { name: string; remoteKeys: readonly string[] }): boolean {
  if (pr.repo === repo.name) return true;
  const candidates = [pr.repo, pr.url === undefined ? undefined : repoUrlOfPr(pr.url)].filter((c): c is string => c !== undefined);
  for (const candidate of candidates) {
    const key = normalizeRemoteUrl(candidate);
    if (key !== undefined && repo.remoteKeys.includes(key)) return true;
    const short = candidate.toLowerCase().replace(/^\/+|\/+$/g, "");
    if (key === undefined && short.includes("/") && repo.remoteKeys.some((k) => k.endsWith(`/${short}`))) return true;
  }
  return false;
}
