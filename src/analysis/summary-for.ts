import { formatError, type Logger } from "../core/index.ts";
import { analyzeCodebase } from "./analyze-codebase.ts";
import { renderCodebaseSummary } from "./render-summary.ts";

/**
 * The rendered `codebase_summary` for prompts, or undefined for an empty repo. The analysis never
 * fails a caller: without it the prompts simply lack the summary, and the failure is logged.
 */
export async function codebaseSummaryFor(root: string, log: Logger): Promise<string | undefined> {
  try {
    const summary = await analyzeCodebase(root);
    return summary.empty ? undefined : renderCodebaseSummary(summary);
  } catch (error) {
    log.log("warn", `codebase analysis of ${root} failed`, { error: formatError(error) });
    return undefined;
  }
}
