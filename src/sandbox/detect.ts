import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/paths.ts";

export type SandboxKind = "bwrap" | "sandbox-exec";

/** A sandbox this machine can run, or why there is none. */
export type Detected = { kind: SandboxKind; binary: string } | { kind: "none"; reason: string };

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Probed once per binary: bwrap can be installed yet refused (user namespaces off in a container). */
const probed = new Map<string, string | undefined>();

/**
 * Linux: bubblewrap on PATH that can actually start (probed once per process); macOS: the
 * system's sandbox-exec. Cheap after the first call.
 */
export function detectSandbox(env: Env = process.env, platform: NodeJS.Platform = process.platform): Detected {
  if (platform === "darwin") {
    return fs.existsSync(SANDBOX_EXEC)
      ? { kind: "sandbox-exec", binary: SANDBOX_EXEC }
      : { kind: "none", reason: `${SANDBOX_EXEC} is missing` };
  }
  if (platform !== "linux") return { kind: "none", reason: `no sandbox for ${platform}` };
  const binary = onPath("bwrap", env.PATH ?? "");
  if (!binary)
    return {
      kind: "none",
      reason: "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, dnf install bubblewrap or pacman -S bubblewrap",
    };
  if (!probed.has(binary)) probed.set(binary, probe(binary, env));
  const failure = probed.get(binary);
  return failure === undefined ? { kind: "bwrap", binary } : { kind: "none", reason: `${binary} cannot start a sandbox here (${failure})` };
}

function probe(binary: string, env: Env): string | undefined {
  const result = spawnSync(
    binary,
    ["--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"],
    {
      env,
      timeout: 10_000,
      encoding: "utf8",
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  if (result.status === 0) return undefined;
  return (result.stderr || result.error?.message || `exit ${String(result.status)}`).trim().split("\n")[0];
}

function onPath(name: string, PATH: string): string | undefined {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
