/** Edit distance between two short strings (keys), for did-you-mean suggestions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** "maxParallelTasks", "max-parallel-tasks" and "max_parallel_tasks" are the same key to a human. */
function normalise(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

/** The closest candidate to `key`, when it is close enough to be a typo. */
export function closest(key: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = normalise(candidate) === normalise(key) ? 0 : editDistance(key, candidate);
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
