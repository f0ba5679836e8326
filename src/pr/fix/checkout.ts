import { OttoError, type Env } from "../../core/index.ts";
import { mapPrToWorkdir, repoUrlOfPr, type PrWorkdir } from "../../repo/index.ts";
import { deferredText, openPrTree, snapshotPrTree } from "../pr-tree.ts";
import { configChanges, holdText, notifyHold, type ConfigCheck } from "../context/config-hold.ts";
import { assertCommitIdentity, runGit } from "../../workspace/index.ts";
import { refuseUnpushed } from "../../workspace/index.ts";
import { describeHolder, withWorkLock } from "../../workspace/index.ts";
import type { PrDocument } from "../store/document.ts";
import { short, type Flow, type FixModels, type FixOutcome } from "./flow.ts";
import { fixInTree } from "./analyse.ts";

/*
 * Step 2 of the fix flow (order: run-fix.ts): where the fix works. The PR's worktree is found and
 * locked against other jobs; the checkout is synced to the PR's head, or a dirty one gets a
 * temporary worktree (hands-off: no fix); a head that changes OpenCode configuration is held for a
 * person when the watcher started the fix. Then phase 1 (analyse.ts) runs in that tree.
 */

export async function fixClaimed(flow: Flow, claimed: PrDocument): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  const models = await deps.models();
  flow.progress("otto pr fix: finding the PR's worktree");
  const workdir = await mapPrToWorkdir({
    repoUrl: repoUrlOfPr(pr.url),
    branch: pr.sourceBranch,
    config: { repos: deps.config.repos },
    cwd: deps.cwd,
    git: { env: deps.env },
  });
  if (!workdir.onBranch) {
    throw new OttoError(
      "pr_wrong_branch",
      `${workdir.dir} is a clone of ${pr.repo} but does not have the PR's branch '${pr.sourceBranch}' checked out.`,
      `git -C ${workdir.dir} checkout ${pr.sourceBranch}, or track the repo with /otto-repo add (worktree strategy) so otto keeps one worktree per PR branch.`,
    );
  }
  // Another job (the comment flow, the review loop, another process's fix) may be editing this tree.
  const owner = `the fix flow of ${flow.key} (${input.trigger === "manual" ? "/otto-pr fix" : "PR watcher"})`;
  const held = await withWorkLock(workdir.dir, owner, () => fixInCheckout(flow, claimed, workdir, models), {
    env: deps.env,
    now: () => deps.now(),
  });
  if (!held.busy) return held.value;
  // Not an attempt: the PR goes back to watching, so the next poll sees the failure again and hands it back.
  const holder = describeHolder(held.holder);
  deps.log("info", `fix of ${flow.key} deferred: ${workdir.dir} is busy with ${holder}`);
  await flow.record({
    data: { status: "watching", fix_started: undefined },
    log: [`fixing → watching: the working tree ${workdir.dir} is busy with ${holder}; the failure is left for the next cycle`],
  });
  return flow.outcome(
    "busy",
    `The working tree ${workdir.dir} is busy with ${holder}; nothing was changed.`,
    input.trigger === "manual"
      ? "Run /otto-pr fix again when that job has finished; a running PR watcher picks the failure up on its next poll."
      : "The next poll hands the failure to the fix flow again.",
  );
}

/**
 * The user's uncommitted work is never touched: a dirty checkout gets the fix in a temporary
 * worktree (removed afterwards, whatever happens), or, hands-off, no fix at all until it is clean.
 */
async function fixInCheckout(flow: Flow, claimed: PrDocument, workdir: PrWorkdir, models: FixModels): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  const tree = await openPrTree({
    dir: workdir.dir,
    remote: workdir.remote,
    strategy: workdir.strategy,
    branch: pr.sourceBranch,
    env: deps.env,
    label: `otto-fix-${pr.number}`,
  });
  if (tree.kind === "deferred") return deferDirty(flow, tree);
  if (tree.temporary) flow.progress(`otto pr fix: working ${tree.how}`);
  try {
    // The checkout itself is brought up to the PR's head; a temporary worktree already is there.
    if (!tree.temporary) await syncBranch(workdir.dir, workdir.remote, pr.sourceBranch, deps.env);
    // Before the first session: OpenCode loads the tree's configuration when otto opens one there.
    const config = await configChanges({ dir: tree.dir, remote: workdir.remote, pr, state: claimed.data, env: deps.env });
    if (config.files.length > 0) {
      if (input.trigger === "watcher") return await holdForConfig(flow, config);
      await flow.record({
        data: { config_ok_sha: config.head },
        log: [
          `/otto-pr fix by hand on ${short(config.head)}, which changes OpenCode configuration (${config.files.join(", ")}): accepted; otto works on this head`,
        ],
      });
      flow.progress(`otto pr fix: the head changes OpenCode configuration (${config.files.join(", ")}); run by hand, so otto proceeds`);
    }
    // A fix is committed as the user: a tree where git knows no identity stops here, before any model call.
    await assertCommitIdentity((args, o) => runGit(args, { ...o, env: deps.env }), tree.dir, "run /otto-pr fix again");
    // After the fast-forward: what the PR's head ignores is what the user's ignored files are judged by.
    const baseline = await snapshotPrTree(tree.dir, deps.env);
    return await fixInTree(flow, claimed, { dir: tree.dir, remote: workdir.remote, baseline, detached: tree.temporary }, models);
  } finally {
    const problem = await tree.release();
    if (problem) deps.log("warn", problem);
  }
}

/** The head changes OpenCode configuration: no session; noted in the PR document, and a person told once per head commit. */
async function holdForConfig(flow: Flow, config: ConfigCheck): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const { title, text, log } = holdText(pr, config, "start a fix session", `/otto-pr fix ${input.doc.data.id}`);
  const notify = notifyHold(input.doc.data, pr.headSha);
  await flow.record({
    data: { status: "watching", fix_started: undefined, ...(notify ? { config_hold_sha: pr.headSha } : {}) },
    log: [`fixing → watching: ${log}`],
  });
  if (notify) await flow.notifyHuman(title, text);
  return flow.outcome("deferred", `${title}.`, text);
}

/** Hands-off and dirty: nothing runs; noted in the PR document, and a person told once per head commit. */
async function deferDirty(flow: Flow, tree: { dir: string; changes: string[] }): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const { title, text } = deferredText(pr, tree, `/otto-pr fix ${input.doc.data.id}`);
  const notify = input.doc.data.human_sha !== pr.headSha;
  await flow.record({
    data: { status: "watching", fix_started: undefined, ...(notify ? { human_sha: pr.headSha } : {}) },
    log: [`fixing → watching: not fixed: ${text}`],
  });
  if (notify) await flow.notifyHuman(title, text);
  return flow.outcome("deferred", `${title}.`, text);
}

/**
 * Fetch and fast-forward the PR branch when the tree allows it, so the fix starts from the PR's
 * head; local commits the PR's branch does not have are refused, not pushed with the fix.
 */
async function syncBranch(dir: string, remote: string, branch: string, env: Env): Promise<void> {
  // No forced refspec: if the branch was rewritten on the server, the sync is skipped and the push's rebase deals with it.
  const fetched = await runGit(["fetch", "-q", remote, `refs/heads/${branch}:refs/remotes/${remote}/${branch}`], { cwd: dir, env });
  if (fetched.exitCode !== 0) return;
  // Best effort (the tree is clean here: a dirty checkout gets a temporary worktree instead).
  await runGit(["merge", "--ff-only", "-q", `refs/remotes/${remote}/${branch}`], { cwd: dir, env });
  await refuseUnpushed({ dir, remote, branch, env });
}
