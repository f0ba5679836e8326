import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { OttoError, serialQueue, xdgPaths, type Env } from "../core/index.ts";
import type { TreeLayout } from "./tree-layout.ts";

/*
 * The airlock: network git for a tree sandboxed code held. Fetch and push need the user's
 * credentials, so they cannot run in the sandbox; run in the tree's git directory, they would have
 * git read (and, through a bug, trust) what that code wrote there. So no git with credentials ever
 * opens such a tree. Otto keeps a git directory of its own per remote (a mirror no sandboxed code
 * can write), and only data crosses:
 *
 * - fetch: otto's directory fetches the refs asked for from the remote, at the same names; then
 *   git in the sandbox (no network, otto's directory read-only) fetches them from there into the
 *   tree, with the caller's refspecs, so the tree ends up as a direct fetch would leave it;
 * - push: git in the sandbox writes the commits as a bundle to its standard output (bytes, read as
 *   data); otto's directory fetches the bundle, checks it holds the commit the tree named, and
 *   pushes that commit (never forced, no hook) from there;
 * - ls-remote: from otto's directory.
 *
 * The remote's address and the tree's credential settings are read from the tree's config file as
 * data (sandboxed code sees that file read-only) and handed to otto's git on its environment, never
 * its command line. docs/security.md, "Otto's own git".
 */

export interface AirlockRun {
  /** git outside the sandbox in `cwd` (otto's directory), hardened; `config` entries as command-line configuration. */
  own(args: string[], cwd: string, config: ReadonlyArray<readonly [string, string]>): Promise<AirlockResult>;
  /** git inside the sandbox in the tree; `readOnly` shown to it, no network; `raw` keeps stdout's bytes. */
  tree(args: string[], options?: { readOnly?: string[]; raw?: boolean; input?: string }): Promise<AirlockResult>;
  /** git outside the sandbox and outside any repository (`git config --file`). */
  bare(args: string[]): Promise<AirlockResult>;
}

export interface AirlockResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  bytes?: Buffer;
}

/** The subcommands that go through the airlock in a held tree. */
export const AIRLOCKED = new Set(["fetch", "push", "ls-remote"]);

const OPTIONS: Record<string, ReadonlySet<string>> = {
  fetch: new Set(["-q", "--quiet", "--no-tags", "--tags"]),
  push: new Set(["-q", "--quiet", "--no-verify", "--porcelain", "--no-follow-tags", "--dry-run", "--set-upstream", "-u"]),
  "ls-remote": new Set(["-q", "--quiet", "--symref", "--heads", "--tags", "--refs", "--exit-code"]),
};

/** The name otto's directory gives the remote; its address comes with each command. */
const REMOTE = "origin";

/** Per-repository settings a fetch or push needs to reach the remote: copied from the tree's config file. */
const REACH = /^(credential\.|http\.|url\.|core\.sshcommand$)/;

/** Runs `args` (fetch, push or ls-remote; `args[0]` the subcommand) for the tree of `layout` through the airlock. */
export async function airlockGit(args: readonly string[], layout: TreeLayout, env: Env, run: AirlockRun): Promise<AirlockResult> {
  const [sub = "", ...rest] = args;
  const options = rest.filter((a) => a.startsWith("-"));
  const [remote, ...specs] = rest.filter((a) => !a.startsWith("-"));
  const allowed = OPTIONS[sub];
  const unknown = options.filter((o) => !allowed?.has(o));
  if (!allowed || !remote || unknown.length > 0)
    throw new OttoError(
      "git_airlock_unsupported",
      `otto cannot run \`git ${args.join(" ")}\` through its airlock (${!allowed ? `not ${sub}` : !remote ? "no remote named" : `option ${unknown.join(", ")}`}).`,
      "This is a bug in otto: report the command.",
    );
  const reach = await remoteSettings(layout, remote, sub === "push", run);
  const own = await ownGitDir(reach.url, env, run);
  return serialise(own, async () => {
    if (sub === "ls-remote") return run.own(["ls-remote", ...options, REMOTE, ...specs], own, reach.config);
    if (sub === "fetch") return fetchThrough(own, options, specs.length > 0 ? specs : reach.fetch, reach.config, run);
    return pushThrough(own, layout, remote, options, specs, reach.config, run);
  });
}

