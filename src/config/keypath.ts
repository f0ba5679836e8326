import { OttoError, isRecord } from "../core/index.ts";

export type KeyPath = Array<string | number>;

const SEGMENT = /^[A-Za-z_$][\w$-]*$/;

/** "spec.max_parallel_tasks" → ["spec", "max_parallel_tasks"]; "repos[0].name" and "repos.0.name" → ["repos", 0, "name"]. */
export function parseKeyPath(text: string): KeyPath {
  const out: KeyPath = [];
  for (const part of text.trim().split(".")) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    const name = match?.[1] ?? "";
    if (!match || (name === "" && !match[2])) throw badKey(text);
    if (/^\d+$/.test(name)) out.push(Number(name));
    else if (name !== "") {
      if (!SEGMENT.test(name)) throw badKey(text);
      out.push(name);
    }
    for (const index of match[2]?.matchAll(/\[(\d+)\]/g) ?? []) out.push(Number(index[1]));
  }
  if (out.length === 0 || typeof out[0] === "number") throw badKey(text);
  return out;
}

function badKey(text: string): OttoError {
  return new OttoError(
    "config_key",
    `'${text}' is not a config key.`,
    "Write keys as dotted paths, e.g. spec.max_parallel_tasks or repos[0].name.",
  );
}

/** ["repos", 0, "name"] → "repos[0].name"; [] → "(top level)". */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? "(top level)" : out;
}

/** The value at a path of plain data, or undefined. */
export function getAtPath(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isRecord(current) && typeof segment === "string") current = current[segment];
    else return undefined;
  }
  return current;
}

export function hasPath(value: unknown, path: readonly PropertyKey[]): boolean {
  return getAtPath(value, path) !== undefined;
}
