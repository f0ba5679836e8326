/**
 * Whether a refinement changed an artifact enough to deserve another review cycle
 * (whether pass 3 differs substantially from pass 1). Lines are compared after normalising whitespace
 * and dropping blank lines, so re-wrapping or re-indenting does not count as change.
 */

/** Share of lines changed at which a refinement counts as substantial: a quarter of the document. */
export const SUBSTANTIAL_CHANGE = 0.25;

export function normaliseLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\s+/g, " "))
    .filter((line) => line.length > 0);
}

/** Length of the longest common subsequence of two line lists (O(n·m) time, O(m) memory). */
function commonLines(a: readonly string[], b: readonly string[]): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/**
 * Lines removed plus lines added (a line diff), over the lines of both versions: 0 for identical
 * texts, 1 for texts with no line in common.
 */
export function lineChangeRatio(before: string, after: string): number {
  const a = normaliseLines(before);
  const b = normaliseLines(after);
  if (a.length + b.length === 0) return 0;
  const common = commonLines(a, b);
  return (a.length - common + (b.length - common)) / (a.length + b.length);
}

export function changedSubstantially(before: string, after: string, threshold = SUBSTANTIAL_CHANGE): boolean {
  return lineChangeRatio(before, after) >= threshold;
}

/**
 * The lines of `before` that `after` no longer has (whitespace-normalised, counted as a multiset,
 * in `before`'s order): what a refinement dropped, which is what a reviewer must see of the
 * earlier version.
 */
export function removedLines(before: string, after: string): string[] {
  const left = new Map<string, number>();
  for (const line of normaliseLines(after)) left.set(line, (left.get(line) ?? 0) + 1);
  const removed: string[] = [];
  for (const line of normaliseLines(before)) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else removed.push(line);
  }
  return removed;
}
