import { runBudget, type Usage } from "../../cost/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import type { PrComment } from "../types.ts";
import { openPrAccount, type PrAccount } from "../context/daily-caps.ts";
import { addSpend } from "../context/spend.ts";
import type { CommentFlowDeps } from "./pass-types.ts";

/*
 * What a comment pass may spend: its account (the watcher's daily caps, or limits.run_* for a pass
 * by hand), each comment's spend into the PR document, and what a budget stop holds.
 */

export type PassAccount = PrAccount;

/**
 * The pass's account (src/pr/context/daily-caps.ts): the watcher's gets what is left of its daily
 * caps as its budget, or no account at all when a cap is reached (the comments wait, unseen); a
 * pass by hand gets limits.run_usd / run_tokens.
 */
export function openAccount(deps: CommentFlowDeps, doc: PrDocument): Promise<PassAccount | { held: string }> {
  const limits = deps.config.limits;
  return openPrAccount(deps, doc, {
    name: `pr comments ${doc.key}`,
    what: "comments",
    capped: !deps.manual,
    budget: runBudget(
      {},
      { usd: limits.run_usd, tokens: limits.run_tokens },
      `Run /otto-pr comments ${doc.data.id} again: the comments not answered yet are answered then.`,
    ),
  });
}

/** A comment's spend into the document: today's, the total, and the comment's own. */
export async function recordSpend(deps: CommentFlowDeps, key: string, id: string, usage: Usage): Promise<void> {
  if (usage.requests === 0 && usage.input + usage.output === 0) return;
  const now = deps.now();
  await deps.store.update(key, (d) => ({ ...d, data: { ...d.data, spend: addSpend(d.data.spend, usage, now, { comment: id, usage }) } }));
}

/** The budget stopped an answer: the watcher's pass holds the PR at its cap; a pass by hand says how to go on. */
export async function budgetStopped(deps: CommentFlowDeps, doc: PrDocument, pass: PassAccount, comment: PrComment): Promise<string> {
  const { account } = pass;
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
  const held = await pass.holdAtStop();
  if (held !== undefined) return held;
  return `Budget reached: ${spent}. Comment ${comment.id} and those after it were not answered (no failure counted). ${account.stopped?.fix ?? ""}`.trim();
}
