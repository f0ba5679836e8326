import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OttoError, readTextIfExists, withFileLock, writeFileAtomic, xdgPaths, type Env, isRecord } from "../core/index.ts";
import { formatKeyPath, getAtPath } from "./keypath.ts";

/**
 * Keys that decide where otto sends the user's credentials or runs commands on its events. A repo's
 * `.otto/otto.jsonc` arrives with a clone or a pull; without trust it could point api_url at a
 * server that collects the GITHUB_TOKEN otto sends. From a repo file they take effect only once
 * the user trusts that repo, with those values (a change to them needs trust again).
 */
export const TRUST_GATED_KEYS = [
  ["pr", "providers", "github", "api_url"],
  ["pr", "providers", "ado", "base_url"],
  ["notify", "webhooks"],
  ["notify", "command"],
  // Where a session's code runs: a repo's file must not switch the sandbox off, open it to paths or the network, or run its own hooks.
  ["sandbox"],
  ["sandbox_access"],
  ["git", "hooks"],
  // What otto may spend of the user's money: a repo's file must not raise a budget.
  ["limits"],
] as const;

const TrustFile = z.object({
  repos: z.array(z.object({ root: z.string(), digest: z.string(), at: z.string() })).default([]),
});
type TrustFile = z.infer<typeof TrustFile>;
export type TrustedRepo = TrustFile["repos"][number];

/** $XDG_CONFIG_HOME/otto/trusted-repos.json: the user's, never a repo's. */
export function trustFile(env: Env): string {
  return path.join(xdgPaths(env).ottoConfigDir, "trusted-repos.json");
}

/** The gated keys a repo file sets, with their values. */
export function gatedValues(repoValue: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of TRUST_GATED_KEYS) {
    const value = getAtPath(repoValue, key);
    if (value !== undefined) out[formatKeyPath(key)] = value;
  }
  return out;
}

/** What trust is given to: the gated values as written, so changing them needs trust again. */
export function gatedDigest(values: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(values)
      .sort()
      .map((k) => [k, values[k]]),
  );
  return createHash("sha256").update(canonical).digest("hex");
}

/** Pure: a copy of the repo file's value without the gated keys. */
export function withoutGated(repoValue: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(repoValue);
  for (const key of TRUST_GATED_KEYS) {
    const parent = getAtPath(copy, key.slice(0, -1));
    if (isRecord(parent)) delete parent[key[key.length - 1] ?? ""];
  }
  return copy;
}

async function readTrust(env: Env): Promise<TrustFile> {
  const file = trustFile(env);
  const text = await readTextIfExists(file);
  if (text === undefined) return { repos: [] };
  try {
    return TrustFile.parse(JSON.parse(text));
  } catch {
    throw new OttoError(
      "trust_file_invalid",
      `${file} is not a valid trust list.`,
      `Delete ${file} and trust your repos again with /otto-config trust.`,
    );
  }
}

/** The trusted repos (root and the digest of the values trusted). */
export async function listTrustedRepos(env: Env): Promise<TrustedRepo[]> {
  return (await readTrust(env)).repos;
}

/** Whether `root` is trusted with exactly these gated values. */
export async function isRepoTrusted(env: Env, root: string, digest: string): Promise<boolean> {
  const resolved = await canonicalRoot(root);
  return (await readTrust(env)).repos.some((r) => r.root === resolved && r.digest === digest);
}

async function canonicalRoot(root: string): Promise<string> {
  return fs.realpath(root).catch(() => path.resolve(root));
}

/** Read-modify-write of the trust list under its lock, written atomically (owner-only). */
async function editTrust(env: Env, edit: (current: TrustFile) => TrustFile): Promise<void> {
  const file = trustFile(env);
  await withFileLock(file, async () => {
    const next = edit(await readTrust(env));
    await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, 0o600);
  });
}

/** Trusts `root` with its current gated values (replacing an older trust of the same root). */
export async function trustRepo(env: Env, root: string, digest: string, now: Date = new Date()): Promise<void> {
  const resolved = await canonicalRoot(root);
  await editTrust(env, (current) => ({
    repos: [...current.repos.filter((r) => r.root !== resolved), { root: resolved, digest, at: now.toISOString() }],
  }));
}

/** Removes `root` from the trust list; false when it was not there. */
export async function untrustRepo(env: Env, root: string): Promise<boolean> {
  const resolved = await canonicalRoot(root);
  let removed = false;
  await editTrust(env, (current) => {
    removed = current.repos.some((r) => r.root === resolved);
    return { repos: current.repos.filter((r) => r.root !== resolved) };
  });
  return removed;
}
