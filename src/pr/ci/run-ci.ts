import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import { OttoError, redact } from "../../core/index.ts";
import { addUsage, ZERO_USAGE } from "../../cost/index.ts";
import { resolveTrust } from "../comments/resolve-trust.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { jobId } from "./claims.ts";
import { commentFlow } from "./comment-job.ts";
import { ciContext } from "./context.ts";
import { commentCommand, type CiEvent, type EventComment } from "./event.ts";
import { fixFlow } from "./fix-job.ts";
import { nothing, summary, type CiInput, type CiResult, type CiRuntime, type FlowResult, type Job } from "./job.ts";
import { readCiEvent, type CiPlatform } from "./read-event.ts";
import { openStateStore, type StateStore } from "./state-comment.ts";

/*
 * One CI job, one event, one PR (docs/ci.md): read the event, read the PR and otto's state
 * comment, run the watcher's fix or comment flow on a PR document built from that state in a
 * throw-away store, write the state back, and say what happened. Everything finishes inside the
 * call: `opencode run` exits at the session's first idle.
 */

export type { CiInput, CiResult, CiRuntime } from "./job.ts";

export async function runCi(runtime: CiRuntime, input: CiInput): Promise<CiResult> {
  const now = input.now ?? (() => new Date());
  const { platform, event } = await readCiEvent(runtime.env, (file) => fs.readFile(file, "utf8"));
  input.progress(`otto ci: ${platform} event ${event.kind === "none" ? "with nothing to do" : event.source}`);
  if (event.kind === "none") return nothing(`otto ci: nothing to do: ${event.reason}.`);
  const ctx = await ciContext(runtime, input.directory, event.provider);
  const lines: string[] = [];
  const job: Job = {
    runtime,
    input,
    ctx,
    now,
    id: jobId(runtime.env, () => randomUUID().slice(0, 8)),
    lines,
    say: (line) => {
      const clean = redact(line, ctx.loaded.secrets);
      lines.push(clean);
      input.progress(clean);
    },
  };
  return await onEvent(job, platform, event);
}

async function onEvent(job: Job, platform: CiPlatform, event: Exclude<CiEvent, { kind: "none" }>): Promise<CiResult> {
  const backend = job.ctx.registry.get(event.provider);
  let number = event.number;
  if (number === undefined && event.kind === "failure" && event.branch) {
    number = (await backend.findOpenPr(event.repo, event.branch))?.number;
    if (number === undefined)
      return nothing(`otto ci: nothing to do: ${event.source} on ${event.branch}, which has no open pull request in ${event.repo}.`);
  }
  if (number === undefined) return nothing(`otto ci: nothing to do: ${event.source} names no pull request.`);
  const pr = await backend.getPr({ provider: event.provider, repo: event.repo, number });
  const name = `${pr.repo}#${pr.number}`;
  if (pr.state !== "open") return nothing(`otto ci: nothing to do: ${name} is ${pr.state}.`);
  if (pr.fork)
    return nothing(
      `otto ci: nothing to do: ${name} is from a fork (${pr.headRepo ?? "another repository"}); otto does not work on fork PRs.`,
    );
  job.say(`otto ci: ${event.source} on ${name} (${platform}), head \`${pr.headSha.slice(0, 7)}\``);
  // Azure's fix job (in the PR build) and comment pipeline can run at once: each writes its own state comment.
  const slot = platform === "github" ? "main" : event.kind === "failure" ? "build" : "comments";
  const store = await openStateStore(backend, pr, job.ctx.loaded.secrets, (m) => job.say(`otto ci: ${m}`), slot);
  const login = job.runtime.env.OTTO_GITHUB_BOT_LOGIN?.trim();
  if (job.runtime.env.OTTO_GITHUB_TOKEN_KIND === "machine" && login && login.toLowerCase() !== store.me.toLowerCase())
    throw new OttoError(
      "ci_bot_login",
      `OTTO_BOT_LOGIN is ${login}, but OTTO_GITHUB_TOKEN is ${store.me}'s: the workflow would take otto's own comments for a person's.`,
      `Set the repository variable OTTO_BOT_LOGIN to ${store.me}.`,
    );

  if (event.kind === "failure") {
    if (event.headSha && event.headSha !== pr.headSha)
      return nothing(
        `otto ci: nothing to do: the failure is on \`${event.headSha.slice(0, 7)}\`, and ${name} has moved on to \`${pr.headSha.slice(0, 7)}\`.`,
      );
    return reconcile(job, pr, store, { first: "fix", handled: [], since: job.now().toISOString() });
  }
  let comment: EventComment;
  if (event.kind === "comment") comment = event.comment;
  else {
    const found = readBack(store.comments, event.commentId);
    if (!found)
      return nothing(`otto ci: nothing to do: ${name} has no comment ${event.commentId} (the event named it; the forge does not).`);
    comment = found;
  }
  if (store.me !== undefined && sameAuthor(comment, store.me))
    return nothing(`otto ci: nothing to do: the comment is otto's own (${comment.author}).`);
  const command = commentCommand(comment.body);
  const since = justBefore(comment.createdAt, job.now());
  if (!command) return reconcile(job, pr, store, { first: "comments", handled: [], since });
  const trusted = await trustOf(job, pr, comment);
  if (!trusted.ok) {
    // Said in the job's log only: a reply on the PR would let anyone make otto post.
    return nothing(`otto ci: nothing to do: \`/otto ${command}\` by ${comment.author} is ignored: ${trusted.why}.`);
  }
  job.say(`otto ci: \`/otto ${command}\` by ${comment.author} (trusted: ${trusted.why})`);
  const handled = comment.id ? [comment.id] : [];
  return reconcile(job, pr, store, { first: command === "fix" ? "fix" : "comments", handled, since });
}

