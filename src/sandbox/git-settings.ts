import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/*
 * The user's own git settings, as git inside the sandbox sees them. The sandbox's home is empty,
 * so without this git there would commit as nobody, take what the user ignores everywhere (an
 * editor's folder, `.DS_Store`), convert line endings differently and skip the LFS filter. Otto
 * reads the global configuration outside, once per tree (`includeIf "gitdir:…"` evaluated for the
 * tree's git directory, as git outside would), keeps the keys that shape what a commit holds and
 * who made it, and shows them inside as the home's `~/.gitconfig`, read-only. Nothing else of the
 * user's configuration enters: credential helpers, `http.*` headers and `url.*` rewrites (which
 * may carry a token) stay outside. Signing stays outside too: the agents are out of sight, so
 * otto's commits are unsigned (docs/security.md, "Your git settings").
 */

export interface UserGitSettings {
  /** A git config file's text with the kept keys; empty when the user has none. */
  text: string;
  /** The files those keys name (the global ignore and attributes files): shown read-only inside. */
  files: string[];
  /** The user's configuration asks git to sign commits (`commit.gpgSign`). */
  signs: boolean;
}

/** The keys kept, as `git config --list` prints them (section and name lower-case). */
const KEPT = [
  /^(user|author|committer)\.(name|email)$/,
  // No identity guessed from the host name inside when the user forbids it outside.
  /^user\.useconfigonly$/,
  /^core\.(excludesfile|attributesfile|autocrlf|eol|safecrlf|ignorecase|precomposeunicode|quotepath|symlinks|hookspath|checkroundtripencoding)$/,
  /^init\.defaultbranch$/,
  /^i18n\.(commitencoding|logoutputencoding)$/,
  // Clean and smudge filters (Git LFS): what `git add` stores depends on them.
  /^filter\.[^\n]+\.(clean|smudge|process|required)$/,
  /^safe\.directory$/,
];

const TRUE = /^(true|yes|on|1)$/i;

const cache = new Map<string, UserGitSettings>();

/** The settings for git working in the tree whose git directory is `gitDir` (outside any repository without one). */
export function userGitSettings(env: Env, gitDir?: string): UserGitSettings {
  const { home, config } = xdgPaths(env);
  const globals = [env.GIT_CONFIG_GLOBAL ?? path.join(home, ".gitconfig"), path.join(config, "git", "config")];
  // Keyed by the files' times too: a user who edits ~/.gitconfig sees it in the next command.
  const key = [gitDir, home, config, env.GIT_CONFIG_GLOBAL, ...globals.map(mtime)].join("\0");
  let found = cache.get(key);
  if (!found) {
    found = read(env, gitDir);
    cache.set(key, found);
  }
  return found;
}

function mtime(file: string): string {
  return String(fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? "-");
}

function read(env: Env, gitDir: string | undefined): UserGitSettings {
  // Global scope only, read as data: from `/`, with the tree's git directory named only so that
  // `includeIf "gitdir:"` matches as it would in the tree (no hook, filter or fsmonitor runs in `git config`).
  const clean: Env = {};
  for (const [name, value] of Object.entries(env))
    if (!/^GIT_(DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|CONFIG_(COUNT|KEY_\d+|VALUE_\d+|PARAMETERS))$/.test(name)) clean[name] = value;
  const result = spawnSync("git", [...(gitDir ? ["--git-dir", gitDir] : []), "config", "--global", "--list", "--includes", "-z"], {
    cwd: "/",
    env: { ...clean, GIT_CONFIG_NOSYSTEM: "1", ...(gitDir ? {} : { GIT_DIR: "/nonexistent-otto-git-dir" }) },
    encoding: "utf8",
    timeout: 5_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const entries: Array<[string, string]> = [];
  if (result.status === 0) {
    for (const field of result.stdout.split("\0")) {
      const at = field.indexOf("\n");
      const name = at < 0 ? field : field.slice(0, at);
      if (name && KEPT.some((re) => re.test(name))) entries.push([name, at < 0 ? "true" : field.slice(at + 1)]);
    }
  }
  const signs = TRUE.test(lastValue(result.status === 0 ? result.stdout : "", "commit.gpgsign") ?? "");
  const { home, config } = xdgPaths(env);
  const files: string[] = [];
  // The ignore and attributes files, named by absolute path: inside, `~` is the empty home.
  for (const [name, fallback] of [
    ["core.excludesfile", path.join(config, "git", "ignore")],
    ["core.attributesfile", path.join(config, "git", "attributes")],
  ] as const) {
    const set = entries.filter(([k]) => k === name).at(-1)?.[1];
    const file = set ? path.resolve(home, set.startsWith("~/") ? set.slice(2) : set) : fallback;
    const without = entries.filter(([k]) => k !== name);
    entries.length = 0;
    entries.push(...without);
    if (fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      entries.push([name, file]);
      files.push(file);
    }
  }
  return { text: entries.map(([name, value]) => line(name, value)).join(""), files, signs };
}

function lastValue(list: string, name: string): string | undefined {
  let value: string | undefined;
  for (const field of list.split("\0")) if (field === name || field.startsWith(`${name}\n`)) value = field.slice(name.length + 1) || "true";
  return value;
}

/** One entry as a config file section: `[section "sub"]\n\tname = "value"\n`. */
function line(key: string, value: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  const section = key.slice(0, first);
  const sub = first === last ? undefined : key.slice(first + 1, last);
  const name = key.slice(last + 1);
  const quote = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  const header = sub === undefined ? `[${section}]` : `[${section} "${quote(sub)}"]`;
  const escaped = quote(value).replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return `${header}\n\t${name} = "${escaped}"\n`;
}

/**
 * The settings as a file on the host that the sandbox shows as `~/.gitconfig`: under otto's data
 * folder (out of sight inside), named by its content, written once.
 */
export function gitSettingsFile(env: Env, settings: UserGitSettings): string {
  const dir = path.join(xdgPaths(env).ottoDataDir, "sandbox");
  const file = path.join(dir, `gitconfig-${createHash("sha256").update(settings.text).digest("hex").slice(0, 16)}`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temp, settings.text, { mode: 0o600 });
    fs.renameSync(temp, file);
  }
  return file;
}
