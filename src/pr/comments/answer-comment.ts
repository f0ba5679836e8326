import type { SandboxMode } from "../../sandbox/index.ts";
import { OttoError, formatError, redact, type Env, errorText } from "../../core/index.ts";
import { compareToBaseline, isBlocking, runChecks, type CheckResult } from "../../workspace/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { headSha, isDirty } from "../../workspace/index.ts";
import { formatModel, type ModelRef, type SessionRunner } from "../../session/index.ts";
import type { PrBackend } from "../backend.ts";
import { CLEAN_TREE, commitAndPush, ignoredLine, mentionedPaths, screenChanges } from "../../workspace/index.ts";
import { judgeRestoredChecks, namedLine } from "../../workspace/index.ts";
import { resolveConflicts } from "../resolve-conflicts.ts";
import { prWorkRules } from "../rules.ts";
import { sanitizeForPost } from "../sanitize.ts";
import type { PrComment, PrInfo } from "../types.ts";
import type { HistoryEntry } from "./comment-history.ts";
import { commentPromptVars, readCodeContext } from "./comment-prompt.ts";
import { CommentVerdict, RESOLUTION, type Decision } from "./decision.ts";
import { findOnBranch, NOT_ADDRESSED, parseAddressedBy } from "./addressed-by.ts";
import { discardChanges, type PrWork } from "./prepare-workdir.ts";
import { ADDRESSED_IN, FIXED_IN, ownReplies, replyBody } from "./reply-marker.ts";
import { threadOf } from "./select-comments.ts";

/*
 * One reviewer comment, answered: a fresh executor session in the PR's worktree decides AGREE /
 * BY_DESIGN / WONT_FIX (making the fix for AGREE), otto commits and pushes the fix (never forced),
 * posts the reply with its marker, and resolves the thread. The caller records the result.
 */

/** otto's editing agent: the fix for an AGREE is made in the answering session. */
const EXECUTOR = "otto-executor";

export interface AnswerDeps {
  sessions: SessionRunner;
  model: ModelRef;
  parentID?: string | undefined;
  timeoutMs: number;
  secrets: readonly string[];
  env: Env;
  /** pr.verify (else the project's detected checks): shown to the model, and run by otto before an AGREE fix is pushed. */
  checkCommands: readonly string[];
  /** The checks before this pass's first session: what failed there blocks a push only when it got worse. */
  baseline?: readonly CheckResult[] | undefined;
  verifyTimeoutMs: number;
  /** otto.jsonc `sandbox`: where the checks run. */
  sandbox: SandboxMode;
  /** otto.jsonc `git.hooks`: "run" runs the fix commit's hooks in the sandbox. */
  gitHooks?: "skip" | "run";
  signal?: AbortSignal | undefined;
  now: () => Date;
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
  /** The token's user: only its comments are otto's replies (undefined: the marker alone decides). */
  me?: string | undefined;
}

export interface AnswerInput {
  pr: PrInfo;
  backend: PrBackend;
  work: PrWork;
  comment: PrComment;
  /** Every comment of the PR, for the thread. */
  comments: readonly PrComment[];
}

export type Answer =
  | { status: "answered"; decision: Decision; entry: HistoryEntry; sha?: string | undefined }
  /** Otto's reply appeared on the forge while the session ran (another otto process answered). */
  | { status: "already"; decision: Decision; entry: HistoryEntry };

const short = (sha: string): string => sha.slice(0, 7);

const RESOLVED_AS: Record<Decision, string> = { AGREE: "fixed", BY_DESIGN: "by design", WONT_FIX: "won't fix" };

