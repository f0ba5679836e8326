import { byPriority, isBlocking, uniqueById } from "./findings.ts";
import type { Finding, FixPayload, FixReply } from "./schemas.ts";

/**
 * Findings otto reported fixed in an earlier round and that a reviewer reports again are stuck:
 * the fix did not take. They stay stuck for the rest of the run (docs/pr-review-loop.md, "When the loop stops").
 */
export function stuckIds(findings: readonly Finding[], reportedFixed: ReadonlySet<string>, alreadyStuck: ReadonlySet<string>): Set<string> {
  const stuck = new Set(alreadyStuck);
  for (const f of findings) if (reportedFixed.has(f.id)) stuck.add(f.id);
  return stuck;
}

/** A4: the code findings to fix (P0–P2, not stuck, one per id) and the optional ones (P3). */
export function fixPayload(prNumber: number, round: number, codeFindings: readonly Finding[], stuck: ReadonlySet<string>): FixPayload {
  const open = uniqueById(codeFindings).filter((f) => !stuck.has(f.id));
  return {
    prNumber,
    round,
    issuesToFix: byPriority(open.filter((f) => isBlocking(f.priority))),
    optionalIssues: open.filter((f) => !isBlocking(f.priority)),
  };
}

export interface FixAccount {
  fixed: Array<{ findingId: string; description: string }>;
  rejected: Array<{ findingId: string; reason: string }>;
  /** Issues the reply does not mention. */
  missing: string[];
  /** Ids in the reply that were not asked for (ignored). */
  unknown: string[];
}

/**
 * Checks A5 against the payload: every issue to fix must be fixed or rejected (the invariant
 * fixed + rejected = issues). An id both fixed and rejected counts as rejected: the model was unsure.
 */
export function accountFor(issues: readonly Finding[], reply: FixReply): FixAccount {
  const asked = new Set(issues.map((f) => f.id));
  const rejectedIds = new Set(reply.rejectedIssues.map((r) => r.findingId));
  const seen = new Set<string>();
  const unknown: string[] = [];
  const fixed: FixAccount["fixed"] = [];
  const rejected: FixAccount["rejected"] = [];
  for (const r of reply.rejectedIssues) {
    if (!asked.has(r.findingId)) unknown.push(r.findingId);
    else if (!seen.has(r.findingId)) {
      seen.add(r.findingId);
      rejected.push(r);
    }
  }
  for (const f of reply.fixedIssues) {
    if (!asked.has(f.findingId)) unknown.push(f.findingId);
    else if (!seen.has(f.findingId) && !rejectedIds.has(f.findingId)) {
      seen.add(f.findingId);
      fixed.push(f);
    }
  }
  const missing = issues.map((f) => f.id).filter((id) => !seen.has(id));
  return { fixed, rejected, missing, unknown: [...new Set(unknown)] };
}

/** After the one retry: what is still unaccounted for counts as rejected. */
export function closeAccount(account: FixAccount): FixAccount {
  const rejected = [
    ...account.rejected,
    ...account.missing.map((findingId) => ({ findingId, reason: "not addressed by the fix session" })),
  ];
  return { ...account, rejected, missing: [] };
}