async function fetchThrough(
  own: string,
  options: string[],
  specs: readonly string[],
  config: ReadonlyArray<readonly [string, string]>,
  run: AirlockRun,
): Promise<AirlockResult> {
  if (specs.length === 0)
    throw new OttoError(
      "git_airlock_unsupported",
      "otto's airlock fetches named refs only, and the remote has no fetch refspec.",
      "Name the branch to fetch.",
    );
  // Otto's directory keeps each ref at the name the remote gives it, so the caller's refspecs mean the same there.
  const mirror = specs.filter((s) => !s.startsWith("^")).map((s) => `+${qualified(refspec(s).src)}:${qualified(refspec(s).src)}`);
  const outside = await run.own(["fetch", ...options, REMOTE, ...mirror], own, config);
  if (outside.exitCode !== 0) return outside;
  return run.tree(["fetch", ...options, own, ...specs], { readOnly: [own] });
}

async function pushThrough(
  own: string,
  layout: TreeLayout,
  remote: string,
  options: string[],
  specs: readonly string[],
  config: ReadonlyArray<readonly [string, string]>,
  run: AirlockRun,
): Promise<AirlockResult> {
  const [spec, ...more] = specs;
  const parsed = spec === undefined ? undefined : refspec(spec);
  if (!parsed || more.length > 0 || parsed.force || !parsed.dst)
    throw new OttoError(
      "git_airlock_unsupported",
      `otto's airlock pushes one <from>:<to> refspec, never forced (got ${specs.join(" ") || "none"}).`,
      "This is a bug in otto: report the command.",
    );
  const dst = qualified(parsed.dst);
  const sha = (await run.tree(["rev-parse", "--verify", "-q", `${parsed.src}^{commit}`])).stdout.trim();
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return { exitCode: 1, stdout: "", stderr: `error: src refspec ${parsed.src} does not match any\n` };
  await carryCommit(own, parsed.src, sha, run);
  const dryRun = options.includes("--dry-run");
  const pushOptions = options.filter((o) => o !== "--set-upstream" && o !== "-u");
  const pushed = await run.own(["push", ...pushOptions, "--no-verify", REMOTE, `${sha}:${dst}`], own, config);
  if (pushed.exitCode !== 0 || dryRun) return pushed;
  // What a direct push leaves behind: the mirror and the tree's remote-tracking ref, the upstream when asked.
  await run.own(["update-ref", dst, sha], own, []);
  const branch = dst.replace(/^refs\/heads\//, "");
  if (dst.startsWith("refs/heads/") && isRemoteName(remote)) await run.tree(["update-ref", `refs/remotes/${remote}/${branch}`, sha]);
  if (options.includes("--set-upstream") || options.includes("-u")) {
    const local = parsed.src.replace(/^refs\/heads\//, "");
    const file = path.join(layout.commonDir, "config");
    await run.bare(["config", "--file", file, `branch.${local}.remote`, remote]);
    await run.bare(["config", "--file", file, `branch.${local}.merge`, dst]);
  }
  return pushed;
}

/**
 * Brings `sha` (the tree's `src`) into otto's directory: a bundle of what the directory lacks,
 * made in the sandbox and read as bytes, fetched there and checked to name the same commit.
 */
async function carryCommit(own: string, src: string, sha: string, run: AirlockRun): Promise<void> {
  if ((await run.own(["cat-file", "-e", `${sha}^{commit}`], own, [])).exitCode === 0) return;
  // Leave out what otto's directory has and the tree has too (both sides' commits, checked in the tree).
  const tips = (await run.own(["for-each-ref", "--format=%(objectname)"], own, [])).stdout.split("\n").filter(Boolean);
  const known = tips.length
    ? (await run.tree(["cat-file", "--batch-check=%(objectname) %(objecttype)"], { input: `${[...new Set(tips)].join("\n")}\n` })).stdout
        .split("\n")
        .filter((line) => line.endsWith(" commit"))
        .map((line) => line.split(" ")[0] ?? "")
    : [];
  const made = await run.tree(["bundle", "create", "-", src, ...known.map((t) => `^${t}`)], { raw: true });
  if (made.exitCode !== 0 || !made.bytes)
    throw new OttoError(
      "git_airlock_bundle",
      `Could not bundle ${src} in the tree for the push: ${made.stderr.trim()}`,
      "Run the command again; if it fails again, look at the tree's git state.",
    );
  const file = path.join(own, `airlock-${randomBytes(6).toString("hex")}.bundle`);
  fs.writeFileSync(file, made.bytes, { mode: 0o600, flag: "wx" });
  try {
    const ref = `refs/otto-airlock/${path.basename(file, ".bundle")}`;
    const fetched = await run.own(["fetch", "-q", file, `${src}:${ref}`], own, []);
    const got = fetched.exitCode === 0 ? (await run.own(["rev-parse", "--verify", "-q", ref], own, [])).stdout.trim() : "";
    await run.own(["update-ref", "-d", ref], own, []);
    if (got !== sha)
      throw new OttoError(
        "git_airlock_bundle",
        `The bundle of ${src} made in the tree ${fetched.exitCode !== 0 ? `could not be read (${fetched.stderr.trim()})` : `holds ${got || "nothing"}, not ${sha}`}: nothing pushed.`,
        "Something changed the tree's git state during the push; look at it, then run the command again.",
      );
  } finally {
    fs.rmSync(file, { force: true });
  }
}

interface RemoteSettings {
  url: string;
  /** The remote's fetch refspecs, for a fetch that names none. */
  fetch: string[];
  /** Command-line configuration for otto's git: the remote's address and the tree's reach settings. */
  config: Array<readonly [string, string]>;
}

/** `remote` (a name in the tree's config, or an address) and what reaching it takes, read from the config file as data. */
async function remoteSettings(layout: TreeLayout, remote: string, push: boolean, run: AirlockRun): Promise<RemoteSettings> {
  const file = path.join(layout.commonDir, "config");
  const listed = await run.bare(["config", "--file", file, "--null", "--list"]);
  const entries = listed.stdout
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf("\n");
      return at < 0 ? ([entry, "true"] as const) : ([entry.slice(0, at), entry.slice(at + 1)] as const);
    });
  const get = (key: string) => entries.filter(([k]) => k.toLowerCase() === key.toLowerCase()).map(([, v]) => v);
  const named = isRemoteName(remote) && get(`remote.${remote}.url`).length > 0;
  const url = named
    ? push
      ? (get(`remote.${remote}.pushurl`)[0] ?? get(`remote.${remote}.url`)[0])
      : get(`remote.${remote}.url`)[0]
    : remote;
  if (!url)
    throw new OttoError(
      "git_remote_missing",
      `${layout.root} has no remote '${remote}'.`,
      `Add it (git -C ${layout.root} remote add ${remote} <url>), then run the command again.`,
    );
  return {
    url,
    fetch: named ? get(`remote.${remote}.fetch`) : [],
    config: [...entries.filter(([k]) => REACH.test(k.toLowerCase())), [`remote.${REMOTE}.url`, url]],
  };
}

