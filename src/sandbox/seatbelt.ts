import type { SandboxPolicy } from "./policy.ts";

/*
 * The same policy as a macOS Seatbelt profile for sandbox-exec(1). Seatbelt cannot mount an empty
 * folder over another, so temp folders stay shared (writable) and hidden paths are denied for
 * reading and writing instead of replaced. Everything else follows the bubblewrap policy: writes
 * only in the tree, its git directories, temp and the caches; git's config, hooks and info
 * read-only; the credential stores unreadable. Processes stay visible (no PID namespace).
 */

/** SBPL string literal. */
function lit(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(policy: SandboxPolicy): string {
  const writable = [...policy.tree, ...policy.caches, ...policy.privateTemp, "/private/tmp", "/private/var/folders"].map(
    (p) => `(subpath ${lit(p)})`,
  );
  const lines = [
    "(version 1)",
    "(allow default)",
    `(deny file-write* (require-not (require-any (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/") ${writable.join(" ")})))`,
  ];
  if (policy.readOnly.length > 0) lines.push(`(deny file-write* ${policy.readOnly.map((p) => `(subpath ${lit(p)})`).join(" ")})`);
  if (policy.hidden.length > 0) lines.push(`(deny file-read* file-write* ${policy.hidden.map((p) => `(subpath ${lit(p)})`).join(" ")})`);
  return `${lines.join("\n")}\n`;
}
