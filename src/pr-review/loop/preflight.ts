import { OttoError, type Env } from "../../core/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { Config } from "../../config/index.ts";
import { createPrContext, locatePr, openPrTree, originUrl, prRules, snapshotPrTree, type PrBackend, type PrInfo } from "../../pr/index.ts";
import { currentBranch, type TreeSnapshot } from "../../workspace/index.ts";
import { mapPrToWorkdir, repoUrlOfPr } from "../../repo/index.ts";
import { parseModel, resolveRoleModel, type ModelRef } from "../../session/index.ts";
import { assertSandbox } from "../../sandbox/index.ts";
import { workLockHolder, workTreeBusy } from "../../workspace/index.ts";
import { fetchTarget, pushState, targetOf, untrustedTree } from "./preflight-git.ts";
import { stripOpenCodeConfig, strippedLines, untrustedTreeReason, type StrippedConfig } from "../untrusted-config.ts";
import type { RuleSet } from "../../rules/index.ts";

export interface LoopSetup {
  config: Config;
  backend: PrBackend;
  pr: PrInfo;
  /** Where the loop reviews and fixes: the PR's checkout, or otto's temporary worktree of the PR branch when the checkout is dirty. */
  dir: string;
  /** The PR's checkout (its work lock keeps the other PR flows out while the loop runs). */
  checkoutDir: string;
  /** The tree before the fix sessions ran: a commit takes only what changed since. */
  baseline: TreeSnapshot;
  /** `dir` is otto's temporary worktree (detached HEAD). */
  detached: boolean;
  /** Removes the temporary worktree; says what it could not remove. */
  release: () => Promise<string | undefined>;
  remote: string;
  /** What reviewers diff against: `<remote>/<target>` once fetched, else the target's name. */
  targetRef: string;
  /** `git diff --name-only` of the PR, for the reviewers' prompt. */
  changedFiles: string[];
  reviewers: ModelRef[];
  analyzer: ModelRef;
  fixModel: ModelRef;
  canPush: boolean;
  pushBlocker?: string;
  /** Values redacted from everything posted: the configured and environment tokens. */
  secrets: string[];
  notes: string[];
  /** The OpenCode configuration removed from otto's worktree of an untrusted PR before any session. */
  stripped?: StrippedConfig;
  /** The team rules the PR is held to: the target branch's and the user's (src/pr-review/rules.ts). */
  rules: RuleSet;
}

export interface PreflightInput {
  runtime: Runtime;
  directory: string;
  target: string;
  provider?: string;
  sessionID?: string;
}

/** models.reviewers, else the secondary model alone (as docs/configuration.md says). */
function reviewerModels(config: Config): ModelRef[] {
  const names = config.models.reviewers ?? (config.models.secondary ? [config.models.secondary] : []);
  if (names.length === 0) {
    throw new OttoError(
      "loop_reviewers_unset",
      "The review loop needs models.reviewers (1 to 5 models that review the PR in parallel) or, for one reviewer, models.secondary.",
      'Add them to otto.jsonc, e.g. "models": { "reviewers": ["openai/gpt-5", "anthropic/claude-sonnet-4-5"] }, then run the command again.',
    );
  }
  return names.map((name) => parseModel(name));
}

/**
 * Everything checked before the first model call or comment: config and models, the token (by
 * reading the PR), the PR is open, the local clone, its branch and cleanliness, and pushing.
 */
