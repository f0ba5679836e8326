import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/paths.ts";
import { usernsRefusals, type ReadFile } from "./userns.ts";

export type SandboxKind = "bwrap" | "sandbox-exec";

/** A sandbox this machine can run, or why there is none and what would give one. */
export type Detected = { kind: SandboxKind; binary: string } | { kind: "none"; reason: string; fix?: string };

/** What detection asks of the machine: tests pass their own. */
export interface DetectHost {
  /** A file's text (kernel settings, a container's markers), or undefined when absent. */
  read: ReadFile;
  /** Starts a trivial sandbox: undefined when it ran, else its first line of error. */
  probe(binary: string, env: Env): string | undefined;
}

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export const systemHost: DetectHost = {
  read: (file) => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  },
  probe,
};

/** Probed once per process and binary: bwrap can be installed yet refused (user namespaces off). */
const probed = new WeakMap<DetectHost, Map<string, string | undefined>>();

/**
 * Linux: bubblewrap on PATH that can actually start (probed once per process); when it cannot,
 * which kernel or container setting refuses it, and the fix. macOS: the system's sandbox-exec.
 * Cheap after the first call.
 */
export function detectSandbox(
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
  host: DetectHost = systemHost,
): Detected {
  if (platform === "darwin") {
    return fs.existsSync(SANDBOX_EXEC)
      ? { kind: "sandbox-exec", binary: SANDBOX_EXEC }
      : { kind: "none", reason: `${SANDBOX_EXEC} is missing`, fix: "sandbox-exec ships with macOS: check that /usr/bin is intact" };
  }
  if (platform !== "linux") return { kind: "none", reason: `no sandbox for ${platform}`, fix: "run otto on Linux (bubblewrap) or macOS" };
  const binary = onPath("bwrap", env.PATH ?? "");
  if (!binary)
    return {
      kind: "none",
      reason: "bubblewrap (bwrap) is not installed",
      fix: "install it: apt-get install bubblewrap, dnf install bubblewrap or pacman -S bubblewrap",
    };
  let results = probed.get(host);
  if (!results) {
    results = new Map<string, string | undefined>();
    probed.set(host, results);
  }
  if (!results.has(binary)) results.set(binary, host.probe(binary, env));
  const failure = results.get(binary);
  if (failure === undefined) return { kind: "bwrap", binary };
  const refusals = usernsRefusals(binary, host.read);
  if (refusals.length === 0)
    return {
      kind: "none",
      reason: `${binary} is installed but cannot start a sandbox here (${failure})`,
      fix: `run ${binary} --ro-bind / / --dev /dev --proc /proc true to see why: bubblewrap needs unprivileged user namespaces, or a setuid bwrap`,
    };
  return {
    kind: "none",
    reason: `${binary} is installed but refused: ${refusals.map((r) => r.reason).join("; and ")} (${failure})`,
    fix: refusals.map((r) => r.fix).join("; and "),
  };
}

/** The smallest sandbox bubblewrap can make: what each probe of the machine (here, net.ts, store-layer.ts) starts from. */
export const PROBE_ARGS: readonly string[] = [
  "--die-with-parent",
  "--unshare-pid",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
];

function probe(binary: string, env: Env): string | undefined {
  const result = spawnSync(binary, [...PROBE_ARGS, "true"], {
    env,
    timeout: 10_000,
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (result.status === 0) return undefined;
  return (result.stderr || result.error?.message || `exit ${String(result.status)}`).trim().split("\n")[0];
}

export function onPath(name: string, PATH: string): string | undefined {
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
