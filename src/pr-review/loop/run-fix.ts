import { checkCommands, resolveChecks } from "../../analysis/index.ts";
import { compareToBaseline, isBlocking, runChecks, type CheckResult } from "../../workspace/index.ts";
import { commitAndPush, mentionedPaths, screenChanges, type PushResult } from "../../workspace/index.ts";
import { judgeRestoredChecks, namedLine } from "../../workspace/index.ts";
import { sanitizeForPost } from "../../pr/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { headSha } from "../../workspace/index.ts";
import { accountFor, closeAccount, type FixAccount } from "./fix-plan.ts";
import type { RunContext } from "./run-review.ts";
import { FixReply, type FixPayload } from "./schemas.ts";
import { prRulesPrompt } from "../rules.ts";

export interface FixOutcome {
  account: FixAccount;
  checks: CheckResult[];
  push?: PushResult;
  /** Set when the loop must stop after this fix (checks failed, push refused, head did not move). */
  failure?: string;
}

export interface FixOptions {
  fixTimeoutMs: number;
  verifyTimeoutMs: number;
}

function retryText(missing: readonly string[]): string {
  return [
    `Your answer did not account for ${missing.length} of the issues to fix: ${missing.join(", ")}.`,
    "Every id of issuesToFix must appear once, in fixedIssues or in rejectedIssues. Fix them now or reject them with a reason,",
    "then answer again with the complete envelope (all issues, including those you already reported): a line BEGIN_JSON, the JSON object, a line END_JSON, and nothing after it.",
  ].join(" ");
}

/** Asks the fix session for A5, and once more for the issues it left out; the rest counts as rejected. */
async function fixSession(ctx: RunContext, payload: FixPayload, options: FixOptions, verify: readonly string[]): Promise<FixAccount> {
  const { setup } = ctx;
  const { pr } = setup;
  const touched = [...setup.changedFiles, ...payload.issuesToFix.map((f) => f.file).filter(Boolean)];
  const rules = await prRulesPrompt(setup.rules, ctx.rulesKey, touched, "write", ctx.runtime.env);
  const child = await ctx.runtime.sessions.openChild({
    ...(ctx.sessionID ? { parentID: ctx.sessionID } : {}),
    directory: setup.dir,
    agent: "otto-executor",
    model: setup.fixModel,
    title: `otto: PR #${pr.number} review loop, fixes of round ${payload.round}`,
    timeoutMs: options.fixTimeoutMs,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(rules.text ? { system: rules.text } : {}),
  });
  try {
    const prompt = renderPrompt(
      "pr-loop-fix",
      {
        pr_title: pr.title,
        target_branch: setup.targetRef,
        round: payload.round,
        fix_payload: JSON.stringify(payload, null, 2),
        ...(pr.description ? { pr_description: pr.description } : {}),
        ...(verify.length > 0 ? { check_commands: verify.join("\n") } : {}),
      },
      { env: ctx.runtime.env },
    );
    const first = await child.promptJson(prompt, FixReply, { retries: 1 });
    let account = accountFor(payload.issuesToFix, first.value);
    if (account.missing.length > 0) {
      const second = await child.promptJson(retryText(account.missing), FixReply, { retries: 1 });
      account = accountFor(payload.issuesToFix, {
        fixedIssues: [...account.fixed, ...second.value.fixedIssues],
        rejectedIssues: [...account.rejected, ...second.value.rejectedIssues],
      });
    }
    return closeAccount(account);
  } finally {
    await child.close();
  }
}

/** Pushed, so posted: the reviewers' titles and the fix agent's words pass sanitizeForPost. */
function commitMessage(payload: FixPayload, account: FixAccount, secrets: readonly string[], named?: string): string {
  const titles = new Map(payload.issuesToFix.map((f) => [f.id, f.title]));
  const lines = account.fixed.map((f) => `- ${f.findingId}: ${titles.get(f.findingId) ?? f.description}`);
  return sanitizeForPost(
    [`fix: address review findings (otto review loop, round ${payload.round})`, "", ...lines, ...(named ? ["", named] : [])].join("\n"),
    secrets,
  );
}

/**
 * The fix step: the fix session edits the working tree, otto runs pr.verify, commits and pushes
 * (never forced), and checks the branch moved when anything was reported fixed.
 */
