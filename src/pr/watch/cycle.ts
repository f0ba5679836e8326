import pLimit from "p-limit";
import { formatError, redact, errorText } from "../../core/index.ts";
import { limitNotify, MAX_NOTIFICATIONS_PER_PR_CYCLE, type Notify } from "../../notify/index.ts";
import type { PrBackend, PrSkim, RepoSkim } from "../backend.ts";
import type { BackendRegistry } from "../context/registry.ts";
import type { CycleHooks } from "../context/hooks.ts";
import { logLine, type PrDocument, type PrStatus } from "../store/document.ts";
import { listCacheKey, type PrStore } from "../store/store.ts";
import { seenOf, seenTest, type SeenComments } from "../store/seen.ts";
import { pollMode, type PollMode } from "./poll-mode.ts";
import { pipelineSummary } from "../pipeline.ts";
import { prLabel } from "../context/daily-caps.ts";
import type { Usage } from "../../cost/index.ts";
import { planError, shouldPoll } from "./plan.ts";
import { greenComment, planRefresh, type Observed, type PrEvent } from "../store/refresh.ts";
import { OTTO_MARKER, unhandledComments } from "../store/markers.ts";

/*
 * One watcher cycle: the PR list of each repository is read first (one conditional request on
 * GitHub), then every tracked PR is refreshed as much as that list says it needs (poll-mode.ts),
 * in parallel up to a limit. One PR's error
 * is recorded on that PR (with a backoff) and never stops the others. The fix and comment flows
 * plug in through onFailure and onComments; their errors are theirs, not the poll's.
 */

export interface CycleDeps extends CycleHooks {
  store: PrStore;
  registry: BackendRegistry;
  notify: Notify;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
  /** How often cycles run; the backoff of a failing PR is counted in intervals. */
  intervalMs: number;
  /** PRs polled at the same time. */
  concurrency: number;
  /** pr.full_poll_interval in ms: how often a PR that looks unchanged in its list is read in full anyway. */
  fullPollMs: number;
  /** Ignore per-PR backoff and read every PR in full (a cycle the user asked for). */
  force?: boolean;
  /** Credentials of the config, redacted from every error otto records or logs. */
  secrets?: readonly string[];
}

export type Outcome = "updated" | "unchanged" | "final" | "backoff" | "error" | "removed";

export interface PrResult {
  key: string;
  /** The ledger's label of the PR (src/pr/context/daily-caps.ts): what the cycle's spend is summed by. */
  pr?: string;
  outcome: Outcome;
  status: PrStatus;
  summary: string;
  events: PrEvent[];
  error?: string;
  /** What the PR's model work cost in the cycle (src/pr/watch/cycle-spend.ts fills it in). */
  usage?: Usage;
}

export interface CycleReport {
  started: string;
  finished: string;
  results: PrResult[];
}

/**
 * The token's user, asked only when an unhandled comment carries otto's marker: only then must
 * otto's own comments be told from a reviewer who pasted the marker, so idle polls stay free.
 */
async function tokenUserIfMarked(backend: PrBackend, observed: Observed, seen: SeenComments, deps: CycleDeps): Promise<string | undefined> {
  const wasSeen = seenTest(seen);
  const marked = (observed.comments ?? []).some((c) => !c.resolved && !wasSeen(c) && c.body.includes(OTTO_MARKER));
  if (!marked) return undefined;
  return backend.currentUser(observed.pr).catch((error: unknown) => {
    deps.log("warn", `could not read the token's user for ${observed.pr.url}; otto's marker alone decides`, {
      error: redact(formatError(error), deps.secrets),
    });
    return undefined;
  });
}

/** Where a PR's list entry is found: PR numbers repeat across repositories. */
const repoKey = (provider: string, repo: string): string => `${provider} ${repo.toLowerCase()}`;

/**
 * The PR lists of every repository with a PR to poll, one skim per repository. A forge without
 * skims, a failed skim or a forced cycle leaves the repository out: its PRs are read in full.
 */
