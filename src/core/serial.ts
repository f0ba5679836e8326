/**
 * Work that must not overlap, run one at a time per key, in arrival order; a failure does not stop
 * what waits behind it. A queue forgets a key once nothing waits on it.
 */
export type SerialQueue = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function serialQueue(): SerialQueue {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (tails.get(key) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    tails.set(key, settled);
    void settled.then(() => {
      if (tails.get(key) === settled) tails.delete(key);
    });
    return next;
  };
}
