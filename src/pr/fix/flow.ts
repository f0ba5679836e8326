import { OttoError, redact, type Env } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import { Account, formatUsage, subtractUsage, totalTokens, ZERO_USAGE, type Budget, type Usage } from "../../cost/index.ts";
import type { Notify } from "../../notify/index.ts";
import type { ModelRef, SessionRunner } from "../../session/index.ts";
import type { PrBackend } from "../backend.ts";
import type { commitAndPush } from "../../workspace/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";
import type { PipelineStatus, PrInfo } from "../types.ts";
import { prLabel } from "../context/daily-caps.ts";
import { addSpend, type SpendItem } from "../context/spend.ts";
import { appendHistory, renderEntry, type HistoryEntry, type Trigger } from "./decide.ts";
import type { Verdict } from "./verdict.ts";

/* One run of the fix flow: its dependencies, the PR it works on, and how it records what happens. */

export interface FixModels {
  /** Phase 1 (models.primary). */
  analysis: ModelRef;
  /** Phase 2 and conflict resolution (models.fix, else primary). */
  fix: ModelRef;
  /** The review of each fix before it is pushed (models.secondary, else primary). */
  review: ModelRef;
}

export interface FixDeps {
  store: PrStore;
  config: Config;
  /** Credentials of the config, redacted from everything written or posted. */
  secrets: readonly string[];
  notify: Notify;
  sessions: SessionRunner;
  env: Env;
  /** Where the command runs: the PR's repository when no tracked repo holds it. */
  cwd: string;
  models(): Promise<FixModels>;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
  progress?(message: string): void;
  parentID?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The push seam (tests fail it on purpose). */
  push?: typeof commitAndPush;
  /** /otto-pr fix's --budget / --max-tokens (else limits.run_usd / run_tokens); the watcher's runs get what is left of its daily caps. */
  budget?: Budget | undefined;
}

export interface FixInput {
  doc: PrDocument;
  pr: PrInfo;
  pipeline: PipelineStatus;
  backend: PrBackend;
  trigger: Trigger;
}

/** `held`: a daily cap of the watcher is reached; the PR waits for the next UTC day (or a raised cap). */
export type FixResult =
  | "pushed"
  | "rerun"
  | "gave_up"
  | "stopped"
  | "refused"
  | "busy"
  | "deferred"
  | "human"
  | "held"
  /** A flake (known, or passing in otto's sandbox): recorded, re-run, no model call. */
  | "flaky"
  /** The default branch fails the same way: no fix while it does. */
  | "inherited";

export interface FixOutcome {
  key: string;
  result: FixResult;
  /** Markdown lines for the user. */
  lines: string[];
  /** What the run's model calls cost, in all and per part ("analysis", "attempt 1"). */
  usage?: Usage;
  parts?: Array<{ name: string; usage: Usage }>;
}

export const short = (sha: string): string => sha.slice(0, 7);

const spentSome = (usage: Usage): boolean => usage.requests > 0 || totalTokens(usage) > 0 || usage.usd > 0;

export class Flow {
  readonly key: string;
  readonly failedChecks: string[];
  summary: string | undefined;
  verdict: Verdict | undefined;
  /** "checks: npm test (detected: package.json scripts.test); baseline: npm test: passed", once they are known. */
  checks: string | undefined;
  /** The run's spend (labels repo, pr, run); its parts are the analysis and each `fix attempt N`. */
  readonly account: Account;
  readonly parts: Array<{ name: string; usage: Usage }> = [];
  /** The account's spend already written into the document. */
  #recorded: Usage = ZERO_USAGE;

  constructor(
    readonly deps: FixDeps,
    readonly input: FixInput,
    account?: Account,
  ) {
    this.key = input.doc.key;
    this.failedChecks = input.pipeline.checks.filter((c) => c.state === "failure").map((c) => c.name);
    this.account =
      account ??
      new Account(`pr fix ${input.doc.key}`, {
        labels: { repo: input.doc.data.repo, pr: prLabel(input.doc.data), run: deps.now().toISOString() },
      });
  }

  progress(message: string): void {
    this.deps.progress?.(message);
  }

  time(): string {
    return this.deps.now().toISOString();
  }

  entry(title: string, result: string, extra: Partial<HistoryEntry> = {}): HistoryEntry {
    return {
      time: this.time(),
      trigger: this.input.trigger,
      title,
      headSha: this.input.pr.headSha,
      failedChecks: this.failedChecks,
      verdict: this.verdict,
      result,
      ...extra,
    };
  }

  /**
   * One locked read-modify-write: frontmatter changes, a Fix History entry, log lines; redacted.
   * The run's spend not yet in the document is added to it (and an attempt's own, `spend`).
   */
  async record(change: {
    data?: Partial<PrDocument["data"]>;
    entry?: HistoryEntry;
    log?: string[];
    spend?: SpendItem;
  }): Promise<PrDocument> {
    const clean = (text: string): string => redact(text, this.deps.secrets);
    const spent = this.account.usage;
    const delta = subtractUsage(spent, this.#recorded);
    const now = this.deps.now();
    const written = await this.deps.store.update(this.key, (current) => ({
      ...current,
      data: {
        ...current.data,
        ...change.data,
        ...(spentSome(delta) || change.spend ? { spend: addSpend(current.data.spend, delta, now, change.spend) } : {}),
      },
      sections: change.entry ? appendHistory(current.sections, clean(renderEntry(change.entry))) : current.sections,
      log: [...current.log, ...(change.log ?? []).map((l) => logLine(this.time(), clean(l)))],
    }));
    if (!written)
      throw new OttoError(
        "pr_not_tracked",
        `PR ${this.key} is no longer tracked; the fix stopped.`,
        "Add it again with /otto-pr add <url>.",
      );
    this.#recorded = spent;
    return written;
  }

  /** Writes the spend not yet in the document (the end of a run, whichever way it ended). */
  async recordSpend(): Promise<void> {
    if (spentSome(subtractUsage(this.account.usage, this.#recorded))) await this.record({});
  }

  async notifyHuman(title: string, text: string): Promise<void> {
    const { doc } = this.input;
    const report = await this.deps.notify({
      kind: "human_needed",
      title,
      text,
      url: doc.data.url,
      facts: { Repository: doc.data.repo, Branch: doc.data.branch },
    });
    for (const failure of report.failed) this.deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
  }

  outcome(result: FixResult, ...lines: string[]): FixOutcome {
    return { key: this.key, result, lines };
  }
}

/** "analysis 3.2k tokens, $0.01; attempt 1 5.1k tokens, $0.02": the parts of a run's spend. */
export function spendLine(parts: ReadonlyArray<{ name: string; usage: Usage }>): string {
  return parts.map((p) => `${p.name} ${formatUsage(p.usage)}`).join("; ");
}

export function summaryLines(flow: Flow): string[] {
  const checks = flow.checks ? ["", flow.checks.charAt(0).toUpperCase() + flow.checks.slice(1)] : [];
  return flow.summary
    ? [...checks, "", `Verdict: ${flow.verdict ?? "none given"}. Failure summary and every attempt: /otto-pr log ${flow.input.doc.data.id}`]
    : checks;
}