async function skimRepositories(docs: readonly PrDocument[], deps: CycleDeps): Promise<Map<string, RepoSkim>> {
  const out = new Map<string, RepoSkim>();
  if (deps.force) return out;
  const groups = new Map<string, { provider: PrDocument["data"]["provider"]; repo: string; numbers: number[] }>();
  for (const doc of docs) {
    if (shouldPoll(doc, deps.now(), false) !== "poll") continue;
    const key = repoKey(doc.data.provider, doc.data.repo);
    const group = groups.get(key) ?? { provider: doc.data.provider, repo: doc.data.repo, numbers: [] };
    group.numbers.push(Number(doc.data.id));
    groups.set(key, group);
  }
  const limit = pLimit(Math.max(1, deps.concurrency));
  await Promise.all(
    [...groups].map(([key, group]) =>
      limit(async () => {
        const backend = deps.registry.get(group.provider);
        if (!backend.skimRepo) return;
        try {
          const cache = await deps.store.loadCache(listCacheKey(group.provider, group.repo));
          out.set(key, await backend.skimRepo(group.repo, group.numbers, { cache }));
          await cache.save();
        } catch (error) {
          deps.log("warn", `could not list the pull requests of ${group.repo}; its PRs are read one by one`, {
            error: redact(formatError(error), deps.secrets),
          });
        }
      }),
    ),
  );
  return out;
}

interface Observation {
  observed: Observed;
  /** PR, pipeline and comments were all read. */
  full: boolean;
}

async function observe(
  backend: PrBackend,
  doc: PrDocument,
  deps: CycleDeps,
  mode: PollMode,
  skim: PrSkim | undefined,
  repo: RepoSkim | undefined,
): Promise<Observation> {
  if (mode === "skip" && skim) return { observed: { pr: skim.pr }, full: false };
  const cache = await deps.store.loadCache(doc.key);
  const options = { cache };
  if (mode === "pipeline" && skim && repo) {
    const pipeline = await backend.getPipelineStatus(skim.pr, options);
    // Still running (or as it was): the list's PR will do. A finished pipeline is read in full below.
    if (pipeline.state === doc.data.pipeline) {
      const comments = repo.commentsInVersion ? undefined : await backend.getComments(skim.pr, options);
      await cache.save();
      return { observed: { pr: skim.pr, pipeline, ...(comments ? { comments } : {}) }, full: false };
    }
  }
  const pr = await backend.getPr({ provider: doc.data.provider, number: Number(doc.data.id), repo: doc.data.repo }, options);
  if (pr.state !== "open") return { observed: { pr }, full: true };
  const [pipeline, comments] = await Promise.all([backend.getPipelineStatus(pr, options), backend.getComments(pr, options)]);
  // Saved after every call succeeded: a half-failed poll must not leave ETags for data never applied.
  await cache.save();
  return { observed: { pr, pipeline, comments }, full: true };
}

