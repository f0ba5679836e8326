import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OttoError, withFileLock, writeFileAtomic, xdgPaths, type Env, formatZodIssues } from "../core/index.ts";
import { documentKey, ProviderName, type PrLocator } from "../pr/index.ts";
import { ReviewComment } from "./envelope.ts";

/*
 * The one thing a one-shot review keeps: its draft, `$XDG_DATA_HOME/otto/pr-review/<key>.json`
 * (key as the PR store's: `github-<owner>-<repo>-<n>`, `ado-<org>-<n>`), until the user posts from
 * it with /pr-review post. A new review of the same PR replaces it. The PR is never tracked.
 */

export const DraftComment = ReviewComment.extend({ id: z.number().int().positive(), inDiff: z.boolean() });

export const Draft = z.object({
  version: z.literal(1),
  pr: z.object({
    provider: ProviderName,
    repo: z.string(),
    number: z.number().int().positive(),
    url: z.string(),
    title: z.string(),
    sourceBranch: z.string(),
    targetBranch: z.string(),
    /** The head commit the forge reported; review comments are anchored to it. */
    headSha: z.string(),
  }),
  /** The commit otto checked out and reviewed. */
  reviewedSha: z.string(),
  model: z.string(),
  createdAt: z.string(),
  summary: z.string(),
  comments: z.array(DraftComment),
  /** Ids already posted, so a second `post` never repeats them. */
  posted: z.array(z.number().int()).default([]),
});
export type Draft = z.infer<typeof Draft>;

export function draftsDir(env: Env): string {
  return path.join(xdgPaths(env).ottoDataDir, "pr-review");
}

export function draftFile(dir: string, pr: PrLocator): string {
  return path.join(dir, `${documentKey(pr)}.json`);
}

export async function saveDraft(dir: string, draft: Draft): Promise<string> {
  const file = draftFile(dir, draft.pr);
  // 0600: review comments can quote code of private repositories.
  await withFileLock(file, () => writeDraftFile(file, draft));
  return file;
}

async function readOne(file: string): Promise<Draft> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(file, "utf8"));
  } catch (error) {
    throw new OttoError(
      "pr_review_draft",
      `Cannot read the review draft ${file}: ${error instanceof Error ? error.message : String(error)}.`,
      "Review the PR again: /pr-review <url>.",
    );
  }
  const draft = Draft.safeParse(parsed);
  if (!draft.success)
    throw new OttoError(
      "pr_review_draft",
      `The review draft ${file} is not valid (${formatZodIssues(draft.error.issues, { inline: true })}).`,
      "Review the PR again: /pr-review <url>.",
    );
  return draft.data;
}

/**
 * The draft of `pr` when given, else the newest draft. Throws when there is none, so `post`
 * explains what to run first.
 */
export async function readDraft(dir: string, pr?: PrLocator): Promise<{ file: string; draft: Draft }> {
  const none = new OttoError(
    "pr_review_no_draft",
    pr ? `There is no review draft for PR #${pr.number} (${pr.repo}).` : "There is no review draft to post.",
    "Review the PR first: /pr-review <url|number>.",
  );
  if (pr) {
    const file = draftFile(dir, pr);
    try {
      await fs.access(file);
    } catch {
      throw none;
    }
    return { file, draft: await readOne(file) };
  }
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch {
    throw none;
  }
  const dated = await Promise.all(
    names.map(async (name) => ({ file: path.join(dir, name), mtime: (await fs.stat(path.join(dir, name))).mtimeMs })),
  );
  const newest = dated.sort((a, b) => b.mtime - a.mtime)[0];
  if (!newest) throw none;
  return { file: newest.file, draft: await readOne(newest.file) };
}

/** Replaces the draft in `file`; the caller holds its lock (withFileLock). */
export async function writeDraftFile(file: string, draft: Draft): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(draft, null, 2)}\n`, 0o600);
}

export { readOne as readDraftFile };
