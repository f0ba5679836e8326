import type { ShellArg } from "./shell-ast.ts";

/*
 * What one `git …` invocation would do, read from its arguments: the global options before the
 * subcommand (git(1): -C, -c, --git-dir, …), the subcommand, and whether that pushes, writes the
 * checkout's git configuration, or defines an alias or transport on the fly.
 */

export type GitFinding =
  | { kind: "push"; what: string }
  | { kind: "config"; what: string }
  | { kind: "override"; what: string }
  | { kind: "unknown"; what: string }
  /** A shell command git will run (`!` alias, `rebase --exec`, `submodule foreach`): check it too. */
  | { kind: "shell"; script: string }
  /** An alias: git runs these words instead (check them as a git command). */
  | { kind: "alias"; words: string[] };

/** Global options that take the next word as their value. */
const VALUE_OPTIONS = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--attr-source",
  "--exec-path",
]);

/** `-c` / `--config-env` keys that would undo the session's git environment or define a command. */
const OVERRIDE_KEY =
  /^(url\.|remote\.|alias\.|credential|core\.(hookspath|sshcommand|askpass|fsmonitor|gitproxy)|http\.|include|protocol\.|push\.)/i;

/** Subcommands that send commits somewhere (git itself, its remote helpers, and the usual extensions). */
const PUSHING = new Set(["push", "send-pack", "receive-pack", "http-push"]);

/** Extension subcommands whose `push`-like verbs reach a remote. */
const EXTENSION_PUSH: Record<string, readonly string[]> = {
  lfs: ["push"],
  subtree: ["push"],
  svn: ["dcommit", "commit-diff", "set-tree"],
  p4: ["submit"],
  annex: ["sync", "copy", "move", "export"],
};

const REMOTE_WRITES = new Set(["add", "set-url", "rename", "remove", "rm", "set-head", "set-branches"]);

/** `git config` forms that only read. */
const CONFIG_READS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--list",
  "-l",
  "get",
  "list",
  "--get-color",
  "--get-colorbool",
]);

interface Parsed {
  /** The arguments from the subcommand on. */
  rest: ShellArg[];
  findings: GitFinding[];
}

function globalOptions(args: readonly ShellArg[]): Parsed {
  const findings: GitFinding[] = [];
  let i = 0;
  while (i < args.length) {
    const arg = args[i];
    const value = arg?.value;
    if (value === undefined) return { rest: args.slice(i), findings };
    if (!value.startsWith("-")) break;
    const [option, inline] =
      value.startsWith("--") && value.includes("=")
        ? [value.slice(0, value.indexOf("=")), value.slice(value.indexOf("=") + 1)]
        : [value, undefined];
    let optionValue = inline;
    if (VALUE_OPTIONS.has(option) && inline === undefined && option !== "--exec-path") {
      const next = args[i + 1];
      optionValue = next?.value ?? next?.text;
      i++;
    }
    if (option === "-c" || option === "--config-env") {
      const key = (optionValue ?? "").split("=")[0] ?? "";
      if (optionValue === undefined || args[i]?.value === undefined || OVERRIDE_KEY.test(key))
        findings.push({ kind: "override", what: `git ${option} ${optionValue ?? "(computed)"}` });
    }
    i++;
  }
  return { rest: args.slice(i), findings };
}

function positional(args: readonly ShellArg[]): string[] {
  return args.map((a) => a.value ?? a.text).filter((v) => !v.startsWith("-"));
}

/** The findings for `git <args>`; `aliases` are the checkout's (name → value, from git config). */
export function analyseGit(args: readonly ShellArg[], aliases: Readonly<Record<string, string>>): GitFinding[] {
  const { rest, findings } = globalOptions(args);
  const [sub, ...tail] = rest;
  if (!sub) return findings;
  const name = sub.value;
  if (name === undefined) return [...findings, { kind: "unknown", what: `git with a computed subcommand (${sub.text})` }];
  const values = tail.map((a) => a.value ?? a.text);

  if (PUSHING.has(name)) return [...findings, { kind: "push", what: `git ${name}` }];
  const extension = EXTENSION_PUSH[name];
  if (extension && extension.some((verb) => values.includes(verb)))
    return [...findings, { kind: "push", what: `git ${name} ${values.find((v) => extension.includes(v))}` }];

  if (name === "config") {
    const options = values.filter((v) => v.startsWith("-"));
    const words = positional(tail);
    const verb = words[0];
    const reads = options.some((o) => CONFIG_READS.has(o)) || (verb !== undefined && CONFIG_READS.has(verb));
    const writes =
      options.some((o) => /^--(add|unset|unset-all|replace-all|rename-section|remove-section|edit)$|^-e$/.test(o)) ||
      ["set", "unset", "rename-section", "remove-section", "edit"].includes(verb ?? "");
    if (writes || (!reads && words.length >= 2)) return [...findings, { kind: "config", what: `git config ${values.join(" ")}`.trim() }];
    return findings;
  }
  if (name === "remote") {
    const verb = positional(tail)[0];
    if (verb !== undefined && REMOTE_WRITES.has(verb)) return [...findings, { kind: "config", what: `git remote ${verb}` }];
    return findings;
  }
  if (name === "submodule" && values.includes("foreach")) {
    const script = tail
      .slice(values.indexOf("foreach") + 1)
      .filter((a) => !(a.value ?? "").startsWith("--"))
      .map((a) => a.value ?? a.text)
      .join(" ");
    return [...findings, { kind: "shell", script }];
  }
  if (name === "rebase" || name === "bisect") {
    const shells: GitFinding[] = [];
    tail.forEach((arg, i) => {
      const v = arg.value ?? arg.text;
      if (v === "-x" || v === "--exec") shells.push({ kind: "shell", script: tail[i + 1]?.value ?? tail[i + 1]?.text ?? "" });
      else if (v.startsWith("--exec=")) shells.push({ kind: "shell", script: v.slice("--exec=".length) });
    });
    if (name === "bisect" && values[0] === "run") shells.push({ kind: "shell", script: values.slice(1).join(" ") });
    return [...findings, ...shells];
  }

  const alias = aliases[name] ?? aliases[name.toLowerCase()];
  if (alias !== undefined) {
    if (alias.trimStart().startsWith("!"))
      return [...findings, { kind: "shell", script: `${alias.trimStart().slice(1)} ${values.join(" ")}` }];
    return [...findings, { kind: "alias", words: [...alias.trim().split(/\s+/), ...values] }];
  }
  return findings;
}