/** Otto's git directory for the remote at `url`: made on first use, under the cache folder (never a tree). */
async function ownGitDir(url: string, env: Env, run: AirlockRun): Promise<string> {
  const { cache } = xdgPaths(env);
  const dir = path.join(cache, "otto", "airlock", `${createHash("sha256").update(url).digest("hex").slice(0, 20)}.git`);
  if (fs.existsSync(path.join(dir, "HEAD"))) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  const made = await run.own(["init", "-q", "--bare", dir], path.dirname(dir), []);
  if (made.exitCode !== 0)
    throw new OttoError(
      "git_airlock_dir",
      `Could not make otto's git directory ${dir}: ${made.stderr.trim()}`,
      `Check that ${path.dirname(dir)} is writable.`,
    );
  return dir;
}

/** One airlock command at a time per directory of otto's (two fetches would race for its refs). */
const serialise = serialQueue();

function refspec(spec: string): { force: boolean; src: string; dst: string | undefined } {
  const force = spec.startsWith("+");
  const body = force ? spec.slice(1) : spec;
  const at = body.indexOf(":");
  return at < 0 ? { force, src: body, dst: undefined } : { force, src: body.slice(0, at), dst: body.slice(at + 1) };
}

/** A ref as otto's directory names it: a short name is a branch. */
function qualified(ref: string): string {
  return ref.startsWith("refs/") || ref === "HEAD" ? ref : `refs/heads/${ref}`;
}

/** A remote's name (not an address or a path). */
function isRemoteName(remote: string): boolean {
  return /^[\w.-]+$/.test(remote) && !remote.startsWith(".");
}