export async function answerComment(deps: AnswerDeps, input: AnswerInput): Promise<Answer> {
  const { pr, backend, work, comment } = input;
  const thread = threadOf(comment, input.comments);
  // GitHub replies only to a thread's first comment; Azure DevOps threads are resolved as a whole.
  const root = thread[0] ?? comment;
  const prompt = renderPrompt(
    "pr-comment-respond",
    commentPromptVars({ pr, comment, thread, codeContext: await readCodeContext(work.dir, comment), checkCommands: deps.checkCommands }),
    { env: deps.env },
  );
  const model = `${formatModel(deps.model)} (${EXECUTOR})`;
  // The team rules in scope of the PR's changes and the commented file (docs/rules.md).
  const rules = await prWorkRules({
    dir: work.dir,
    remote: work.remote,
    targetBranch: pr.targetBranch,
    env: deps.env,
    key: pr.repo,
    purpose: "write",
    files: comment.path ? [comment.path] : [],
  });
  const startHead = await headSha(work.dir, { env: deps.env });
  const verdict = await deps.sessions.runChildJson(
    {
      ...(deps.parentID ? { parentID: deps.parentID } : {}),
      directory: work.dir,
      agent: EXECUTOR,
      model: deps.model,
      title: `otto: PR #${pr.number} comment ${comment.id}`,
      timeoutMs: deps.timeoutMs,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(rules.text ? { system: rules.text } : {}),
    },
    prompt,
    CommentVerdict,
  );
  const { decision, reply, fix_description, addressed_by } = verdict.value;

  let text = reply;
  let sha: string | undefined;
  let action: string;
  // Whether otto closes the thread: not for an AGREE that changed nothing and showed no commit that did.
  let resolve = true;
  if (decision === "AGREE") {
    await refuseWeakened(deps, work, comment, thread, startHead);
    const checked = await verify(deps, work.dir, comment, startHead);
    const named = checked && startHead ? await refuseRestoredFailure(deps, work, comment, thread, startHead, checked) : undefined;
    const subject = (fix_description.trim() || `Address review comment by ${comment.author}`).split("\n")[0] ?? "";
    const message = sanitizeForPost(`${subject}\n\nIn answer to ${comment.url ?? comment.id} (${comment.author}).`, deps.secrets);
    const pushed = await commitAndPush({
      dir: work.dir,
      branch: work.branch,
      remote: work.remote,
      message,
      baseline: work.baseline ?? CLEAN_TREE,
      detached: work.detached ?? false,
      env: deps.env,
      secrets: deps.secrets,
      ...(work.gitControl ? { guard: work.gitControl } : {}),
      ...(deps.gitHooks === "run" ? { hooks: { sandbox: deps.sandbox } } : {}),
      // The branch moved and the rebase stopped: one resolution session, as in the fix flow.
      resolveConflicts: ({ files }) => {
        deps.log("info", `resolving rebase conflicts in ${files.join(", ")} for ${comment.id}`);
        const ctx = {
          sessions: deps.sessions,
          env: deps.env,
          dir: work.dir,
          parentID: deps.parentID,
          signal: deps.signal,
          timeoutMs: deps.timeoutMs,
          system: rules.text,
        };
        return resolveConflicts(ctx, deps.model, {
          pr,
          files,
          change: `${subject}\n\nIn answer to this review comment by ${comment.author}:\n${comment.body.slice(0, 1500)}`,
        });
      },
    });
    if (pushed.outcome === "pushed") {
      sha = pushed.sha;
      text = `${FIXED_IN} ${short(pushed.sha)}: ${reply}${named ? `\n\n${named}` : ""}`;
      action = `Fixed in ${short(pushed.sha)}${pushed.rebased ? " (rebased onto the moved branch)" : ""}; thread resolved${pushed.ignored.length > 0 ? `. ${ignoredLine(pushed.ignored)}` : ""}`;
    } else if (pushed.outcome === "nothing") {
      const found = await findOnBranch({ dir: work.dir, remote: work.remote, branch: work.branch, sha: addressed_by, env: deps.env });
      if (found) {
        text = `${ADDRESSED_IN} ${short(found)}: ${reply}`;
        action = `Agreed; no change made, already addressed in ${short(found)} on ${work.branch}; thread resolved`;
      } else {
        resolve = false;
        const named = parseAddressedBy(addressed_by);
        text = `${NOT_ADDRESSED}\n\n${reply}`;
        action = `Agreed but no change made and ${named ? `the named commit ${short(named)} is not on ${work.branch}` : "no commit named that addresses it"}; reply posted, thread left open for a person`;
      }
    } else {
      throw new OttoError(
        "comment_push_failed",
        `The fix for ${comment.id} was not pushed: ${pushed.detail}`,
        `Push ${work.branch} from ${work.dir} by hand, then answer the comment.`,
      );
    }
  } else {
    if (startHead && (await discardChanges(work.dir, deps.env, startHead, work.baseline ?? CLEAN_TREE)))
      deps.log("info", `discarded edits of the ${decision} answer to ${comment.id} in ${work.dir}`);
    action = `Replied; thread resolved (${RESOLVED_AS[decision]})`;
  }

  const entry = (what: string): HistoryEntry => ({ comment, time: deps.now().toISOString(), decision, action: what, reply: text, model });
  // The session took minutes: another otto (the watcher, a manual pass) may have answered meanwhile.
  const current = await backend.getComments(pr);
  if (ownReplies(current, deps.me).has(comment.id))
    return { status: "already", decision, entry: entry("Already answered by another otto run; not posted again") };

  await backend.replyToComment(pr, root.id, sanitizeForPost(replyBody(comment.id, decision, text), deps.secrets));
  if (!resolve) return { status: "answered", decision, entry: entry(action), sha };
  try {
    await backend.resolveComment(pr, root.id, RESOLUTION[decision]);
  } catch (error) {
    // The answer is posted; a thread left open is for the reviewer to close, not a reason to answer again.
    deps.log("warn", `could not resolve the thread of ${comment.id}`, { error: formatError(error) });
    action = action.replace(/; thread resolved.*$/, "; thread NOT resolved: ") + errorText(error);
  }
  return { status: "answered", decision, entry: entry(action), sha };
}

