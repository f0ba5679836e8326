import { formatKeyPath, hasPath } from "./keypath.ts";
import { isRecord } from "../core/index.ts";

/** A file's parsed content and where it came from. */
export interface ConfigLayer {
  scope: "user" | "repo";
  file: string;
  value: Record<string, unknown>;
}

/** Key path → "default" | "user (<file>)" | "repo (<file>)" | "env (<NAME>)". */
export type ConfigSources = Record<string, string>;

/** Leaf paths of a config: scalars and arrays (arrays replace as a whole, so they are leaves). */
export function leafPaths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (!isRecord(value)) return value === undefined ? [] : [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
}

/** Where each leaf of the resolved config came from; the highest layer holding the key wins. */
export function computeSources(
  resolved: Record<string, unknown>,
  layers: readonly ConfigLayer[],
  envApplied: Record<string, string>,
): ConfigSources {
  const sources: ConfigSources = {};
  const highestFirst = [...layers].reverse();
  for (const path of leafPaths(resolved)) {
    const key = formatKeyPath(path);
    const env = envApplied[key];
    const layer = highestFirst.find((l) => hasPath(l.value, path));
    sources[key] = env ? `env (${env})` : layer ? `${layer.scope} (${layer.file})` : "default";
  }
  return sources;
}