export async function runFix(ctx: RunContext, payload: FixPayload, options: FixOptions): Promise<FixOutcome> {
  const { setup } = ctx;
  const env = ctx.runtime.env;
  const before = (await headSha(setup.dir, { env })) ?? "";
  // pr.verify, else the checks found in the PR's tree; a baseline before the session, so a check
  // the PR already fails stops the loop only when the fix makes it worse.
  const verify = checkCommands(await resolveChecks("pr.verify", setup.config.pr.verify, setup.dir));
  const runOptions = {
    cwd: setup.dir,
    timeoutMs: options.verifyTimeoutMs,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    env,
    sandbox: setup.config.sandbox,
    secrets: setup.secrets,
  };
  const baseline = verify.length > 0 ? await runChecks(verify, runOptions) : [];
  const account = await fixSession(ctx, payload, options, verify);
  // A fix that weakens the checks (docs/security.md) is pushed only in a file a finding names.
  const causeFiles = payload.issuesToFix
    .flatMap((f) => [f.file, ...mentionedPaths(`${f.title}\n${f.description}\n${f.suggestion}`)])
    .filter(Boolean);
  if (before) {
    const screened = await screenChanges({ dir: setup.dir, since: before, baseline: setup.baseline, env, causeFiles });
    if (screened.kind === "refused") {
      const left = setup.detached
        ? "the fix agent's changes go with otto's temporary worktree"
        : `the fix agent's changes are left uncommitted in ${setup.dir}`;
      return {
        account,
        checks: [],
        failure: `the fix weakens the checks in files no finding names (${sanitizeForPost(screened.detail, setup.secrets)}): nothing was pushed; ${left}.`,
      };
    }
  }
  const checks = await runChecks(verify, runOptions);
  const blocking = new Set(
    compareToBaseline(baseline, checks)
      .filter(isBlocking)
      .map((c) => c.command),
  );
  const failed = checks.filter((c) => !c.passed && blocking.has(c.command));
  if (failed.length > 0) {
    return {
      account,
      checks,
      failure: `pr.verify failed (${failed.map((c) => `\`${c.command}\``).join(", ")}): nothing was pushed; ${setup.detached ? "the fix agent's changes go with otto's temporary worktree" : `the fix agent's changes are left uncommitted in ${setup.dir}`}.`,
    };
  }
  // Tests or check configuration changed outside the findings' files: the PR's own versions must pass too.
  const judged = before
    ? await judgeRestoredChecks({
        dir: setup.dir,
        since: before,
        baseline: setup.baseline,
        env,
        causeFiles,
        commands: verify,
        fixed: checks,
        timeoutMs: options.verifyTimeoutMs,
        sandbox: setup.config.sandbox,
        secrets: setup.secrets,
        signal: ctx.signal,
      })
    : undefined;
  if (judged?.kind === "failed") {
    return {
      account,
      checks,
      failure: `${sanitizeForPost(judged.detail, setup.secrets)}: nothing was pushed; ${setup.detached ? "the fix agent's changes go with otto's temporary worktree" : `the fix agent's changes are left uncommitted in ${setup.dir}`}.`,
    };
  }
  const push = await commitAndPush({
    dir: setup.dir,
    branch: setup.pr.sourceBranch,
    remote: setup.remote,
    message: commitMessage(payload, account, setup.secrets, judged ? namedLine(judged.named, "the findings") : undefined),
    baseline: setup.baseline,
    detached: setup.detached,
    env,
    secrets: setup.secrets,
    ...(ctx.gitControl ? { guard: ctx.gitControl } : {}),
    ...(setup.config.git.hooks === "run" ? { hooks: { sandbox: setup.config.sandbox } } : {}),
  });
  if (push.outcome !== "pushed" && push.outcome !== "nothing")
    return { account, checks, push, failure: `the push did not land (${push.outcome}): ${push.detail}` };
  if (account.fixed.length > 0 && (push.outcome === "nothing" || push.sha === before)) {
    return {
      account,
      checks,
      push,
      failure: `the fix agent reported ${account.fixed.length} finding(s) fixed, but the branch did not move (no change to commit or push).`,
    };
  }
  return { account, checks, push };
}
