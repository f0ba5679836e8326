/** Small statistics the benches share. */

/** The q-quantile of `xs` (nearest rank, from below). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

/** The median of `xs` (the mean of the two middle values when their number is even). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/**
 * `statistic` over all `n` samples, and its 95 % bootstrap interval: the statistic of 2,000
 * resamples (indices drawn with replacement). Says how far the figure could move in another run.
 */
export function bootstrap(n: number, statistic: (indices: readonly number[]) => number): { value: number; low: number; high: number } {
  const samples = Array.from({ length: 2000 }, () => statistic(Array.from({ length: n }, () => Math.floor(Math.random() * n)))).sort(
    (a, b) => a - b,
  );
  return {
    value: statistic(Array.from({ length: n }, (_, i) => i)),
    low: samples[Math.floor(0.025 * samples.length)] ?? 0,
    high: samples[Math.floor(0.975 * samples.length)] ?? 0,
  };
}
