import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../../src/runtime.ts";
import { createExecuteDeps } from "../../../src/execute/index.ts";
import { createBuildDeps } from "../../../src/build/index.ts";
import { runReviewLoop } from "../../../src/pr-review/loop/index.ts";
import { createWatchController, systemClock } from "../../../src/pr/index.ts";
import { ciContext } from "../../../src/pr/ci/context.ts";
import { runFix, type FixDeps, type FixInput } from "../../../src/pr/fix/run-fix.ts";
import { runCommentPass, type CommentFlowDeps } from "../../../src/pr/comments/run-comments.ts";
import { newDocument } from "../../../src/pr/commands/add.ts";
import { createPrStore } from "../../../src/pr/store/store.ts";
import type { PrBackend } from "../../../src/pr/backend.ts";
import type { PrInfo } from "../../../src/pr/types.ts";
import { createRepo, type Repo } from "../../support/git.ts";
import { testConfig } from "../pr/support.ts";

/*
 * Every flow that runs code a session or a PR wrote, at its own call site, on a machine with no
 * sandbox: a PATH without bwrap is what detection sees. Under "required" each refuses; under the
 * default "auto" the flows nobody watches refuse (the watcher in every form, its fix and comment
 * flows, CI mode) and the ones a person starts do not; "off" in the user's file lets them run.
 * Each refusal comes before the flow's first model call, forge write or git write.
 */

const roots: string[] = [];
const repos: Repo[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  for (const r of repos.splice(0)) r.cleanup();
});

interface Machine {
  root: string;
  env: Record<string, string>;
  dataDir: string;
  runtime: Runtime;
  logs: string[];
  /** What a flow wrote under otto's data folder or the user's config (a lock, a PID file, a unit). */
  written(): string[];
}

/** A home with `otto.jsonc` in it, and a PATH (a folder with git, and no bwrap). */
function machine(ottoConfig: Record<string, unknown>, directory = os.tmpdir()): Machine {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-refusals-")));
  roots.push(root);
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  for (const tool of ["git", "sh"]) fs.symlinkSync(onPath(tool), path.join(bin, tool));
  const env = {
    PATH: bin,
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_DATA_HOME: path.join(root, "data"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, "otto"), { recursive: true });
  fs.writeFileSync(path.join(env.XDG_CONFIG_HOME, "otto", "otto.jsonc"), JSON.stringify({ models: { primary: "mock/m1" }, ...ottoConfig }));
  const logs: string[] = [];
  const runtime = {
    env,
    directory,
    log: {
      log: (level: string, message: string, extra?: Record<string, unknown>) =>
        logs.push(`${level} ${message} ${JSON.stringify(extra ?? {})}`),
    },
    client: new Proxy({}, { get: () => () => Promise.reject(new Error("no OpenCode call may be made")) }),
    sessions: {},
    once: new Set<string>(),
  } as unknown as Runtime;
  const list = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => fs.statSync(path.join(dir, f)).isFile())
      : [];
  return {
    root,
    env,
    dataDir: path.join(env.XDG_DATA_HOME, "otto"),
    runtime,
    logs,
    written: () => [...list(env.XDG_DATA_HOME), ...list(path.join(env.XDG_CONFIG_HOME, "systemd"))],
  };
}

/** Where this machine keeps `name` (its PATH may hold bwrap too, so the machine's PATH gets links instead). */
function onPath(name: string): string {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const found = dirs.map((dir) => path.join(dir, name)).find((file) => fs.existsSync(file));
  if (!found) throw new Error(`${name} is not on PATH`);
  return found;
}

async function repo(): Promise<Repo> {
  const r = await createRepo();
  repos.push(r);
  return r;
}

const codeOf = async (run: Promise<unknown>): Promise<string | undefined> =>
  run.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );

