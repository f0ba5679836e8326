import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "../core/index.ts";
import type { ChangeSet, ChangedFile, ChangeStatus } from "./detect-weakened-checks.ts";
import { MANIFESTS } from "./manifest-changes.ts";
import { gitFailure } from "./git-errors.ts";
import { runGit } from "./git.ts";
import { changesSince, type GitRun, type TreeSnapshot } from "./snapshot.ts";

/*
 * Everything a PR flow's sessions changed since the flow started, as otto would push it: what they
 * committed themselves and what they left in the tree, against the commit the flow started from.
 * The diff is read with `--text --no-ext-diff --no-textconv` and fixed prefixes, so neither the
 * repository's attributes (`-diff` makes git print "Binary files differ") nor the user's diff
 * settings decide what the detector and the reviewing model see.
 */

/** Flags that make git show the bytes, whatever attributes and diff drivers say. */
export const TEXT_DIFF = ["--text", "--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative"];

const STATUS: Record<string, ChangeStatus> = { A: "added", M: "modified", T: "modified", D: "deleted", R: "renamed", C: "added" };

/** Pure: `git diff --name-status -z` output as changed files. */
export function parseNameStatus(text: string): ChangedFile[] {
  const fields = text.split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length;) {
    const code = fields[i++] ?? "";
    if (!code) continue;
    const letter = code[0] ?? "";
    const status = STATUS[letter] ?? "modified";
    if (letter === "R" || letter === "C") {
      const from = fields[i++] ?? "";
      const to = fields[i++] ?? "";
      files.push(letter === "R" ? { path: to, status, from } : { path: to, status });
    } else {
      files.push({ path: fields[i++] ?? "", status });
    }
  }
  return files.filter((f) => f.path);
}

export interface ReadChangeSetInput {
  dir: string;
  /** The commit the flow started from (HEAD before its first session). */
  since: string;
  /** The tree before the sessions ran: paths dirty then and not changed since are the user's and left out. */
  baseline: TreeSnapshot;
  env: Env;
}

/** The sessions' changes since `since`: committed or not, tracked or new. */
export async function readChangeSet(input: ReadChangeSetInput): Promise<ChangeSet> {
  const git: GitRun = (args, options) => runGit(args, { ...options, env: input.env });
  const must = async (args: string[]): Promise<string> => {
    const result = await git(args, { cwd: root });
    if (result.exitCode !== 0) throw gitFailure(args, root, result);
    return result.stdout;
  };
  const root = (await git(["rev-parse", "--show-toplevel"], { cwd: input.dir })).stdout.trim() || input.dir;
  const tree = await changesSince(git, root, input.baseline);
  // The user's own uncommitted paths (PR flows start from a clean tree, so normally none).
  const users = new Set([...tree.kept, ...tree.untouched]);
  const tracked = new Set((await must(["ls-files", "-z"])).split("\0").filter(Boolean));
  const untracked = tree.paths.filter((p) => !tracked.has(p) && !users.has(p));

  // The commit against the working tree: the sessions' commits and their uncommitted edits of tracked files.
  const files = parseNameStatus(await must(["diff", "-M", "--name-status", "-z", "--no-relative", input.since])).filter(
    (f) => !users.has(f.path),
  );
  const diffs = [await must(["diff", "-M", ...TEXT_DIFF, input.since])];
  for (const p of untracked) {
    files.push({ path: p, status: "added" });
    // Exit 1 means "differs", which a new file always does.
    diffs.push((await git(["diff", "--no-index", ...TEXT_DIFF, "--", "/dev/null", p], { cwd: root })).stdout);
  }

  const contents: ChangeSet["contents"] = {};
  for (const file of files) {
    for (const [p, side] of [
      [file.from ?? file.path, "before"],
      [file.path, "after"],
    ] as const) {
      if (!MANIFESTS.test(p)) continue;
      const entry = (contents[p] ??= {});
      if (side === "before" && file.status !== "added") {
        const blob = await git(["cat-file", "blob", `${input.since}:${p}`], { cwd: root });
        if (blob.exitCode === 0) entry.before = blob.stdout;
      }
      if (side === "after" && file.status !== "deleted") entry.after = await fs.readFile(path.join(root, p), "utf8").catch(() => undefined);
    }
  }
  return { files, diff: diffs.join("\n"), contents };
}

/** The diff of a change set for a model to read, with a file list first, cut to `max` characters. */
export function describeChangeSet(change: ChangeSet, max: number): string {
  if (change.files.length === 0) return "";
  const list = change.files.map((f) => `${f.status} ${f.from ? `${f.from} → ` : ""}${f.path}`).join("\n");
  const text = `${list}\n\n${change.diff.trim()}`;
  return text.length > max ? `${text.slice(0, max)}\n… (diff cut at ${max} characters)` : text;
}
