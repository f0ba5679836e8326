import { MIN_SECRET_LENGTH, maskSecret, isRecord } from "../core/index.ts";
import { formatKeyPath, getAtPath, parseKeyPath } from "./keypath.ts";

/**
 * Keys whose values are credentials; `[]` stands for any array index. A webhook URL carries its
 * signature, so it is one too.
 */
export const SECRET_KEYS = ["pr.providers.github.token", "pr.providers.ado.pat", "opencode.password", "notify.webhooks[].url"] as const;

export function isSecretKey(path: readonly PropertyKey[]): boolean {
  const generic = path.map((segment) => (typeof segment === "number" ? "[]" : segment));
  return (SECRET_KEYS as readonly string[]).includes(formatKeyPath(generic).replace(/\.\[\]/g, "[]"));
}

type Visit = (parent: Record<string, unknown>, key: string) => void;

/** Calls `visit` for every place in `value` a secret key names (every item of an array). */
function eachSecret(value: unknown, visit: Visit): void {
  for (const key of SECRET_KEYS) {
    const segments = key.split(/\.|(?=\[\])/).filter((s) => s !== "");
    walk(value, segments, visit);
  }
}

function walk(node: unknown, segments: readonly string[], visit: Visit): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (head === "[]") {
    if (Array.isArray(node)) for (const item of node) walk(item, rest, visit);
    return;
  }
  if (!isRecord(node)) return;
  if (rest.length === 0) visit(node, head);
  else walk(node[head], rest, visit);
}

/** Secret values present in any of the given configs (files, env layer, resolved), for redaction. */
export function collectSecrets(...configs: unknown[]): string[] {
  const out = new Set<string>();
  for (const config of configs) {
    eachSecret(config, (parent, key) => {
      const value = parent[key];
      if (typeof value === "string" && value !== "") out.add(value);
    });
  }
  return [...out];
}

/** A copy of the config with every set secret replaced by maskSecret's text. */
export function maskSecrets<T>(config: T): T {
  const copy = structuredClone(config);
  eachSecret(copy, (parent, key) => {
    if (typeof parent[key] === "string") parent[key] = maskSecret(parent[key]);
  });
  return copy;
}

/** Where a secret is set: its key path with array indexes (`notify.webhooks[0].url`). */
export function secretKeysSet(config: unknown): string[] {
  const out: string[] = [];
  for (const key of SECRET_KEYS) {
    const segments = key.split(/\.|(?=\[\])/).filter((s) => s !== "");
    collectSet(config, segments, [], out);
  }
  return out;
}

function collectSet(node: unknown, segments: readonly string[], at: Array<string | number>, out: string[]): void {
  const [head, ...rest] = segments;
  if (head === undefined) {
    if (typeof node === "string" && node !== "") out.push(formatKeyPath(at));
    return;
  }
  if (head === "[]") {
    if (Array.isArray(node)) node.forEach((item, i) => collectSet(item, rest, [...at, i], out));
    return;
  }
  if (isRecord(node)) collectSet(node[head], rest, [...at, head], out);
}

/** Secret keys (full paths) whose value is too short to redact (MIN_SECRET_LENGTH): almost certainly a mistake. */
export function tooShortSecrets(config: unknown): string[] {
  return secretKeysSet(config).filter((key) => {
    const value = getAtPath(config, parseKeyPath(key));
    return typeof value === "string" && value.length < MIN_SECRET_LENGTH;
  });
}
