import fs from "node:fs/promises";
import path from "node:path";
import { DEFAULT_ACCESS, type SandboxMode } from "../sandbox/index.ts";
import { SKIPPED_DIRS } from "../core/skipped-dirs.ts";
import type { Env } from "../core/index.ts";
import { compareToBaseline, isBlocking } from "./check-baseline.ts";
import { changedBins, fingerprintBins } from "./dependency-bins.ts";
import { copyInside, lstatInside, makeParentsInside, removeInside } from "./inside-tree.ts";
import { isCheckConfiguration, isCheckFile, scriptPaths } from "./check-files.ts";
import { runChecks, type CheckResult } from "./checks.ts";
import { readChangeSet } from "./change-set.ts";
import { normalisePath, type ChangeSet } from "./detect-weakened-checks.ts";
import { runGit } from "./git.ts";
import { accessOf } from "./sandbox-access.ts";
import type { TreeSnapshot } from "./snapshot.ts";
import { addTemporaryWorktree } from "./temp-worktree.ts";

/*
 * A fix is judged against the PR's own checks, not against a list of spellings. When the fix
 * changed a test or a file that decides how the checks run (check-files.ts: modified, deleted,
 * renamed away, or new configuration such as an `.npmrc`), and the analysis did not name that
 * file as the cause, otto runs the flow's checks once more in a scratch copy of the fixed tree in
 * which those files are as the PR had them before the fix: otto's temporary worktree at the PR's
 * head, with the fix's other changes copied over and the tree's ignored entries (node_modules/,
 * .venv/, .env) linked in. The fix must do as well there as where it was made: a check that
 * passed on the fixed tree must pass, one that failed there (failing before the fix too) must not
 * fail more.
 *
 * Renaming `x.test.js` to `x.test.js.disabled`, moving it under a folder the runner skips,
 * `script-shell=/bin/true` in a new `.npmrc`, deleting the `test.js` the test script runs,
 * deleting `tests.py`, taking `process.exit(1)` out of a test: each brings the PR's test back in
 * the scratch copy, where the unfixed code fails it. The run costs one more round of checks, and
 * happens only when the fix touched such a file.
 */

export interface RestoredChecksInput {
  /** The fixed tree. */
  dir: string;
  /** The PR's head before the fix (the flow's starting commit): the versions restored. */
  since: string;
  baseline: TreeSnapshot;
  env: Env;
  /** Files the analysis named as the cause: the fix's own versions of these stay. */
  causeFiles: readonly string[];
  /** The flow's checks (pr.verify, else the project's). */
  commands: readonly string[];
  /**
   * The flow's run of the same checks on the fixed tree: the scratch copy must do as well (a check
   * that passed there must pass; one that failed there, failing before the fix too, must not get worse).
   */
  fixed: readonly CheckResult[];
  timeoutMs: number;
  sandbox: SandboxMode;
  secrets?: readonly string[];
  signal?: AbortSignal | undefined;
  /** Told once before the extra run starts. */
  progress?: (message: string) => void;
  /** The parent of the scratch folder (default: the OS temp dir). */
  tempRoot?: string;
}

export type RestoredChecks =
  /** No test or check file changed outside the cause files (`named`: those the analysis named and the fix changed). */
  | { kind: "untouched"; named: string[] }
  /** Such files changed but the flow has no checks to run. */
  | { kind: "unchecked"; restored: string[]; named: string[] }
  | { kind: "passed"; restored: string[]; named: string[]; results: CheckResult[] }
  | { kind: "failed"; restored: string[]; named: string[]; results: CheckResult[]; detail: string };

/** Pure: the check files a change set touches (added tests aside: they add checks), split by whether the analysis named them. */
export function touchedCheckFiles(
  change: ChangeSet,
  scriptNamed: ReadonlySet<string>,
  causeFiles: readonly string[],
): { restored: string[]; named: string[] } {
  const touched = new Set<string>();
  const counts = (p: string): boolean => isCheckFile(p) || scriptNamed.has(p);
  for (const file of change.files) {
    if (file.from && counts(file.from)) touched.add(file.from);
    const added = file.status === "added" || file.status === "renamed";
    // A new test adds a check; new configuration (an .npmrc, a conftest.py) changes how the old ones run.
    if (counts(file.path) && (!added || isCheckConfiguration(file.path) || scriptNamed.has(file.path))) touched.add(file.path);
  }
  const causes = new Set(causeFiles.map(normalisePath).filter(Boolean));
  const all = [...touched].sort();
  return { restored: all.filter((p) => !causes.has(p)), named: all.filter((p) => causes.has(p)) };
}