/**
 * Both flows, the event's first: GitHub keeps one pending job per concurrency group and Azure's
 * pipelines run apart, so a job cannot rely on its own event being the only one; each reads the
 * PR as it is and does what is left (a red head not yet handled, comments not yet answered).
 */
async function reconcile(
  job: Job,
  first: PrInfo,
  store: StateStore,
  plan: { first: "fix" | "comments"; handled: string[]; since: string },
): Promise<CiResult> {
  const name = `${first.repo}#${first.number}`;
  const found = store.found.state;
  if (found.updated === undefined && found.seen_before === undefined) job.firstSeen = plan.since;
  const backend = job.ctx.registry.get(first.provider);
  const results: FlowResult[] = [];
  let pr = first;
  for (const flow of plan.first === "fix" ? (["fix", "comments"] as const) : (["comments", "fix"] as const)) {
    // The second flow works on the PR as it is after the first (a fix may have pushed).
    if (results.length > 0) pr = await backend.getPr({ provider: pr.provider, repo: pr.repo, number: pr.number });
    const handled = flow === plan.first ? plan.handled : [];
    const result =
      flow === "fix" ? await fixFlow(job, pr, store, handled) : await commentFlow(job, pr, store, handled, flow !== plan.first);
    if (result.outcome === "nothing" && results.length > 0) job.say(`otto ci: ${flow}: nothing to do: ${result.why}.`);
    results.push(result);
  }
  const [own, other] = results;
  if (own?.outcome === "nothing" && other?.outcome === "nothing")
    return nothing(`otto ci: nothing to do: ${own.why}.${other ? ` (${plan.first === "fix" ? "comments" : "fix"}: ${other.why}.)` : ""}`);
  if (own?.outcome === "nothing") job.say(`otto ci: ${plan.first}: nothing to do: ${own.why}.`);
  const done = results.filter((r) => r.outcome === "done");
  const usage = done.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE);
  return { outcome: "done", markdown: summary(job, name, done.map((r) => r.body).join("\n\n"), usage) };
}

/** The comment as the forge has it (who wrote what, when), never as an unsigned payload said. */
function readBack(comments: readonly PrComment[], id: string): EventComment | undefined {
  const c = comments.find((x) => x.id === id);
  if (!c) return undefined;
  return {
    id: c.id,
    author: c.author,
    body: c.body,
    createdAt: c.createdAt,
    ...(c.authorId ? { authorId: c.authorId } : {}),
    ...(c.authorLogin ? { authorLogin: c.authorLogin } : {}),
  };
}

function justBefore(time: string, now: Date): string {
  const at = Date.parse(time);
  return new Date((Number.isFinite(at) ? at : now.getTime()) - 1).toISOString();
}

function sameAuthor(comment: EventComment, me: string): boolean {
  return (comment.authorId ?? comment.author).trim().toLowerCase() === me.trim().toLowerCase();
}

async function trustOf(job: Job, pr: PrInfo, c: EventComment): Promise<{ ok: boolean; why: string }> {
  const comment: PrComment = {
    id: c.id ?? "event",
    kind: "conversation",
    author: c.author,
    body: c.body,
    createdAt: c.createdAt,
    resolved: false,
    ...(c.association ? { association: c.association } : {}),
    ...(c.authorId ? { authorId: c.authorId } : {}),
    ...(c.authorLogin ? { authorLogin: c.authorLogin } : {}),
  };
  const backend = job.ctx.registry.get(pr.provider);
  const decisions = await resolveTrust({
    backend,
    pr,
    comments: [comment],
    policy: job.ctx.loaded.config.pr.trusted_authors,
    secrets: job.ctx.loaded.secrets,
    log: (level, message) => job.runtime.log.log(level, message),
  });
  const decision = decisions.get(comment.id);
  const why: Record<string, string> = {
    listed: "listed in pr.trusted_authors",
    association: "the repository's owner",
    access: "may change the repository",
    not_listed: "not in pr.trusted_authors (mode only)",
    no_access: "may not change the repository",
    lookup_failed: "otto could not check whether they may change the repository",
  };
  return { ok: decision?.trusted === true, why: why[decision?.reason ?? "lookup_failed"] ?? "untrusted" };
}
