import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { redact } from "../../core/index.ts";
import { formatUsage, type Usage } from "../../cost/index.ts";
import type { Runtime } from "../../runtime.ts";
import { newDocument } from "../commands/add.ts";
import type { PrContext } from "../context/context.ts";
import type { PrDocument } from "../store/document.ts";
import { createPrStore, documentKey } from "../store/store.ts";
import type { PrInfo } from "../types.ts";
import { withState, type CiState } from "./state.ts";

/* What the flows of one CI job share (run-ci.ts runs them): the job, its throw-away store, its summary. */

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

/** What one flow did: nothing (and why), or its part of the summary and its cost. */
export type FlowResult = { outcome: "nothing"; why: string } | { outcome: "done"; body: string; usage: Usage };

export interface Job {
  runtime: CiRuntime;
  input: CiInput;
  ctx: PrContext;
  now: () => Date;
  /** This job's name in claims (claims.ts). */
  id: string;
  /**
   * On a PR otto meets for the first time (no state yet): comments before this time count as seen,
   * they were not its to answer. Decided once per job, from the state as the job found it.
   */
  firstSeen?: string;
  lines: string[];
  say(line: string): void;
}

export const nothing = (markdown: string): CiResult => ({ outcome: "nothing", markdown });
export const none = (why: string): FlowResult => ({ outcome: "nothing", why });

/** A throw-away store holding the PR's document built from its state; removed after the job. */
export async function withDocument<T>(
  job: Job,
  pr: PrInfo,
  state: CiState,
  run: (doc: PrDocument, read: () => Promise<PrDocument>, store: ReturnType<typeof createPrStore>) => Promise<T>,
): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-ci-"));
  try {
    const store = createPrStore(dir, () => job.ctx.loaded.secrets);
    const key = documentKey(pr);
    const fresh = newDocument(pr, key, job.ctx.loaded.config.pr.max_fix_attempts, job.now().toISOString());
    // A PR otto meets for the first time: what was said before this job is not its to answer.
    const first = job.firstSeen !== undefined && state.seen_before === undefined ? { ...state, seen_before: job.firstSeen } : state;
    const doc = withState(fresh, first);
    await store.create(doc);
    return await run(doc, async () => (await store.read(key)) ?? doc, store);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export function markSeen(state: CiState, ids: readonly string[]): CiState {
  return ids.length === 0 ? state : { ...state, seen_comment_ids: [...state.seen_comment_ids.filter((id) => !ids.includes(id)), ...ids] };
}

export function summary(job: Job, name: string, body: string, usage: Usage): string {
  const cost = usage.requests > 0 || usage.usd > 0 ? formatUsage(usage) : "no model calls";
  return redact(
    [`## otto ci: ${name}`, "", ...job.lines.map((l) => `- ${l}`), "", body, "", `**Cost**: ${cost} (ledger label \`${name}\`).`].join(
      "\n",
    ),
    job.ctx.loaded.secrets,
  );
}