/** The files the root package.json and every changed package.json name in their checking scripts, before and after the fix. */
async function scriptNamedFiles(root: string, since: string, change: ChangeSet, env: Env): Promise<Set<string>> {
  const manifests = new Set(["package.json", ...change.files.flatMap((f) => [f.path, ...(f.from ? [f.from] : [])])]);
  const named = new Set<string>();
  for (const file of [...manifests].filter((p) => /(?:^|\/)package\.json$/.test(p))) {
    const dir = path.posix.dirname(file);
    const before = await runGit(["cat-file", "blob", `${since}:${file}`], { cwd: root, env });
    const after = await fs.readFile(path.join(root, file), "utf8").catch(() => undefined);
    for (const text of [before.exitCode === 0 ? before.stdout : undefined, after])
      for (const p of scriptPaths(text, dir === "." ? "" : dir)) named.add(p);
  }
  return named;
}

/**
 * Copies what is at `rel` in `from` to `to` (a file with its mode, a link as a link), or removes it
 * from `to` when `from` has none. Both trees were written by code otto did not write: no link on
 * the way is followed (inside-tree.ts), so `plug -> ~/.config/opencode/plugin` at the PR's head and
 * a fix that makes `plug` a folder holding `evil.js` give the scratch copy a folder `plug`, and
 * nothing outside it.
 */
async function mirror(from: string, to: string, rel: string): Promise<void> {
  const stat = await lstatInside(from, rel);
  // A nested repository or submodule: its own git's business, as in every commit otto makes.
  if (stat?.isDirectory()) return;
  if (stat) await copyInside(from, to, rel);
  else await removeInside(to, rel);
}

/**
 * The scratch copy: the fix's changes but `restored` (kept as `since` has them) and `added` (the
 * check files the fix added: absent, so a new test that rewrites the PR's own at run time does not run).
 */
async function overlay(
  root: string,
  scratch: string,
  change: ChangeSet,
  restored: ReadonlySet<string>,
  added: ReadonlySet<string>,
  ignored: readonly string[],
) {
  const paths = new Set(change.files.flatMap((f) => [f.path, ...(f.from ? [f.from] : [])]));
  for (const p of paths) if (!restored.has(p) && !added.has(p)) await mirror(root, scratch, p);
  for (const p of added) await removeInside(scratch, p);
  // Dependencies and local settings the checks need (node_modules/, .venv/, .env): linked, never copied.
  const shown: string[] = [];
  for (const entry of ignored) {
    const rel = entry.replace(/\/$/, "");
    const stat = await lstatInside(root, rel);
    if (!stat || (await lstatInside(scratch, rel))) continue;
    const parent = await makeParentsInside(scratch, rel);
    await fs.symlink(path.join(root, rel), path.join(parent, path.basename(rel))).catch(() => undefined);
    if (stat.isDirectory() && SKIPPED_DIRS.has(path.basename(rel))) shown.push(path.join(root, rel));
  }
  return shown;
}

