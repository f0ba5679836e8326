import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { airlockGit, type AirlockResult, type AirlockRun } from "../../../src/workspace/airlock.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * The airlock's push (src/workspace/airlock.ts) through its own seam, `AirlockRun`, with real git on
 * both sides and no sandbox (git.ts boxes `tree`; airlock.test.ts covers that with bubblewrap): the
 * commit crosses only as the bundle the tree's side made, otto's git never opens the tree, and a
 * bundle holding another commit than the tree named pushes nothing. Runs where bubblewrap does not.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Call {
  side: "own" | "tree" | "bare";
  args: string[];
  cwd: string;
  config: ReadonlyArray<readonly [string, string]>;
}

async function gitIn(args: string[], cwd: string, env: Record<string, string>, input?: string, raw = false): Promise<AirlockResult> {
  const result = await execa("git", args, {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    ...(input === undefined ? { stdin: "ignore" as const } : { input }),
    encoding: raw ? "buffer" : "utf8",
  });
  const text = (v: unknown) => (Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString("utf8") : String(v));
  return {
    exitCode: result.exitCode ?? -1,
    stdout: text(result.stdout),
    stderr: text(result.stderr),
    ...(raw ? { bytes: Buffer.from(result.stdout as Uint8Array) } : {}),
  };
}

/** Real git on each side; every call recorded; `bundleIn` makes the tree's bundle in another clone (a lying tree). */
function recordingRun(repo: Repo, env: Record<string, string>, bundleIn?: string): { run: AirlockRun; calls: Call[] } {
  const calls: Call[] = [];
  const run: AirlockRun = {
    own: (args, cwd, config) => {
      calls.push({ side: "own", args, cwd, config });
      const vars = Object.fromEntries(
        config.flatMap(([k, v], i) => [
          [`GIT_CONFIG_KEY_${i}`, k],
          [`GIT_CONFIG_VALUE_${i}`, v],
        ]),
      );
      return gitIn(args, cwd, { ...env, ...vars, ...(config.length ? { GIT_CONFIG_COUNT: String(config.length) } : {}) });
    },
    tree: (args, options = {}) => {
      calls.push({ side: "tree", args, cwd: repo.dir, config: [] });
      const cwd = bundleIn !== undefined && args[0] === "bundle" ? bundleIn : repo.dir;
      return gitIn(args, cwd, env, options.input, options.raw === true);
    },
    bare: (args) => {
      calls.push({ side: "bare", args, cwd: "/", config: [] });
      return gitIn(args, "/", env);
    },
  };
  return { run, calls };
}

async function setup(): Promise<{ repo: Repo; env: Record<string, string>; layout: { root: string; gitDir: string; commonDir: string } }> {
  const repo = await createRepo({ remote: true });
  cleanups.push(() => repo.cleanup());
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "otto-airlock-cache-"));
  cleanups.push(() => fs.rmSync(cache, { recursive: true, force: true }));
  const env = gitEnv({ XDG_CACHE_HOME: cache, GITHUB_TOKEN: "ghp_airlockBundleToken0123456789abcdef" });
  await repo.commit("c1", { "a.txt": "one\n" });
  await repo.commit("c2", { "a.txt": "two\n" });
  const root = fs.realpathSync(repo.dir);
  return { repo, env, layout: { root, gitDir: path.join(root, ".git"), commonDir: path.join(root, ".git") } };
}

/** Whether a call of otto's own git (with the remote's reach; `bare` only reads the tree's config file as data) names or starts in the tree (its work tree or git directory). */
const touchesTree = (root: string) => (call: Call) =>
  call.side === "own" &&
  [call.cwd, ...call.args, ...call.config.map(([, v]) => v)].some(
    (s) => s === root || s.startsWith(`${root}/`) || s.includes(`file://${root}`),
  );

describe("the airlock's push: the commit crosses as the tree's bundle, checked", () => {
  it("pushes the commit the tree's HEAD names, from the bundle the tree made; otto's git never opens the tree", async () => {
    const { repo, env, layout } = await setup();
    const { run, calls } = recordingRun(repo, env);
    const result = await airlockGit(["push", "origin", "HEAD:refs/heads/otto/fix"], layout, env, run);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await repo.gitRemote(["rev-parse", "refs/heads/otto/fix"])).toBe(await repo.git(["rev-parse", "HEAD"]));
    // The route: a bundle made on the tree's side, fetched by otto's git from a file in its own directory.
    expect(calls.some((c) => c.side === "tree" && c.args[0] === "bundle")).toBe(true);
    expect(calls.filter((c) => c.side === "own" && c.args[0] === "fetch").map((c) => c.args.at(-2))).toEqual([
      expect.stringMatching(/airlock-[0-9a-f]+\.bundle$/),
    ]);
    expect(calls.filter(touchesTree(layout.root)).map((c) => `${c.side} ${c.cwd}: git ${c.args.join(" ")}`)).toEqual([]);
  });

  it("a bundle that holds another commit than the tree named pushes nothing, and says so", async () => {
    const { repo, env, layout } = await setup();
    // The same branch name, one commit behind: what a tree whose refs changed during the push would bundle.
    const liar = fs.mkdtempSync(path.join(os.tmpdir(), "otto-airlock-liar-"));
    cleanups.push(() => fs.rmSync(liar, { recursive: true, force: true }));
    await execa("git", ["clone", "-q", repo.dir, liar], { env });
    await execa("git", ["reset", "-q", "--hard", "HEAD~1"], { cwd: liar, env });
    const { run } = recordingRun(repo, env, liar);
    const error = await airlockGit(["push", "origin", "HEAD:refs/heads/otto/fix"], layout, env, run).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isOttoError(error) && error.code).toBe("git_airlock_bundle");
    expect((error as Error).message).toContain(`not ${await repo.git(["rev-parse", "HEAD"])}`);
    expect(await repo.remoteBranches()).not.toContain("otto/fix");
  });
});