describe('sandbox: "required" without a sandbox: every flow that runs code refuses', () => {
  it("execute and task run (createExecuteDeps), build", async () => {
    const r = await repo();
    const m = machine({ sandbox: "required" }, r.dir);
    const input = { runtime: m.runtime, sessionID: "ses_1", directory: r.dir, progress: () => undefined };
    expect(await codeOf(createExecuteDeps(input))).toBe("sandbox_required");
    expect(await codeOf(createBuildDeps(input))).toBe("sandbox_required");
  });

  it("the review loop, in its preflight: before a clone, a worktree or a model", async () => {
    const r = await repo();
    const m = machine({ sandbox: "required" }, r.dir);
    const loop = runReviewLoop({
      runtime: m.runtime,
      directory: r.dir,
      target: "https://github.com/octo/app/pull/1",
      progress: () => undefined,
    });
    expect(await codeOf(loop)).toBe("sandbox_required");
    expect(m.written()).toEqual([]);
  });

  it("the fix flow and the comment flow, whoever started them", async () => {
    const t = await flows({ sandbox: "required" });
    expect(await codeOf(runFix(t.fixDeps, t.fixInput("manual")))).toBe("sandbox_required");
    expect(await codeOf(runFix(t.fixDeps, t.fixInput("watcher")))).toBe("sandbox_required");
    expect(await codeOf(runCommentPass({ ...t.commentDeps, manual: true }, t.commentInput))).toBe("sandbox_required");
    expect(await codeOf(runCommentPass(t.commentDeps, t.commentInput))).toBe("sandbox_required");
    expect(t.calls).toEqual([]);
  });

  it("CI mode", async () => {
    const m = machine({ sandbox: "required" });
    expect(await codeOf(ciContext(m.runtime, m.root, "github"))).toBe("sandbox_required");
  });
});

describe('sandbox: "auto" (the default) without a sandbox: the flows nobody watches refuse', () => {
  it("/otto-pr watch start (in process and --detach), once and install refuse, saying why and how to turn it off; nothing is started or written", async () => {
    const m = machine({});
    const controller = createWatchController(m.runtime, {
      clock: systemClock,
      pid: process.pid,
      isAlive: () => true,
      argv: ["bun", "opencode", "serve"],
      opencode: path.join(m.root, "no-opencode"),
    });
    // Started one at a time: a refusal that came while another was awaited would be unhandled.
    for (const run of [
      () => controller.start({ detach: false }),
      () => controller.start({ detach: true }),
      () => controller.once(),
      () => controller.install({ enable: true }),
    ]) {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; fix: string },
      );
      expect(error?.code).toBe("sandbox_unattended");
      expect(error?.message).toMatch(
        /^The PR watcher('s systemd unit)? runs code a PR or a model wrote with nobody watching, and no sandbox can run here: bubblewrap \(bwrap\) is not installed\./,
      );
      expect(error?.fix).toContain("apt-get install bubblewrap");
      expect(error?.fix).toContain("/otto-config set sandbox off --user");
    }
    expect(m.written()).toEqual([]);
    expect(await controller.status()).toContain("not running");
  });

  it("the daemon (OTTO_WATCH=1: a detached serve, the systemd unit) logs the refusal and starts no watcher", async () => {
    const m = machine({});
    m.env.OTTO_WATCH = "1";
    const controller = createWatchController(m.runtime, {
      clock: systemClock,
      pid: process.pid,
      isAlive: () => true,
      argv: [],
      opencode: "",
    });
    await controller.autostart();
    expect(m.logs).toHaveLength(1);
    expect(m.logs[0]).toMatch(
      /^error otto could not start the PR watcher .*The PR watcher runs code a PR or a model wrote with nobody watching/,
    );
    expect(m.written()).toEqual([]);
  });

  it("the watcher's fix and comment flows refuse; a person's /otto-pr fix and /otto-pr comments run with the other guards", async () => {
    const t = await flows({});
    expect(await codeOf(runFix(t.fixDeps, t.fixInput("watcher")))).toBe("sandbox_unattended");
    expect(await codeOf(runCommentPass(t.commentDeps, t.commentInput))).toBe("sandbox_unattended");
    expect(t.calls).toEqual([]);
    // Past the sandbox, the stubs below end each flow: what matters is that it got there.
    expect(await codeOf(runFix(t.fixDeps, t.fixInput("manual")))).not.toMatch(/^sandbox_/);
    expect(await codeOf(runCommentPass({ ...t.commentDeps, manual: true }, t.commentInput))).not.toMatch(/^sandbox_/);
    expect(t.calls).toContain("getComments");
  });

  it("CI mode refuses before it reads the PR; with sandbox off it goes on (to its token check here)", async () => {
    const auto = machine({});
    expect(await codeOf(ciContext(auto.runtime, auto.root, "github"))).toBe("sandbox_unattended");
    const off = machine({ sandbox: "off" });
    expect(await codeOf(ciContext(off.runtime, off.root, "github"))).toBe("ci_no_token");
  });

  it("CI mode with a machine account's token needs its login: refused without OTTO_BOT_LOGIN, goes on with it", async () => {
    const m = machine({ sandbox: "off" });
    Object.assign(m.runtime.env, { GITHUB_TOKEN: "ghp_machine", OTTO_GITHUB_TOKEN_KIND: "machine" });
    expect(await codeOf(ciContext(m.runtime, m.root, "github"))).toBe("ci_no_bot_login");
    Object.assign(m.runtime.env, { OTTO_GITHUB_BOT_LOGIN: "otto-machine" });
    expect(await codeOf(ciContext(m.runtime, m.root, "github"))).toBeUndefined();
    // The App's or the job's own token: no login needed from the repository's variables.
    const job = machine({ sandbox: "off" });
    Object.assign(job.runtime.env, { GITHUB_TOKEN: "ghs_job", OTTO_GITHUB_TOKEN_KIND: "job" });
    expect(await codeOf(ciContext(job.runtime, job.root, "github"))).toBeUndefined();
  });

  it("execute, build and the review loop, which a person starts, are not refused", async () => {
    const r = await repo();
    const m = machine({}, r.dir);
    const input = { runtime: m.runtime, sessionID: "ses_1", directory: r.dir, progress: () => undefined };
    expect(await codeOf(createExecuteDeps(input))).not.toMatch(/^sandbox_/);
    expect(await codeOf(runReviewLoop({ ...input, target: "https://github.com/octo/app/pull/1" }))).not.toMatch(/^sandbox_/);
  });
});

