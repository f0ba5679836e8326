import fs from "node:fs/promises";
import path from "node:path";

/*
 * Before otto commits, every file the commit would take is searched for the secrets otto knows
 * (its config's tokens, the environment's): a session may have written one into a file it made,
 * or copied the user's `.env` under another name. Only the commit's own candidates are read, and
 * only regular files up to MAX_SCAN_BYTES: a bigger file is a build artefact or data, not a place
 * a model writes a token into, and reading it would make every commit slow.
 */

/** Files bigger than this are not read (4 MiB). */
export const MAX_SCAN_BYTES = 4 * 1024 * 1024;

/**
 * Values shorter than this are not searched for: a short password ("admin", "dev") appears in
 * ordinary code, and refusing such a commit would stop work for nothing. Tokens and webhook URLs
 * are far longer.
 */
export const MIN_SCANNED_SECRET = 8;

/** The paths (relative to `root`) whose content holds one of `secrets`, in the order given. */
export async function findKnownSecrets(root: string, paths: readonly string[], secrets: readonly string[]): Promise<string[]> {
  const needles = [...new Set(secrets)].filter((s) => s.length >= MIN_SCANNED_SECRET).map((s) => Buffer.from(s));
  if (needles.length === 0) return [];
  const found: string[] = [];
  for (const p of paths) {
    const file = path.join(root, p);
    const stat = await fs.lstat(file).catch(() => undefined);
    // Deleted (nothing to leak), a symlink (its target is committed as text, not read), a folder.
    if (!stat?.isFile() || stat.size > MAX_SCAN_BYTES) continue;
    const bytes = await fs.readFile(file).catch(() => undefined);
    if (bytes && needles.some((needle) => bytes.includes(needle))) found.push(p);
  }
  return found;
}