/** Runs the flow's checks with the PR's own tests and check configuration restored, when the fix changed them. */
export async function judgeRestoredChecks(input: RestoredChecksInput): Promise<RestoredChecks> {
  const top = await runGit(["rev-parse", "--show-toplevel"], { cwd: input.dir, env: input.env });
  const root = top.exitCode === 0 ? top.stdout.trim() : input.dir;
  const change = await readChangeSet({ dir: root, since: input.since, baseline: input.baseline, env: input.env });
  const scriptNamed = await scriptNamedFiles(root, input.since, change, input.env);
  const { restored, named } = touchedCheckFiles(change, scriptNamed, input.causeFiles);
  // The programs the checks run from node_modules/.bin (ignored: no diff shows a planted `node`).
  const bins = changedBins(input.baseline.bins ?? {}, await fingerprintBins(root, input.baseline.ignored ?? []));
  if (bins.length > 0)
    return {
      kind: "failed",
      restored,
      named,
      results: [],
      detail: `${describeFiles(bins)} changed while the session ran: the checks would run programs of the fix's own making, so otto does not trust their result`,
    };
  if (restored.length === 0) return { kind: "untouched", named };
  if (input.commands.length === 0) return { kind: "unchecked", restored, named };
  input.progress?.(`the fix changed ${describeFiles(restored)}: running the checks again with the PR's versions restored`);
  const scratch = await addTemporaryWorktree({
    repoDir: root,
    remote: "",
    branch: "",
    env: input.env,
    label: "otto-checks",
    at: input.since,
    ...(input.tempRoot ? { tempRoot: input.tempRoot } : {}),
  });
  try {
    const named_ = new Set(named);
    const added = change.files
      .filter((f) => (f.status === "added" || f.status === "renamed") && (isCheckFile(f.path) || scriptNamed.has(f.path)))
      .map((f) => f.path)
      .filter((p) => !named_.has(p) && !restored.includes(p));
    const shown = await overlay(root, scratch.dir, change, new Set(restored), new Set(added), input.baseline.ignored ?? []);
    // The links lead into the fixed tree, which the scratch copy's sandbox does not show (under the
    // private temp folder or the hidden home): its dependency folders are shown as the fixed run had
    // them. Only real folders the secret walk skips (a link on the way is not followed, so a planted
    // `node_modules -> ~` shows nothing), and no secret file the fixed run hid (`.env` stays a dead link).
    const own = input.sandbox === "off" ? undefined : ((await accessOf(root, input.env)) ?? DEFAULT_ACCESS);
    const access = own && { ...own, allow_write: [...own.allow_write, ...shown] };
    const results = await runChecks(input.commands, {
      cwd: scratch.dir,
      ...(access ? { access } : {}),
      timeoutMs: input.timeoutMs,
      env: input.env,
      sandbox: input.sandbox,
      ...(input.secrets ? { secrets: input.secrets } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const blocking = new Set(
      compareToBaseline(input.fixed, results)
        .filter(isBlocking)
        .map((c) => c.command),
    );
    const failed = results.filter((r) => !r.passed && blocking.has(r.command));
    if (failed.length === 0) return { kind: "passed", restored, named, results };
    const runs = failed.map((r) => `\`${r.command}\` ${r.timedOut ? "timed out" : `exit ${r.exitCode}`}`).join(", ");
    return {
      kind: "failed",
      restored,
      named,
      results,
      detail: `the checks pass only with the fix's own changes to ${describeFiles(restored)}: with the PR's versions of ${restored.length === 1 ? "that file" : "those files"} restored, ${runs}`,
    };
  } finally {
    await scratch.release();
  }
}

const describeFiles = (files: readonly string[]): string =>
  files.slice(0, 10).join(", ") + (files.length > 10 ? ` and ${files.length - 10} more` : "");

/** What the next session is told after a fix that passed only with its own tests or check configuration. */
export function restoredNote(judged: Extract<RestoredChecks, { kind: "failed" }>): string {
  if (judged.results.length === 0)
    return `Otto refused the previous session's fix: ${judged.detail}. Put the dependencies back as they were (reinstall them with the project's lockfile) and fix the cause in the code under test; do not add or change programs under node_modules.`;
  const output = judged.results
    .filter((r) => !r.passed)
    .map((r) => `$ ${r.command} (exit ${r.exitCode})\n${r.output.slice(-3000)}`)
    .join("\n\n");
  return [
    `Otto refused the previous session's fix: ${judged.detail}.`,
    `Otto ran the project's checks with the PR's own versions of ${describeFiles(judged.restored)} and they failed:`,
    output,
    "Those changes are still in the working tree: put the tests and check configuration back as they were and fix the cause in the code under test.",
  ].join("\n");
}

/** The line a pushed fix carries when it changed tests or check configuration its cause files named (`by`: who named them). */
export function namedLine(named: readonly string[], by = "the failure analysis"): string | undefined {
  if (named.length === 0) return undefined;
  return `Changes tests or check configuration ${by} named as the cause: ${describeFiles(named)}.`;
}
