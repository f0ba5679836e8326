import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { formatError, redact } from "../../core/index.ts";
import { formatUsage, ZERO_USAGE, type Usage } from "../../cost/index.ts";
import type { Runtime } from "../../runtime.ts";
import { newDocument } from "../commands/add.ts";
import { resolveTrust } from "../comments/resolve-trust.ts";
import { renderCommentPass } from "../comments/render-pass.ts";
import { runCommentPass } from "../comments/run-comments.ts";
import type { PrContext } from "../context/context.ts";
import { configuredModels, renderOutcome } from "../fix/entry.ts";
import { runFix } from "../fix/run-fix.ts";
import { pipelineSummary } from "../pipeline.ts";
import { prLabel } from "../context/spend.ts";
import type { PrDocument } from "../store/document.ts";
import { createPrStore, documentKey } from "../store/store.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { checkoutPrBranch } from "./checkout.ts";
import { ciContext } from "./context.ts";
import { commentCommand, type CiEvent, type EventComment } from "./event.ts";
import { carrySpend } from "./ledger-carry.ts";
import { readCiEvent, type CiPlatform } from "./read-event.ts";
import { openStateStore, type StateStore } from "./state-comment.ts";
import { MAX_HANDLED_HEADS, stateOf, withState, type CiState } from "./state.ts";
import { flakesOf, seedLedger, settleProbe } from "./flake-state.ts";
import { flakeLedgerFile, readFlakeLedger, updateFlakeLedger } from "../store/flakes.ts";

/*
 * One CI job, one event, one PR (docs/ci.md): read the event, read the PR and otto's state
 * comment, run the watcher's fix or comment flow on a PR document built from that state in a
 * throw-away store, write the state back, and say what happened. Everything finishes inside the
 * call: `opencode run` exits at the session's first idle.
 */

export type CiRuntime = Pick<Runtime, "client" | "env" | "log" | "directory" | "sessions" | "secrets">;

export interface CiInput {
  directory: string;
  sessionID: string;
  signal?: AbortSignal | undefined;
  progress(message: string): void;
  now?: () => Date;
}

export interface CiResult {
  /** done: the work ran; nothing: nothing to do (both exit 0). */
  outcome: "done" | "nothing";
  markdown: string;
}

interface Job {
  runtime: CiRuntime;
  input: CiInput;
  ctx: PrContext;
  now: () => Date;
  lines: string[];
  say(line: string): void;
}

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
    lines,
    say: (line) => {
      const clean = redact(line, ctx.loaded.secrets);
      lines.push(clean);
      input.progress(clean);
    },
  };
  return await onEvent(job, platform, event);
}