async function refresh(doc: PrDocument, deps: CycleDeps, repo: RepoSkim | undefined): Promise<PrResult> {
  const result = (outcome: Outcome, d: PrDocument, events: PrEvent[] = [], error?: string): PrResult => ({
    key: d.key,
    pr: prLabel(d.data),
    outcome,
    status: d.data.status,
    summary: pipelineSummary(d.data.checks),
    events,
    ...(error ? { error } : {}),
  });
  const now = deps.now();
  const decision = shouldPoll(doc, now, deps.force === true);
  if (decision !== "poll") return result(decision, doc);
  const backend = deps.registry.get(doc.data.provider);
  try {
    const skim = repo?.prs.get(Number(doc.data.id));
    const mode = pollMode({ doc, skim, now, fullEveryMs: deps.fullPollMs, force: deps.force === true });
    const { observed, full } = await observe(backend, doc, deps, mode, skim, repo);
    const me = await tokenUserIfMarked(backend, observed, seenOf(doc.data), deps);
    const first = planRefresh(doc, observed, now.toISOString(), me);
    let posted = false;
    if (first.postGreenComment && observed.pipeline) {
      await backend.postComment(observed.pr, greenComment(observed.pipeline));
      posted = true;
    }
    let events: PrEvent[] = [];
    // Whatever this PR's poll and flows have to say this cycle shares one budget of notifications.
    const notify = limitNotify(deps.notify, {
      max: MAX_NOTIFICATIONS_PER_PR_CYCLE,
      subject: `PR #${doc.data.id} (${doc.data.repo})`,
      log: (message) => deps.log("info", message),
    });
    const written = await deps.store.update(doc.key, (current) => {
      // Planned again on the document as it is now: a command may have changed it meanwhile.
      const plan = planRefresh(current, observed, now.toISOString(), me);
      events = plan.events;
      let data = posted && observed.pipeline ? { ...plan.data, green_sha: observed.pipeline.headSha } : plan.data;
      // The version read with it: until the list shows another, this PR costs nothing more.
      if (full) data = { ...data, full_checked: now.toISOString(), ...(skim ? { seen_version: skim.version } : {}) };
      return { ...current, data, log: [...current.log, ...plan.log.map((l) => logLine(now.toISOString(), l))] };
    });
    if (!written) return result("removed", doc);
    if (events.includes("green") && posted) await notifyGreen(deps, notify, written);
    if (events.includes("green") && written.data.flake_probe && deps.onGreen && observed.pipeline) {
      await deps.onGreen({ doc: written, pr: observed.pr, pipeline: observed.pipeline, backend, notify }).catch((error: unknown) => {
        deps.log("warn", `flake record for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    // A PR held at a daily cap is handed to the fix flow again each full poll: it starts once the day turns or the cap is raised.
    const heldFailure =
      written.data.cap_hold !== undefined &&
      written.data.status === "failed" &&
      observed.pipeline?.state === "failure" &&
      !written.data.gave_up;
    // A PR whose failure the default branch has too is handed back at each full poll: it is fixed once main is green.
    const inherited =
      full &&
      written.data.inherited?.sha === observed.pipeline?.headSha &&
      written.data.status === "failed" &&
      observed.pipeline?.state === "failure";
    if ((events.includes("failure") || heldFailure || inherited) && deps.onFailure && observed.pipeline) {
      // The fix flow's own errors are its business; the poll itself succeeded.
      await deps.onFailure({ doc: written, pr: observed.pr, pipeline: observed.pipeline, backend, notify }).catch((error: unknown) => {
        deps.log("warn", `fix flow for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    if (deps.onPolled && observed.pr.state === "open") {
      await deps.onPolled({ doc: written, pr: observed.pr, backend }).catch((error: unknown) => {
        deps.log("warn", `workflow steps for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    const unhandled = unhandledComments(observed.comments ?? [], seenOf(written.data), me);
    if (unhandled.length > 0 && deps.onComments) {
      await deps.onComments({ doc: written, pr: observed.pr, comments: unhandled, backend, notify }).catch((error: unknown) => {
        deps.log("warn", `comment flow for ${doc.key} failed`, { error: redact(formatError(error), deps.secrets) });
      });
    }
    return result(events.length > 0 ? "updated" : "unchanged", written, events);
  } catch (error) {
    const message = redact(errorText(error), deps.secrets);
    deps.log("warn", `poll of ${doc.key} failed`, { error: message });
    const written = await deps.store
      .update(doc.key, (current) => {
        const plan = planError(current, message, now, deps.intervalMs);
        return { ...current, data: plan.data, log: [...current.log, ...plan.log.map((l) => logLine(now.toISOString(), l))] };
      })
      .catch(() => undefined);
    return result("error", written ?? doc, [], message);
  }
}

async function notifyGreen(deps: CycleDeps, notify: Notify, doc: PrDocument): Promise<void> {
  const report = await notify({
    kind: "pr_green",
    title: `PR #${doc.data.id} is green: ${doc.data.title}`,
    text: `All checks pass on ${doc.data.branch} (${pipelineSummary(doc.data.checks)}).`,
    url: doc.data.url,
    facts: { Repository: doc.data.repo, Branch: `${doc.data.branch} → ${doc.data.target}` },
  });
  for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
}

export async function runCycle(deps: CycleDeps): Promise<CycleReport> {
  const started = deps.now().toISOString();
  const { docs, broken } = await deps.store.list();
  for (const b of broken) deps.log("warn", `unreadable PR document ${b.file}`, { error: b.error });
  const skims = await skimRepositories(docs, deps);
  const limit = pLimit(Math.max(1, deps.concurrency));
  const results = await Promise.all(
    docs.map((doc) => limit(() => refresh(doc, deps, skims.get(repoKey(doc.data.provider, doc.data.repo))))),
  );
  return { started, finished: deps.now().toISOString(), results };
}
