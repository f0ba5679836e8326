import { OttoError } from "../core/errors.ts";
import type { Budget } from "./account.ts";

/** What the flags of a run say (`--budget <usd>`, `--max-tokens <n>`), as typed. */
export interface BudgetFlags {
  budget?: string | number;
  maxTokens?: string | number;
}

/** The `limits` defaults that apply to a run (otto.jsonc). */
export interface RunLimits {
  usd?: number;
  tokens?: number;
}

function parseAmount(value: string | number | undefined, flag: string, integer: boolean): number | undefined {
  if (value === undefined || value === "") return undefined;
  const text = String(value).trim().replace(/^\$/, "");
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new OttoError(
      "invalid_budget",
      `${flag} ${String(value)} is not ${integer ? "a whole number of tokens above 0" : "an amount in US dollars above 0"}.`,
      integer ? `Write it like ${flag} 200000.` : `Write it like ${flag} 2.50 (dollars).`,
    );
  }
  return n;
}

/**
 * A run's budget: the flags win over the config's limits; either may be unset. `fix` says how to
 * resume once it is reached (the flow's own command).
 */
export function runBudget(flags: BudgetFlags, limits: RunLimits, fix?: string): Budget | undefined {
  const usd = parseAmount(flags.budget, "--budget", false) ?? limits.usd;
  const tokens = parseAmount(flags.maxTokens, "--max-tokens", true) ?? limits.tokens;
  if (usd === undefined && tokens === undefined) return undefined;
  return { ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}), ...(fix ? { fix } : {}) };
}
