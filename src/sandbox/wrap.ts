import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/errors.ts";
import { xdgPaths, type Env } from "../core/paths.ts";
import { bwrapArgs } from "./bwrap.ts";
import { detectSandbox, type Detected, type SandboxKind } from "./detect.ts";
import { sandboxPolicy, type SandboxAccess, type TreePaths } from "./policy.ts";
import { gitIdentity, withFilteredEnv } from "./sandbox-env.ts";
import { seatbeltProfile } from "./seatbelt.ts";

/** `sandbox` in otto.jsonc. */
export type SandboxMode = "auto" | "required" | "off";

export interface SandboxRequest {
  mode: SandboxMode;
  /** Where the command starts. */
  cwd: string;
  /** The tree it works in and its git directories. */
  tree: TreePaths;
  /** The user's environment: where their credentials and caches are. */
  env: Env;
  /** otto.jsonc `sandbox_access`; unset: the defaults (network open, nothing more shown). */
  access?: SandboxAccess;
  /** Tests: what the machine has. */
  detected?: Detected;
}

/** How one command runs: the argv to spawn, or why it runs without a sandbox. */
export type CommandPlan = { sandbox: SandboxKind; argv: string[] } | { sandbox: "none"; reason: string; argv: string[] };

/** The shell a sandboxed command line runs in: bash when the system has it (models write bash). */
export function sandboxShell(exists: (file: string) => boolean = fs.existsSync): string {
  return exists("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

/**
 * How `command` (a shell line) runs under `request`. `off` and `auto` without a sandbox run it
 * in a plain shell; `required` without one throws, so nothing runs unguarded by mistake.
 */
export function planCommand(request: SandboxRequest, command: string): CommandPlan {
  const shell = sandboxShell();
  const plain = (reason: string): CommandPlan => ({ sandbox: "none", reason, argv: [shell, "-c", command] });
  if (request.mode === "off") return plain("sandbox is off in otto.jsonc");
  const detected = request.detected ?? detectSandbox(request.env);
  if (detected.kind === "none") {
    if (request.mode === "required") throw sandboxRequired(detected.reason);
    return plain(detected.reason);
  }
  const policy = sandboxPolicy({
    cwd: request.cwd,
    tree: request.tree,
    env: request.env,
    ...(request.access ? { access: request.access } : {}),
  });
  // The sandbox starts with the allowed variables alone (sandbox-env.ts), and the user's git identity.
  const boxed = (argv: string[]) => withFilteredEnv(argv, gitIdentity(request.env));
  if (detected.kind === "bwrap")
    return { sandbox: "bwrap", argv: boxed([detected.binary, ...bwrapArgs(policy), "--", shell, "-c", command]) };
  return { sandbox: "sandbox-exec", argv: boxed([detected.binary, "-p", seatbeltProfile(policy), shell, "-c", command]) };
}

export function sandboxRequired(reason: string): OttoError {
  return new OttoError(
    "sandbox_required",
    `otto.jsonc sets sandbox: "required", and no sandbox can run here: ${reason}.`,
    'Install bubblewrap (Linux) or run on macOS, or set "sandbox": "auto" in your user otto.jsonc (/otto-config set sandbox auto) to run with otto\'s other guards alone.',
  );
}

/** POSIX shell quoting: one argument, whatever it holds. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A session's shell line, rewritten to run in the sandbox. The sandbox's arguments live in a
 * launcher script under otto's data folder (hidden inside the sandbox, so no command can change
 * it), named by their hash; the line the session sees stays short: `'<launcher>' '<its line>'`.
 */
export function sandboxedLine(plan: CommandPlan & { sandbox: SandboxKind }, env: Env): string {
  const [binary, ...rest] = plan.argv;
  // The launcher takes the line as $1: everything before it is fixed by the policy.
  const fixed = [binary ?? "", ...rest.slice(0, -1)];
  const script = `#!/bin/sh\n# Written by otto: runs one command line in otto's sandbox.\nexec ${fixed.map(shellQuote).join(" ")} "$1"\n`;
  const dir = path.join(xdgPaths(env).ottoDataDir, "sandbox");
  const file = path.join(dir, `run-${createHash("sha256").update(script).digest("hex").slice(0, 16)}.sh`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temp, script, { mode: 0o700 });
    fs.renameSync(temp, file);
  }
  return `${shellQuote(file)} ${shellQuote(plan.argv[plan.argv.length - 1] ?? "")}`;
}

/** Which sandbox the code of otto's work runs in here, for `/otto-config show`. */
export function describeSandbox(
  mode: SandboxMode,
  env: Env,
  detected: Detected = detectSandbox(env),
): { mode: SandboxMode; active: SandboxKind | "none"; line: string } {
  if (mode === "off")
    return {
      mode,
      active: "none",
      line: "Sandbox: off (otto.jsonc sandbox: \"off\"): sessions' commands and checks run with otto's environment and command guards alone.",
    };
  if (detected.kind === "none") {
    const then =
      mode === "required"
        ? "unattended flows (the watcher, execute, build, the review loop) refuse to start"
        : "sessions' commands and checks run with otto's environment and command guards alone";
    return { mode, active: "none", line: `Sandbox: none available (${detected.reason}); sandbox: "${mode}", so ${then}.` };
  }
  return {
    mode,
    active: detected.kind,
    line: `Sandbox: ${detected.kind} (${detected.binary}): sessions' shell commands, checks and hooks run with their tree writable, git's config and hooks read-only, an empty home (toolchains and package stores shown), an allow-listed environment, and your credential stores, sockets and secret files out of sight.`,
  };
}

/** `required` and no sandbox: an unattended flow refuses before its first session. */
export function assertSandbox(mode: SandboxMode, env: Env, detected: Detected = detectSandbox(env)): void {
  if (mode === "required" && detected.kind === "none") throw sandboxRequired(detected.reason);
}

/** The line a session typed, from the line sandboxedLine made of it (any other line as it is): for messages. */
export function typedLine(line: string): string {
  const match = /^'[^']*\/sandbox\/run-[0-9a-f]{16}\.sh' '((?:[^']|'\\'')*)'$/s.exec(line);
  return match?.[1] === undefined ? line : match[1].replace(/'\\''/g, "'");
}
