/**
 * The order `--all` builds in: names with a numeric prefix first, by that number (`2-x` before
 * `10-y`), then the rest by name. Pure.
 */
export function buildOrder(names: readonly string[]): string[] {
  const prefix = (name: string): number | undefined => {
    const match = /^(\d+)[-_]/.exec(name);
    return match ? Number(match[1]) : undefined;
  };
  return [...names].sort((a, b) => {
    const pa = prefix(a);
    const pb = prefix(b);
    if (pa !== undefined && pb !== undefined && pa !== pb) return pa - pb;
    if (pa !== undefined && pb === undefined) return -1;
    if (pa === undefined && pb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
