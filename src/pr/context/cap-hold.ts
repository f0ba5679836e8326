import type { Env } from "../../core/index.ts";
import type { Notify } from "../../notify/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PrStore } from "../store/store.ts";
import { capText, firstToday, utcDay, type CapCheck } from "./spend.ts";

/*
 * What the watcher does when a daily cap stops model work on a PR (src/pr/spend.ts): the PR waits
 * (no attempt counted, no comment recorded as seen), its document notes the hold once a day, and
 * a person is told once: per PR and day for the PR's cap, once a day for the watcher's cap over
 * all PRs. The next cycle after the day turns (or after the cap was raised) tries again.
 */

export interface CapHoldDeps {
  store: PrStore;
  notify: Notify;
  env: Env;
  now(): Date;
  log(level: "info" | "warn", message: string, extra?: Record<string, unknown>): void;
}

type Reached = Extract<CapCheck, { kind: "pr" | "watcher" }>;

/** Holds the PR at the cap; the text that says why (for the flow's summary). */
export async function holdAtCap(deps: CapHoldDeps, doc: PrDocument, label: string, check: Reached, what: string): Promise<string> {
  const now = deps.now();
  const day = utcDay(now);
  const { title, text } = capText(check, label, now);
  let first = false;
  await deps.store.update(doc.key, (current) => {
    if (current.data.cap_hold === day) return undefined;
    first = true;
    return {
      ...current,
      data: { ...current.data, cap_hold: day },
      log: [...current.log, logLine(now.toISOString(), `${what} held at the daily cap: ${text}`)],
    };
  });
  const notify = check.kind === "pr" ? first : await firstToday(deps.env, "watcher-cap", now);
  if (notify) {
    deps.log("warn", text);
    const report = await deps.notify({
      kind: "human_needed",
      title,
      text,
      url: doc.data.url,
      facts: { Repository: doc.data.repo, Branch: doc.data.branch },
    });
    for (const failure of report.failed) deps.log("warn", `notification via ${failure.channel} failed`, { error: failure.error });
  }
  await warnUnpriced(deps, check.unpriced);
  return text;
}

/** Work resumed under the caps: the hold is over (written only when there was one). */
export async function releaseCapHold(store: PrStore, key: string): Promise<void> {
  await store.update(key, (current) =>
    current.data.cap_hold ? { ...current, data: { ...current.data, cap_hold: undefined } } : undefined,
  );
}

/** Dollar caps cannot count calls of a model without a price: said once a day in the log. */
export async function warnUnpriced(deps: Pick<CapHoldDeps, "env" | "now" | "log">, unpriced: boolean): Promise<void> {
  if (!unpriced || !(await firstToday(deps.env, "unpriced", deps.now()))) return;
  deps.log(
    "warn",
    "The PR watcher's daily caps are in dollars, but some of today's model calls were of a model without a price in OpenCode's config: their cost is unknown and not counted against limits.pr_usd_per_day or limits.watcher_usd_per_day (their tokens are recorded). Give the model a price (provider.<id>.models.<id>.cost) for the caps to hold.",
  );
}
