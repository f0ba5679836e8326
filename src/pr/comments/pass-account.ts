import { Account, runBudget, type Usage } from "../../cost/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PrComment } from "../types.ts";
import { addSpend, capReached, prLabel, readCaps, type CapCheck, type DailyCaps } from "../context/spend.ts";
import { holdAtCap, releaseCapHold, warnUnpriced, type CapHoldDeps } from "../context/cap-hold.ts";
import type { CommentFlowDeps } from "./pass-types.ts";

/*
 * What a comment pass may spend: its account (the watcher's daily caps, or limits.run_* for a pass
 * by hand), each comment's spend into the PR document, and what a budget stop holds.
 */

function capDeps(deps: CommentFlowDeps): CapHoldDeps {
  return { store: deps.store, notify: deps.notify, env: deps.env, now: deps.now, log: deps.log };
}

export interface PassAccount {
  account: Account;
  /** The watcher's caps when it opened (for which one a budget stop reached). */
  check?: Extract<CapCheck, { kind: "open" }>;
  caps: DailyCaps;
}

/**
 * The pass's account (labels repo, pr, run): the watcher's gets what is left of its daily caps as
 * its budget, or no account at all when a cap is reached (the comments wait, unseen); a pass by
 * hand gets limits.run_usd / run_tokens.
 */
export async function openAccount(deps: CommentFlowDeps, doc: PrDocument): Promise<PassAccount | { held: string }> {
  const label = prLabel(doc.data);
  const limits = deps.config.limits;
  const caps: DailyCaps = { prUsd: limits.pr_usd_per_day, watcherUsd: limits.watcher_usd_per_day };
  let check: Extract<CapCheck, { kind: "open" }> | undefined;
  if (!deps.manual) {
    const found = await readCaps(deps.env, caps, label, deps.now());
    if (found.kind !== "open") return { held: await holdAtCap(capDeps(deps), doc, label, found, "comments") };
    check = found;
    if (doc.data.cap_hold) await releaseCapHold(deps.store, doc.key);
    await warnUnpriced(capDeps(deps), found.unpriced);
  }
  const budget = check
    ? check.budget
    : runBudget(
        {},
        { usd: limits.run_usd, tokens: limits.run_tokens },
        `Run /otto-pr comments ${doc.data.id} again: the comments not answered yet are answered then.`,
      );
  const account = new Account(`pr comments ${doc.key}`, {
    labels: { repo: doc.data.repo, pr: label, run: deps.now().toISOString() },
    budget,
    onUnpricedBudget: () => void warnUnpriced(capDeps(deps), true).catch(() => undefined),
  });
  return { account, caps, ...(check ? { check } : {}) };
}

/** A comment's spend into the document: today's, the total, and the comment's own. */
export async function recordSpend(deps: CommentFlowDeps, key: string, id: string, usage: Usage): Promise<void> {
  if (usage.requests === 0 && usage.input + usage.output === 0) return;
  const now = deps.now();
  await deps.store.update(key, (d) => ({ ...d, data: { ...d.data, spend: addSpend(d.data.spend, usage, now, { comment: id, usage }) } }));
}

/** The budget stopped an answer: the watcher's pass holds the PR at its cap; a pass by hand says how to go on. */
export async function budgetStopped(deps: CommentFlowDeps, doc: PrDocument, pass: PassAccount, comment: PrComment): Promise<string> {
  const { account, check } = pass;
  const spent = account.spentLine();
  const time = deps.now().toISOString();
  await deps.store.update(doc.key, (d) => ({
    ...d,
    log: [
      ...d.log,
      logLine(
        time,
        `comment ${comment.id}: budget reached (${spent}) before it was answered; it waits for the next pass, no failure counted`,
      ),
    ],
  }));
  if (check) return holdAtCap(capDeps(deps), doc, prLabel(doc.data), capReached(check, account.usage, pass.caps), "comments");
  return `Budget reached: ${spent}. Comment ${comment.id} and those after it were not answered (no failure counted). ${account.stopped?.fix ?? ""}`.trim();
}