/**
 * An AGREE fix that weakens the checks (docs/security.md) is not pushed, unless the reviewer's
 * thread names the file (its line comment's file, or a path in its words): a reviewer may ask for
 * a test to go. The failure is the answer's: the changes are discarded and the comment retried.
 */
async function refuseWeakened(
  deps: AnswerDeps,
  work: PrWork,
  comment: PrComment,
  thread: readonly PrComment[],
  startHead: string | undefined,
): Promise<void> {
  if (!startHead) return;
  const causeFiles = threadFiles(thread);
  const screened = await screenChanges({
    dir: work.dir,
    since: startHead,
    baseline: work.baseline ?? CLEAN_TREE,
    env: deps.env,
    causeFiles,
  });
  if (screened.kind !== "refused") return;
  throw new OttoError(
    "comment_weakens_checks",
    `The fix for ${comment.id} was not pushed: it weakens the checks in files the review comment does not name (${redact(screened.detail, deps.secrets)}).`,
    "Answer the comment by hand, or name the file in the thread if the change is what the reviewer wants; the comment is tried again at the next poll.",
  );
}

/** The files a review thread names: its line comment's file and the paths in its words. */
const threadFiles = (thread: readonly PrComment[]): string[] =>
  thread.flatMap((c) => [...(c.path ? [c.path] : []), ...mentionedPaths(c.body)]);

/**
 * An AGREE fix that changed tests or check configuration the thread does not name must also pass
 * the PR's own versions of them (src/workspace/restored-checks.ts). Returns the line saying which
 * named ones it changed, for the reply.
 */
async function refuseRestoredFailure(
  deps: AnswerDeps,
  work: PrWork,
  comment: PrComment,
  thread: readonly PrComment[],
  startHead: string,
  fixed: readonly CheckResult[],
): Promise<string | undefined> {
  const judged = await judgeRestoredChecks({
    dir: work.dir,
    since: startHead,
    baseline: work.baseline ?? CLEAN_TREE,
    env: deps.env,
    causeFiles: threadFiles(thread),
    commands: deps.checkCommands,
    fixed,
    timeoutMs: deps.verifyTimeoutMs,
    sandbox: deps.sandbox,
    secrets: deps.secrets,
    signal: deps.signal,
    progress: (m) => deps.log("info", `${comment.id}: ${m}`),
  });
  if (judged.kind !== "failed") return namedLine(judged.named, "the review thread");
  throw new OttoError(
    "comment_weakens_checks",
    `The fix for ${comment.id} was not pushed: ${redact(judged.detail, deps.secrets)}.`,
    "Answer the comment by hand, or name the file in the thread if the change is what the reviewer wants; the comment is tried again at the next poll.",
  );
}

/** pr.verify must pass before a fix is pushed (docs/configuration.md); a failure is the answer's failure. Returns the run, if one ran. */
async function verify(
  deps: AnswerDeps,
  dir: string,
  comment: PrComment,
  startHead: string | undefined,
): Promise<CheckResult[] | undefined> {
  if (deps.checkCommands.length === 0) return undefined;
  // Nothing changed (the model may also have committed, against its instructions): nothing to check.
  if (!(await isDirty(dir, { env: deps.env })) && (await headSha(dir, { env: deps.env })) === startHead) return undefined;
  const results = await runChecks(deps.checkCommands, {
    cwd: dir,
    timeoutMs: deps.verifyTimeoutMs,
    env: deps.env,
    sandbox: deps.sandbox,
    secrets: deps.secrets,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const blocking = new Set(
    compareToBaseline(deps.baseline ?? [], results)
      .filter(isBlocking)
      .map((c) => c.command),
  );
  const failed = results.filter((r) => !r.passed && blocking.has(r.command));
  if (failed.length === 0) return results;
  const what = failed.map((r) => `\`${r.command}\` (${r.timedOut ? "timed out" : `exit ${r.exitCode}`})`).join(", ");
  throw new OttoError(
    "comment_verify_failed",
    `pr.verify failed on the fix for ${comment.id}, nothing pushed: ${what}.`,
    "Check the commands in pr.verify; the comment is tried again at the next poll.",
  );
}