describe('sandbox: "off" in the user\'s file: the watcher runs without one', () => {
  it("/otto-pr watch once runs a cycle", async () => {
    const m = machine({ sandbox: "off" });
    const controller = createWatchController(m.runtime, {
      clock: systemClock,
      pid: process.pid,
      isAlive: () => true,
      argv: [],
      opencode: "",
    });
    expect(await controller.once()).not.toMatch(/sandbox/);
  });
});

const pr: PrInfo = {
  provider: "github",
  repo: "octo/app",
  number: 42,
  url: "https://github.com/octo/app/pull/42",
  title: "Add math",
  state: "open",
  sourceBranch: "feature",
  targetBranch: "main",
  headSha: "a".repeat(40),
  author: "alice",
} as PrInfo;

/** The fix and comment flows' deps on a machine without a sandbox; the backend records every call. */
async function flows(ottoConfig: Record<string, unknown>) {
  const m = machine(ottoConfig);
  const calls: string[] = [];
  const backend = new Proxy({} as PrBackend, {
    get: (_t, name: string) => () => (calls.push(name), Promise.reject(new Error(`stub ${name}`))),
  });
  const store = createPrStore(path.join(m.root, "prs"));
  const doc = newDocument(pr, "github-octo-app-42", 5, "2026-02-06T10:00:00.000Z");
  await store.create(doc);
  const config = testConfig(ottoConfig);
  const common = {
    store,
    config,
    secrets: [],
    env: m.env,
    cwd: m.root,
    notify: () => Promise.resolve({ delivered: [], failed: [] }),
    now: () => new Date("2026-02-06T12:00:00.000Z"),
    log: () => undefined,
  };
  const fixDeps = {
    ...common,
    sessions: {},
    models: () => Promise.reject(new Error("no model may be asked for")),
  } as unknown as FixDeps;
  const commentDeps = {
    ...common,
    sessions: {},
    model: () => Promise.reject(new Error("no model may be asked for")),
  } as unknown as CommentFlowDeps;
  const pipeline = { state: "failure", checks: [{ name: "unit", state: "failure" }] };
  return {
    calls,
    fixDeps,
    commentDeps,
    fixInput: (trigger: "manual" | "watcher") => ({ doc, pr, pipeline, backend, trigger }) as unknown as FixInput,
    commentInput: { doc, pr, backend },
  };
}
