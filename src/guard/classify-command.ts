import path from "node:path";
import { localEndpoints, localServerDenial, mentionsLocalServer, type Endpoint } from "./local-server.ts";
import { DEFAULT_FORGE_HOSTS, azDenial, ghDenial, httpDenial, isHttpClient, mentionsForge } from "./forge-command.ts";
import { analyseGit, type GitFinding } from "./git-command.ts";
import { isGitControlPath } from "./git-paths.ts";
import { protectedVariables } from "../sandbox/index.ts";
import { parseLine, type ShellArg, type SimpleCommand } from "./shell-ast.ts";

/*
 * One file for one job: a single pure decision over a parsed shell line. Its rules call each other
 * (a wrapper such as `env`, `sh -c` or an alias sends the rest of the line back through the same
 * classifier), so they stay together; the parser is shell-ast.ts, forge hosts forge-command.ts.
 */

/*
 * The command layer: is a bash command line of a guarded session allowed to run? Pure: what it
 * needs from the machine (the checkout's git aliases, a script's text) comes in through the
 * context. It refuses, wherever they sit in the line (`sh -c '…'`, `env …`, `$(…)`, a function,
 * an alias): pushing in any spelling, calling a forge (gh/az verbs that change things, HTTP to a
 * forge API or with credentials), writing the checkout's git configuration or hooks, and changing
 * the environment otto set for the session. What it cannot read (a computed command name, an
 * unparseable line, a shell reading commands from a pipe) it refuses too.
 */