const nothing = (markdown: string): CiResult => ({ outcome: "nothing", markdown });

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
  const store = await openStateStore(backend, pr, job.ctx.loaded.secrets, (m) => job.say(`otto ci: ${m}`));

  if (event.kind === "failure") {
    if (event.headSha && event.headSha !== pr.headSha)
      return nothing(
        `otto ci: nothing to do: the failure is on \`${event.headSha.slice(0, 7)}\`, and ${name} has moved on to \`${pr.headSha.slice(0, 7)}\`.`,
      );
    return fixFlow(job, pr, store, []);
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
  if (!command) return commentFlow(job, pr, store, [], since);
  const trusted = await trustOf(job, pr, comment);
  if (!trusted.ok) {
    // Said in the job's log only: a reply on the PR would let anyone make otto post.
    return nothing(`otto ci: nothing to do: \`/otto ${command}\` by ${comment.author} is ignored: ${trusted.why}.`);
  }
  job.say(`otto ci: \`/otto ${command}\` by ${comment.author} (trusted: ${trusted.why})`);
  const handled = comment.id ? [comment.id] : [];
  return command === "fix" ? fixFlow(job, pr, store, handled) : commentFlow(job, pr, store, handled, since);
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

/** A throw-away store holding the PR's document built from its state; removed after the job. */
async function withDocument<T>(
  job: Job,
  pr: PrInfo,
  state: CiState,
  firstSeen: string,
  run: (doc: PrDocument, read: () => Promise<PrDocument>, store: ReturnType<typeof createPrStore>) => Promise<T>,
): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-ci-"));
  try {
    const store = createPrStore(dir, () => job.ctx.loaded.secrets);
    const key = documentKey(pr);
    const fresh = newDocument(pr, key, job.ctx.loaded.config.pr.max_fix_attempts, job.now().toISOString());
    // A PR otto meets for the first time: what was said before this job is not its to answer.
    const first = state.updated === undefined && state.seen_before === undefined ? { ...state, seen_before: firstSeen } : state;
    const doc = withState(fresh, first);
    await store.create(doc);
    return await run(doc, async () => (await store.read(key)) ?? doc, store);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function markSeen(state: CiState, ids: readonly string[]): CiState {
  return ids.length === 0 ? state : { ...state, seen_comment_ids: [...state.seen_comment_ids.filter((id) => !ids.includes(id)), ...ids] };
}

/**
 * A re-run to tell a flake that an earlier job started on this head (pr.flakes.rerun): green now,
 * so each probed check was a flake, recorded in the state. The state to go on from.
 */
async function settleFlakeProbe(job: Job, pr: PrInfo, store: StateStore): Promise<CiState> {
  const state = store.found.state;
  if (state.flake_probe?.sha !== pr.headSha) return state;
  const status = await job.ctx.registry.get(pr.provider).getPipelineStatus(pr);
  const settled = settleProbe(state, status, job.now());
  if (!settled) return state;
  job.say(
    `otto ci: ${state.flake_probe.checks.map((c) => c.name).join(", ")} passed when otto re-ran the failed jobs of \`${pr.headSha.slice(0, 7)}\`: recorded as flaky in otto's state comment`,
  );
  await store.save(settled);
  return settled;
}

async function fixFlow(job: Job, pr: PrInfo, store: StateStore, handled: string[]): Promise<CiResult> {
  const name = `${pr.repo}#${pr.number}`;
  const before = markSeen(await settleFlakeProbe(job, pr, store), handled);
  // A head otto re-ran to tell a flake is judged again when it fails again (the analysis is told so).
  const probing = before.flake_probe?.sha === pr.headSha;
  if (before.handled_heads.includes(pr.headSha) && !probing) {
    if (handled.length > 0) await store.save(before);
    return nothing(
      `otto ci: nothing to do: otto already worked on the failure of \`${pr.headSha.slice(0, 7)}\` on ${name} (its state comment says so).`,
    );
  }
  if (before.gave_up)
    return nothing(`otto ci: nothing to do: otto gave up on ${name} at ${before.gave_up} after ${before.fix_attempts} attempt(s).`);
  const backend = job.ctx.registry.get(pr.provider);
  const pipeline = await backend.getPipelineStatus(pr);
  if (pipeline.state !== "failure") {
    if (handled.length > 0) await store.save(before);
    return nothing(
      `otto ci: nothing to do: the pipeline of ${name} is ${pipeline.state} (${pipelineSummary(pipeline.checks)}) on \`${pr.headSha.slice(0, 7)}\`.`,
    );
  }
  job.say(
    `otto ci: the pipeline failed (${pipelineSummary(pipeline.checks)}); claiming \`${pr.headSha.slice(0, 7)}\` in otto's state comment`,
  );
  // Claimed before any work: a second job on the same head reads it and does nothing.
  const claimed: CiState = {
    ...before,
    handled_heads: [...before.handled_heads.filter((h) => h !== pr.headSha), pr.headSha].slice(-MAX_HANDLED_HEADS),
    updated: job.now().toISOString(),
  };
  await store.save(claimed);
  job.say(`otto ci: ${await checkoutPrBranch({ dir: job.input.directory, branch: pr.sourceBranch, env: job.runtime.env })}`);
  const label = prLabel({ repo: pr.repo, id: String(pr.number) });
  const carried = await carrySpend(job.runtime.env, label, before.spend, job.now());
  if (carried.usd > 0)
    job.say(
      `otto ci: ${label} spent ${formatUsage(carried)} earlier today (carried from otto's state comment into this runner's ledger for limits.pr_usd_per_day)`,
    );
  return withDocument(job, pr, claimed, job.now().toISOString(), async (doc, read, docs) => {
    const failed = { ...doc, data: { ...doc.data, status: "failed" as const, pipeline: pipeline.state, checks: pipeline.checks } };
    await docs.update(doc.key, () => failed);
    // The job's flake ledger (in the throw-away store) starts from the PR's verdicts in the state.
    const ledger = flakeLedgerFile(docs.dir, pr.provider, pr.repo);
    if (claimed.flakes.length > 0)
      await updateFlakeLedger(ledger, (l) => seedLedger(l, claimed.flakes, doc.key, pr), { provider: pr.provider, repo: pr.repo });
    let markdown: string;
    try {
      const outcome = await runFix(
        {
          store: docs,
          config: job.ctx.loaded.config,
          secrets: job.ctx.loaded.secrets,
          notify: job.ctx.notify,
          sessions: job.runtime.sessions,
          env: job.runtime.env,
          cwd: job.input.directory,
          now: job.now,
          log: (level, message, extra) => job.runtime.log.log(level, message, extra),
          models: async () => configuredModels(job.ctx.loaded.config.models),
          progress: (m) => job.input.progress(m),
          parentID: job.input.sessionID,
          ...(job.input.signal ? { signal: job.input.signal } : {}),
        },
        { doc: failed, pr, pipeline, backend, trigger: "watcher" },
      );
      markdown = summary(job, name, renderOutcome(outcome).replace(/^## otto-pr fix: /, "### fix: "), outcome.usage ?? ZERO_USAGE);
    } finally {
      // Whatever happened is otto's state now, an error included: the next job starts from it.
      const flakes = await readFlakeLedger(ledger)
        .then((l) => flakesOf(l, doc.key, claimed.flakes))
        .catch(() => claimed.flakes);
      await store
        .save(stateOf(await read(), claimed, job.now(), pr.headSha, flakes))
        .catch((error: unknown) => job.say(`otto ci: could not write otto's state comment: ${formatError(error)}`));
    }
    return { outcome: "done", markdown };
  });
}

/** `since`: on a PR otto meets for the first time, comments before this one count as seen (they were not its to answer). */
async function commentFlow(job: Job, pr: PrInfo, store: StateStore, handled: string[], since: string): Promise<CiResult> {
  const name = `${pr.repo}#${pr.number}`;
  const before = markSeen(await settleFlakeProbe(job, pr, store), handled);
  job.say(`otto ci: ${await checkoutPrBranch({ dir: job.input.directory, branch: pr.sourceBranch, env: job.runtime.env })}`);
  const label = prLabel({ repo: pr.repo, id: String(pr.number) });
  await carrySpend(job.runtime.env, label, before.spend, job.now());
  return withDocument(job, pr, before, since, async (doc, read, docs) => {
    let markdown: string;
    try {
      const report = await runCommentPass(
        {
          store: docs,
          sessions: job.runtime.sessions,
          model: async () => configuredModels(job.ctx.loaded.config.models).analysis,
          parentID: job.input.sessionID,
          cwd: job.input.directory,
          config: job.ctx.loaded.config,
          secrets: job.ctx.loaded.secrets,
          env: job.runtime.env,
          notify: job.ctx.notify,
          now: job.now,
          log: (level, message, extra) => job.runtime.log.log(level, message, extra),
          signal: job.input.signal,
          progress: (m) => job.input.progress(m),
        },
        { doc, pr, backend: job.ctx.registry.get(pr.provider) },
      );
      markdown = summary(job, name, `### comments\n\n${renderCommentPass(report, pr)}`, report.usage ?? ZERO_USAGE);
    } finally {
      await store
        .save(stateOf(await read(), before, job.now()))
        .catch((error: unknown) => job.say(`otto ci: could not write otto's state comment: ${formatError(error)}`));
    }
    return { outcome: "done", markdown };
  });
}

function summary(job: Job, name: string, body: string, usage: Usage): string {
  const cost = usage.requests > 0 || usage.usd > 0 ? formatUsage(usage) : "no model calls";
  return redact(
    [`## otto ci: ${name}`, "", ...job.lines.map((l) => `- ${l}`), "", body, "", `**Cost**: ${cost} (ledger label \`${name}\`).`].join(
      "\n",
    ),
    job.ctx.loaded.secrets,
  );
}
