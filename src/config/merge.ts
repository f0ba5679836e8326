import { isRecord } from "../core/index.ts";

/**
 * Deep merge of config layers, later layers win: objects merge key by key at every level,
 * arrays and scalars replace (a repo's `repos` list replaces the user's, it is not appended).
 * Keys set to undefined do not erase. Pure: the inputs are not modified.
 */
export function deepMerge(...layers: ReadonlyArray<Record<string, unknown> | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const base = out[key];
      if (isRecord(value)) out[key] = deepMerge(isRecord(base) ? base : undefined, value);
      else out[key] = Array.isArray(value) ? structuredClone(value) : value;
    }
  }
  return out;
}