export interface ClassifyContext {
  /** Forge hosts beyond the defaults (the configured api_url / base_url). */
  forgeHosts?: readonly string[];
  /**
   * OpenCode's own servers: the plugin's server URL and the detached watcher's (server.port on
   * loopback). A request to one could start a session otto does not guard.
   */
  localServers?: { urls?: readonly string[]; ports?: readonly number[] };
  /** The checkout's git aliases: name → value. */
  gitAliases?: Readonly<Record<string, string>>;
  /** A script's text when `path` (relative to the command's directory) is a readable file. */
  readScript?: (path: string) => string | undefined;
}

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/** What the model is told instead of running the command. */
export const PUSH_ADVICE = "Otto pushes for you after its checks pass: commit your work (if your task says to) and stop.";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox"]);
/** Commands that run the rest of their arguments as a command (after their own options). */
const WRAPPERS = new Set([
  "env",
  "command",
  "builtin",
  "exec",
  "nohup",
  "nice",
  "timeout",
  "sudo",
  "doas",
  "setsid",
  "stdbuf",
  "time",
  "xargs",
  "flock",
  "chronic",
  "unbuffer",
  "ionice",
  "taskset",
  "chrt",
  "caffeinate",
  "watch",
  "strace",
  "ltrace",
]);
/** Interpreters whose inline code is scanned as text. */
const INLINE_CODE: Record<string, readonly string[]> = {
  node: ["-e", "--eval", "-p", "--print"],
  bun: ["-e", "--eval", "-p", "--print"],
  deno: ["eval"],
  python: ["-c"],
  python3: ["-c"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r"],
};
/** Commands that only read the files they are given. */
const READERS = new Set([
  "cd",
  "pushd",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ls",
  "stat",
  "file",
  "wc",
  "diff",
  "cmp",
  "sha1sum",
  "sha256sum",
  "md5sum",
  "git",
  "test",
  "[",
  "realpath",
  "readlink",
  "dirname",
  "basename",
  "echo",
  "printf",
]);
const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const MAX_DEPTH = 6;

type Denial = string | undefined;

const GIT_PUSH_TEXT = /\bgit\b[^\n;|&]*\b(push|send-pack|receive-pack)\b/;

class Classifier {
  readonly hosts: readonly string[];
  readonly protectedNames: ReadonlySet<string>;
  readonly servers: readonly Endpoint[];

  constructor(readonly ctx: ClassifyContext) {
    this.hosts = [...DEFAULT_FORGE_HOSTS, ...(ctx.forgeHosts ?? []).map((h) => h.toLowerCase())];
    this.servers = localEndpoints(ctx.localServers?.urls ?? [], ctx.localServers?.ports ?? []);
    this.protectedNames = new Set(protectedVariables());
  }

  line(source: string, depth: number): Denial {
    if (depth > MAX_DEPTH) return "commands nested too deeply to check";
    const parsed = parseLine(source);
    if (parsed.errors.length > 0) return `a command line otto cannot parse (${parsed.errors[0]})`;
    for (const command of parsed.commands) {
      const denial = this.command(command, depth);
      if (denial) return denial;
    }
    return undefined;
  }

  command(cmd: SimpleCommand, depth: number): Denial {
    for (const { name } of cmd.assignments) {
      if (this.isProtected(name)) return `changing ${name}, which otto set for this session`;
    }
    for (const redirect of cmd.redirects) {
      if (redirect.target && WRITE_REDIRECTS.has(redirect.operator) && isGitControlPath(redirect.target.value ?? redirect.target.text)) {
        return `writing ${redirect.target.value ?? redirect.target.text}`;
      }
      // bash's `exec 3<>/dev/tcp/127.0.0.1/4097`: a raw connection to OpenCode's server.
      const server = redirect.target ? mentionsLocalServer(redirect.target.value ?? redirect.target.text, this.servers) : undefined;
      if (server) return `a connection to OpenCode's own server (${server})`;
    }
    if (!cmd.name) return undefined;
    const name = cmd.name.value;
    if (name === undefined) return `a command whose name is computed when it runs (${cmd.name.text}), which otto cannot check`;
    return this.invocation(path.basename(name), cmd.args, cmd, depth);
  }

  /** `name args…`: wrappers unwrapped, shells and scripts read, git and forge CLIs checked. */
  invocation(name: string, args: readonly ShellArg[], cmd: SimpleCommand, depth: number): Denial {
    if (/^git-(push|send-pack|receive-pack|http-push|remote-)/.test(name)) return name;
    if (name === "git") return this.git(args, depth);
    if (name === "gh") return ghDenial(args);
    if (name === "az") return azDenial(args);
    if (isHttpClient(name)) return localServerDenial(name, args, this.servers) ?? httpDenial(name, args, this.hosts);
    if (name === "ssh" && args.some((a) => /receive-pack/.test(a.value ?? a.text))) return "ssh to a git-receive-pack";
    if (name === "unset" || name === "export" || name === "declare" || name === "typeset" || name === "readonly" || name === "local") {
      const touched = args.map((a) => (a.value ?? a.text).split("=")[0] ?? "").find((n) => this.isProtected(n));
      if (touched) return `changing ${touched}, which otto set for this session`;
      return undefined;
    }
    if (name === "eval") return this.line(args.map((a) => a.value ?? a.text).join(" "), depth + 1);
    if (name === "source" || name === ".") return this.script(args[0], depth);
    if (SHELLS.has(name)) return this.shell(name, args, cmd, depth);
    if (WRAPPERS.has(name)) return this.wrapper(name, args, cmd, depth);
    if (name === "find") return this.find(args, cmd, depth);
    const inline = INLINE_CODE[name] ?? INLINE_CODE[name.replace(/[\d.]+$/, "")];
    if (inline) {
      const i = args.findIndex((a) => inline.includes(a.value ?? ""));
      const code = i >= 0 ? args[i + 1] : undefined;
      if (code) return this.text(code.value ?? code.text, `${name} ${args[i]?.value} code`);
    }
    const writes = !READERS.has(name) && args.find((a) => isGitControlPath(a.value ?? a.text));
    if (writes) return `${name} on ${writes.value ?? writes.text}`;
    // A script of the checkout: read it (a file that does not exist yet is the env layer's).
    if (name.includes("/") || cmd.name?.value?.includes("/")) return this.script(cmd.name, depth);
    return undefined;
  }

  git(args: readonly ShellArg[], depth: number): Denial {
    for (const finding of analyseGit(args, this.ctx.gitAliases ?? {})) {
      const denial = this.gitFinding(finding, depth);
      if (denial) return denial;
    }
    return undefined;
  }

  gitFinding(finding: GitFinding, depth: number): Denial {
    switch (finding.kind) {
      case "push":
      case "unknown":
        return finding.what;
      case "config":
        return `${finding.what} (the checkout's git configuration is otto's)`;
      case "override":
        return `${finding.what} (overrides the git configuration otto set for this session)`;
      case "shell":
        return this.line(finding.script, depth + 1);
      case "alias":
        if (depth >= MAX_DEPTH) return "git aliases nested too deeply to check";
        return this.git(
          finding.words.map((w) => ({ value: w, text: w })),
          depth + 1,
        );
    }
  }

  shell(name: string, args: readonly ShellArg[], cmd: SimpleCommand, depth: number): Denial {
    const rest = name === "busybox" ? args.slice(1) : args;
    if (name === "busybox" && !SHELLS.has(args[0]?.value ?? "")) return undefined;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i] as ShellArg;
      const value = arg.value;
      if (value === undefined) return `${name} with computed arguments (${arg.text})`;
      // -c, or a bundle such as -ec / -lc: the next word is the script.
      if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(value)) {
        const script = rest[i + 1];
        if (!script) return undefined;
        if (script.value === undefined) return `${name} -c with a computed script (${script.text})`;
        return this.line(script.value, depth + 1);
      }
      if (value === "-s") break;
      if (value === "-o" || value === "+o" || value === "-O" || value === "+O") i++;
      else if (!value.startsWith("-") && !value.startsWith("+")) return this.script(arg, depth);
    }
    // No -c and no file: the shell reads its commands from stdin.
    const input = cmd.redirects.find((r) => r.input !== undefined)?.input;
    if (input !== undefined) return this.line(input, depth + 1);
    const fromFile = cmd.redirects.find((r) => r.operator === "<" && r.target);
    if (fromFile) return this.script(fromFile.target, depth);
    if (cmd.piped) return `${name} reading commands from a pipe, which otto cannot check`;
    return undefined;
  }

  wrapper(name: string, args: readonly ShellArg[], cmd: SimpleCommand, depth: number): Denial {
    let i = 0;
    while (i < args.length) {
      const value = args[i]?.value;
      if (value === undefined) return `${name} with computed arguments (${args[i]?.text})`;
      if (name === "env") {
        if (value === "-i" || value === "--ignore-environment" || value === "-")
          return "env -i (drops the environment otto set for this session)";
        if (value === "-u" || value === "--unset") {
          const unset = args[i + 1]?.value ?? "";
          if (this.isProtected(unset)) return `env -u ${unset} (changes the environment otto set for this session)`;
          i += 2;
          continue;
        }
        if (value.startsWith("-u") || value.startsWith("--unset=")) {
          const unset = value.replace(/^(-u|--unset=)/, "");
          if (this.isProtected(unset)) return `env -u ${unset} (changes the environment otto set for this session)`;
          i++;
          continue;
        }
        if (value === "-S" || value === "--split-string")
          return this.line(
            args
              .slice(i + 1)
              .map((a) => a.value ?? a.text)
              .join(" "),
            depth + 1,
          );
        if (value === "-C" || value === "--chdir") {
          i += 2;
          continue;
        }
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
          const variable = value.slice(0, value.indexOf("="));
          if (this.isProtected(variable)) return `changing ${variable}, which otto set for this session`;
          i++;
          continue;
        }
      }
      if (name === "timeout" && /^\d/.test(value)) {
        i++;
        break;
      }
      if (name === "watch" && !value.startsWith("-"))
        return this.line(
          args
            .slice(i)
            .map((a) => a.value ?? a.text)
            .join(" "),
          depth + 1,
        );
      if (name === "flock" && !value.startsWith("-")) {
        // flock FILE COMMAND… or flock FILE -c STRING
        const next = args[i + 1]?.value;
        if (next === "-c" || next === "--command") return this.line(args[i + 2]?.value ?? "", depth + 1);
        i++;
        break;
      }
      if (!value.startsWith("-")) break;
      // Options with a value the next word carries.
      if (
        /^(-n|-s|-k|-u|-g|-p|-c|-o|-e|-i|-I|-L|-P|-d|-a|--signal|--kill-after|--adjustment|--user|--group)$/.test(value) &&
        name !== "command" &&
        name !== "exec"
      )
        i++;
      i++;
    }
    const rest = args.slice(i);
    const head = rest[0];
    if (!head) return undefined;
    if (head.value === undefined) return `${name} running a computed command (${head.text})`;
    return this.invocation(
      path.basename(head.value),
      rest.slice(1),
      { ...cmd, name: head, args: rest.slice(1), piped: name === "xargs" ? false : cmd.piped },
      depth + 1,
    );
  }

  find(args: readonly ShellArg[], cmd: SimpleCommand, depth: number): Denial {
    for (const [i, arg] of args.entries()) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(arg.value ?? "")) continue;
      const end = args.findIndex((a, j) => j > i && (a.value === ";" || a.value === "+"));
      const words = args.slice(i + 1, end < 0 ? undefined : end);
      const head = words[0];
      if (!head) continue;
      if (head.value === undefined) return `find -exec with a computed command (${head.text})`;
      const denial = this.invocation(path.basename(head.value), words.slice(1), { ...cmd, name: head, args: words.slice(1) }, depth + 1);
      if (denial) return denial;
    }
    if (args.some((a) => a.value === "-delete") && args.some((a) => isGitControlPath(a.value ?? a.text)))
      return "find -delete in the git directory";
    return undefined;
  }

  /** A script file run by the line: its text is checked like the line, when it can be read. */
  script(arg: ShellArg | undefined, depth: number): Denial {
    if (!arg) return undefined;
    if (arg.value === undefined) return `running a script whose path is computed (${arg.text})`;
    if (isGitControlPath(arg.value)) return `running ${arg.value}`;
    const text = this.ctx.readScript?.(arg.value);
    if (text === undefined) return undefined;
    // A binary or a script for another interpreter: the env layer is what stops its pushes.
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
    const interpreter = shebang ? path.basename(shebang[2] && shebang[1]?.endsWith("env") ? shebang[2] : (shebang[1] ?? "")) : "sh";
    if (!SHELLS.has(interpreter)) return this.text(text, `${arg.value}`);
    return this.line(text, depth + 1);
  }

  /** Code otto cannot parse as shell (inline Python, JavaScript, …): scanned for the obvious. */
  text(code: string, what: string): Denial {
    if (GIT_PUSH_TEXT.test(code)) return `${what} that runs git push`;
    // OpenCode's server first: on loopback it may share a host with a configured forge (a local api_url).
    const server = mentionsLocalServer(code, this.servers);
    if (server) return `${what} that calls OpenCode's own server (${server})`;
    const host = mentionsForge(code, this.hosts);
    if (host) return `${what} that calls ${host}`;
    return undefined;
  }

  isProtected(name: string): boolean {
    return this.protectedNames.has(name) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name);
  }
}

/** Whether a guarded session may run `command` (the bash tool's whole command line). */
export function classifyCommand(command: string, ctx: ClassifyContext = {}): Verdict {
  let denial: Denial;
  try {
    denial = new Classifier(ctx).line(command, 0);
  } catch (error) {
    denial = `a command line otto could not check (${error instanceof Error ? error.message : String(error)})`;
  }
  return denial ? { allowed: false, reason: denial } : { allowed: true };
}
