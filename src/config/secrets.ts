import { maskSecret } from "../core/index.ts";
import { formatKeyPath, getAtPath, isPlainObject } from "./keypath.ts";

/** Keys whose values are credentials. A webhook URL carries its signature, so it is one too. */
export const SECRET_KEYS = [
  "pr.providers.github.token",
  "pr.providers.ado.pat",
  "opencode.password",
  "notifications.webhook_url",
] as const;

export function isSecretKey(path: readonly PropertyKey[]): boolean {
  return (SECRET_KEYS as readonly string[]).includes(formatKeyPath(path));
}

/** Secret values present in any of the given configs (files, env layer, resolved), for redaction. */
export function collectSecrets(...configs: unknown[]): string[] {
  const out = new Set<string>();
  for (const config of configs) {
    for (const key of SECRET_KEYS) {
      const value = getAtPath(config, key.split("."));
      if (typeof value === "string" && value !== "") out.add(value);
    }
  }
  return [...out];
}

/** A copy of the config with every set secret replaced by maskSecret's text. */
export function maskSecrets<T>(config: T): T {
  const copy = structuredClone(config);
  for (const key of SECRET_KEYS) {
    const path = key.split(".");
    const parent = getAtPath(copy, path.slice(0, -1));
    const last = path[path.length - 1] ?? "";
    if (isPlainObject(parent) && typeof parent[last] === "string") parent[last] = maskSecret(parent[last]);
  }
  return copy;
}