export async function preflight(input: PreflightInput): Promise<LoopSetup> {
  const { runtime } = input;
  const ctx = await createPrContext(runtime, input.directory);
  const config = ctx.loaded.config;
  // sandbox: "required" and none here: refused before a clone, a worktree or a model.
  assertSandbox(config.sandbox, runtime.env);
  const reviewers = reviewerModels(config);
  const notes: string[] = [];
  const roleDeps = {
    client: runtime.client,
    sessionID: input.sessionID ?? "",
    directory: input.directory,
    once: runtime.once,
    log: runtime.log,
  };
  const fixRole = config.models.fix
    ? { model: parseModel(config.models.fix) }
    : await resolveRoleModel("primary", config.models.primary, roleDeps);
  if ("note" in fixRole && fixRole.note) notes.push(fixRole.note);
  const analyzer = config.models.secondary ? parseModel(config.models.secondary) : (reviewers[0] as ModelRef);

  const remoteUrl = await originUrl(input.directory);
  const { backend, locator } = locatePr(ctx.registry, {
    text: input.target,
    ...(input.provider ? { provider: input.provider } : {}),
    ...(config.pr.default_provider ? { defaultProvider: config.pr.default_provider } : {}),
    context: remoteUrl ? { remoteUrl } : {},
  });
  const pr = await backend.getPr(locator);
  if (pr.state !== "open") {
    throw new OttoError(
      "loop_pr_not_open",
      `PR #${pr.number} (${pr.repo}) is ${pr.state}: there is nothing to review and fix.`,
      "Pass an open PR.",
    );
  }

  const env = runtime.env;
  const work = await mapPrToWorkdir({ repoUrl: repoUrlOfPr(pr.url), branch: pr.sourceBranch, config, cwd: input.directory, git: { env } });
  const branch = await currentBranch(work.dir, { env });
  if (!work.onBranch || branch !== pr.sourceBranch) {
    throw new OttoError(
      "loop_wrong_branch",
      `${work.dir} has ${branch === undefined ? "a detached HEAD" : `'${branch}'`} checked out, not the PR's branch '${pr.sourceBranch}'.`,
      `Run git -C ${work.dir} checkout ${pr.sourceBranch}, then run the command again.`,
    );
  }
  // An otto job (a fix, a comment answer) at work there leaves the tree dirty for a while: say so, not "stash it".
  const lock = await workLockHolder(work.dir, { env });
  if (lock.busy) throw workTreeBusy(work.dir, lock.holder, "run /pr-review --loop again");
  // A dirty checkout is the user's work: the loop runs in a temporary worktree instead (hands-off: not at all).
  // An untrusted PR's tree loses its OpenCode configuration before any session: never in the user's checkout.
  const untrusted = untrustedTreeReason(pr);
  const tree = untrusted
    ? await untrustedTree(pr, work, env, untrusted)
    : await openPrTree({
        dir: work.dir,
        remote: work.remote,
        strategy: work.strategy,
        branch: pr.sourceBranch,
        env,
        label: `otto-loop-${pr.number}`,
      });
  if (tree.kind === "deferred") {
    throw new OttoError(
      "loop_dirty",
      `${work.dir} (hands-off) has uncommitted changes; otto does not touch that checkout, not even with a worktree of its own:\n${tree.changes
        .slice(0, 10)
        .map((c) => `  ${c}`)
        .join("\n")}`,
      `Commit or stash them (git -C ${work.dir} stash -u), then run the command again.`,
    );
  }
  if (tree.temporary) notes.push(`working ${tree.how}`);
  try {
    let stripped: StrippedConfig | undefined;
    if (untrusted) {
      stripped = await stripOpenCodeConfig({
        pr,
        dir: tree.dir,
        temporary: tree.temporary,
        target: await fetchTarget(tree.dir, work.remote, pr.targetBranch, env),
        env,
      });
      notes.push(...strippedLines(stripped));
    }
    // The removal is not the PR's change: the loop's baseline (finishPreflight) is taken after it.
    return await finishPreflight({
      config,
      backend,
      pr,
      reviewers,
      analyzer,
      fixModel: fixRole.model,
      secrets: ctx.loaded.secrets,
      notes,
      env,
      remote: work.remote,
      checkoutDir: work.dir,
      tree,
      ...(stripped ? { stripped } : {}),
    });
  } catch (error) {
    await tree.release();
    throw error;
  }
}

async function finishPreflight(input: {
  config: Config;
  backend: PrBackend;
  pr: PrInfo;
  reviewers: ModelRef[];
  analyzer: ModelRef;
  fixModel: ModelRef;
  secrets: string[];
  notes: string[];
  env: Env;
  remote: string;
  checkoutDir: string;
  tree: { dir: string; temporary: boolean; release: () => Promise<string | undefined> };
  stripped?: StrippedConfig;
}): Promise<LoopSetup> {
  const { config, backend, pr, reviewers, analyzer, fixModel, notes, env, tree } = input;
  const work = { dir: tree.dir, remote: input.remote };
  // A fork's branch is not on the remote that matched the PR's repository; otherwise a dry-run
  // push decides (credentials, branch protection), also when the provider does not say.
  const push =
    pr.fork === true
      ? { canPush: false, blocker: `the PR's branch lives in a fork (${pr.headRepo ?? "another repository"})` }
      : await pushState(work.dir, work.remote, pr.sourceBranch, env);
  if (!push.canPush) notes.push(`review only: ${push.blocker ?? "cannot push"}`);
  const target = await targetOf(work.dir, work.remote, pr.targetBranch, env);
  const rules = await prRules(work.dir, target.ref, env);
  notes.push(...rules.problems.map((problem) => `team rules: ${problem}`));
  return {
    rules,
    targetRef: target.ref,
    changedFiles: target.files,
    config,
    backend,
    pr,
    dir: work.dir,
    checkoutDir: input.checkoutDir,
    // Before the loop's first session: the fix commits take only what changed since, never an ignored file.
    baseline: await snapshotPrTree(tree.dir, env),
    detached: tree.temporary,
    release: tree.release,
    remote: work.remote,
    reviewers,
    analyzer,
    fixModel,
    canPush: push.canPush,
    ...(push.blocker ? { pushBlocker: push.blocker } : {}),
    secrets: input.secrets,
    notes,
    ...(input.stripped ? { stripped: input.stripped } : {}),
  };
}
