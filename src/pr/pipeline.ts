import type { Check, PipelineStatus } from "./types.ts";

/** failure if any check failed, else pending if any runs, else success; none without checks. */
export function overallState(checks: readonly Check[]): PipelineStatus["state"] {
  if (checks.length === 0) return "none";
  if (checks.some((c) => c.state === "failure")) return "failure";
  if (checks.some((c) => c.state === "pending")) return "pending";
  return "success";
}

/** "2/3 passing" (skipped checks count as passing, as they do for merging). */
export function pipelineSummary(checks: readonly Pick<Check, "state">[]): string {
  if (checks.length === 0) return "no checks";
  const passing = checks.filter((c) => c.state === "success" || c.state === "skipped").length;
  const failing = checks.filter((c) => c.state === "failure").length;
  const pending = checks.filter((c) => c.state === "pending").length;
  const extra = [failing ? `${failing} failing` : "", pending ? `${pending} pending` : ""].filter(Boolean).join(", ");
  return `${passing}/${checks.length} passing${extra ? ` (${extra})` : ""}`;
}
