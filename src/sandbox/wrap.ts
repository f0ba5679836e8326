import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/errors.ts";
import { xdgPaths, type Env } from "../core/paths.ts";
import { bwrapArgs } from "./bwrap.ts";
import { detectSandbox, type Detected, type SandboxKind } from "./detect.ts";
import { sandboxPolicy, type SandboxAccess, type TreePaths } from "./policy.ts";
import { gitSettingsFile, userGitSettings } from "./git-settings.ts";
import { findPasta, withOwnNetwork } from "./net.ts";
import { withFilteredEnv } from "./sandbox-env.ts";
import { seatbeltProfile } from "./seatbelt.ts";
import { storeLayer, type StoreLayer } from "./store-layer.ts";

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
  /** Tests: pasta's path, or "" for a machine without it. */
  pasta?: string;
  /** Tests: the layer the package stores get (store-layer.ts); probed otherwise. */
  storeLayer?: StoreLayer;
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
  const settings = userGitSettings(request.env, request.tree.gitDirs[0]);
  const git = { file: gitSettingsFile(request.env, settings), files: settings.files };
  const policy = sandboxPolicy({
    cwd: request.cwd,
    tree: request.tree,
    env: request.env,
    git,
    ...(request.access ? { access: request.access } : {}),
  });
  // The sandbox starts with the allowed variables alone (sandbox-env.ts).
  if (detected.kind === "bwrap") {
    const layer = request.storeLayer ?? storeLayer(detected.binary);
    const bwrap = [detected.binary, ...bwrapArgs(policy, undefined, layer), "--", shell, "-c", command];
    // `open`: the internet through a namespace of its own, not the host's loopback (net.ts).
    const pasta = policy.network === "open" ? (request.pasta ?? findPasta(request.env.PATH ?? "")) : undefined;
    return { sandbox: "bwrap", argv: withFilteredEnv(pasta ? withOwnNetwork(pasta, policy.ports, bwrap) : bwrap) };
  }
  const profile = seatbeltProfile(policy);
  return {
    sandbox: "sandbox-exec",
    argv: withFilteredEnv([detected.binary, "-p", profile, shell, "-c", command], [`GIT_CONFIG_GLOBAL=${git.file}`]),
  };
}

export function sandboxRequired(reason: string, fix = "install bubblewrap (Linux) or run on macOS"): OttoError {
  return new OttoError(
    "sandbox_required",
    `otto.jsonc sets sandbox: "required", and no sandbox can run here: ${reason}.`,
    `To get one: ${fix}. Or set "sandbox": "auto" in your user otto.jsonc (/otto-config set sandbox auto --user) to run with otto's other guards alone.`,
  );
}

/**
 * A flow nobody watches (the PR watcher, its daemon, CI mode) under "auto" with no sandbox: the
 * code it runs was written by a PR or a model, beside the user's credentials, and nobody reads
 * the log in time. Refused; running it bare takes the user's own `sandbox: "off"`.
 */
export function sandboxUnattended(flow: string, detected: { reason: string; fix?: string | undefined }): OttoError {
  return new OttoError(
    "sandbox_unattended",
    `${flow} runs code a PR or a model wrote with nobody watching, and no sandbox can run here: ${detected.reason}. Under sandbox: "auto" it does not start without one.`,
    `To get a sandbox: ${detected.fix ?? "install bubblewrap (Linux) or run on macOS"}. To run it with otto's other guards alone, turn the sandbox off in your user otto.jsonc: /otto-config set sandbox off --user.`,
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
      line: "Sandbox: off (otto.jsonc sandbox: \"off\"): sessions' commands and checks run with otto's environment and command guards alone, the watcher and CI mode included.",
    };
  if (detected.kind === "none") {
    const then =
      mode === "required"
        ? "the flows that run code (execute, task run, build, the PR fix and comment flows, the review loop, the watcher, CI mode) refuse to start"
        : "the watcher and CI mode refuse to start, and the commands and checks of the flows you start run with otto's environment and command guards alone";
    const fix = detected.fix ? ` To get one: ${detected.fix}.` : "";
    return { mode, active: "none", line: `Sandbox: none available (${detected.reason}); sandbox: "${mode}", so ${then}.${fix}` };
  }
  const network =
    detected.kind === "sandbox-exec" || findPasta(env.PATH ?? "")
      ? "the internet but not this machine's 127.0.0.1 (sandbox_access.allow_ports opens a port)"
      : "this machine's own network, its 127.0.0.1 included (pasta, Debian's and Fedora's passt, gives the sandbox a network of its own: not installed, or it cannot enter the sandbox's namespace here)";
  const stores =
    detected.kind === "sandbox-exec"
      ? "writable"
      : storeLayer(detected.binary) === "overlay"
        ? "shown under a layer each run discards"
        : "empty for each run, since this bubblewrap cannot overlay them (0.9 or later can)";
  return {
    mode,
    active: detected.kind,
    line: `Sandbox: ${detected.kind} (${detected.binary}): sessions' shell commands, checks and hooks run with their tree writable, git's config and hooks read-only, an empty home (toolchains shown; package stores ${stores}), an allow-listed environment, and your credential stores, sockets and secret files out of sight; network: ${network}.`,
  };
}

/**
 * For the summary of a flow a person started under `auto` on a machine with no sandbox: its
 * commands ran beside the user's credentials, which a line in OpenCode's log alone would not tell them.
 */
export function unsandboxedNote(mode: SandboxMode, env: Env, detected: Detected = detectSandbox(env)): string | undefined {
  if (mode !== "auto" || detected.kind !== "none") return undefined;
  const fix = detected.fix ? ` To get one: ${detected.fix}.` : "";
  return `no sandbox (${detected.reason}): the sessions' shell commands and the checks ran with otto's environment and command guards alone, as your user.${fix} \`sandbox: "required"\` in otto.jsonc refuses to run without one.`;
}

/**
 * Before a flow's first model call or git write: `required` and no sandbox refuses every flow
 * that runs code; `auto` and none refuses the flows nobody watches (`unattended` names the flow),
 * and lets the others run with otto's other guards.
 */
export function assertSandbox(mode: SandboxMode, env: Env, detected: Detected = detectSandbox(env), unattended?: string): void {
  if (mode === "off" || detected.kind !== "none") return;
  if (mode === "required") throw sandboxRequired(detected.reason, detected.fix);
  if (unattended !== undefined) throw sandboxUnattended(unattended, detected);
}
