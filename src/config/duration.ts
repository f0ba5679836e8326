import { OttoError } from "../core/index.ts";

/** Milliseconds per unit. Go-style durations ("1h30m", "90s", "250ms") plus "d" for days. */
const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** One or more `<number><unit>` parts, e.g. "30m", "1h30m", "1.5h". Used as the JSON Schema pattern too. */
export const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds for a duration string, or undefined when it is not one. */
export function tryParseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION_PATTERN.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) {
    total += Number(amount) * (UNITS[unit ?? ""] ?? 0);
  }
  return Math.round(total);
}

/** `parseDuration("30m")` → 1_800_000. Throws `invalid_duration` for anything else. */
export function parseDuration(text: string): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) {
    throw new OttoError(
      "invalid_duration",
      `'${text}' is not a duration.`,
      "Write a number followed by a unit (ms, s, m, h, d), e.g. 30s, 2m, 1h30m.",
    );
  }
  return ms;
}
