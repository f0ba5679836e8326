import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BuildStore, archiveTarget, resolveTargets, runBuild, type BuildDeps, type BuildTarget } from "../../../src/build/index.ts";
import { runGit } from "../../../src/execute/index.ts";
import type { NotifyEvent } from "../../../src/notify/index.ts";
import { FakeBuilder, completeNext, tasksMd, tempRepoDir, type Step } from "./fixtures.ts";

const NOW = new Date("2026-11-21T10:00:00Z");

function repoWith(specs: Record<string, string>): string {
  const root = tempRepoDir();
  for (const [slug, tasks] of Object.entries(specs)) {
    fs.mkdirSync(path.join(root, ".otto/specs", slug), { recursive: true });
    fs.writeFileSync(path.join(root, ".otto/specs", slug, "tasks.md"), tasks);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" } });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "t");
  git("config", "user.email", "t@example.com");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  return root;
}

/** A builder that completes one task per turn and confirms when asked. */
const worker = (root: string): Step => (_turn, prompt) => {
  const slug = /otto spec '([^']+)'|\.otto\/specs\/([^/`]+)\/tasks\.md/.exec(prompt);
  const name = slug?.[1] ?? slug?.[2] ?? "";
  if (prompt.includes("`VERIFIED`")) return "VERIFIED";
  const file = path.join(root, ".otto/specs", name, "tasks.md");
  completeNext(file);
  fs.writeFileSync(path.join(root, `${name}-${Date.now()}.txt`), "x");
  return "one more task done";
};

function deps(root: string, step: Step, notified: NotifyEvent[] = []): { deps: BuildDeps; builders: FakeBuilder[] } {
  const builders: FakeBuilder[] = [];
  return {
    builders,
    deps: {
      repoRoot: root,
      store: new BuildStore(root),
      openBuilder: async () => {
        const b = new FakeBuilder(step);
        builders.push(b);
        return b;
      },
      git: runGit,
      verify: [],
      runChecks: async () => [],
      archive: (target: BuildTarget) => archiveTarget(target, { repoRoot: root, now: () => NOW, openspec: async () => undefined }),
      notify: async (event) => {
        notified.push(event);
      },
      progress: () => undefined,
      now: () => NOW,
      pid: process.pid,
      pollMs: 5,
    },
  };
}

describe("runBuild", () => {
  it("commits once and archives the spec when done; the state says done", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const { deps: d } = deps(root, worker(root));
    const [result] = await runBuild(d, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 3 });
    expect(result?.end.kind).toBe("done");
    expect(fs.existsSync(path.join(root, ".otto/specs/archive/2026-11-21-demo/tasks.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".otto/specs/demo"))).toBe(false);
    const log = execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" }).trim().split("\n");
    expect(log).toEqual(["feat(demo): implementation complete", "init"]);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" })).toBe("");
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toMatchObject({ status: "done", iteration: 3 });
  });

  it("--all builds the incomplete specs in order and advances after each one", async () => {
    const root = repoWith({ "b-spec": tasksMd(1), "10-late": tasksMd(1), "2-early": tasksMd(1), finished: tasksMd(1, 1) });
    const targets = resolveTargets(root, { all: true });
    expect(targets.map((t) => t.name)).toEqual(["2-early", "10-late", "b-spec"]);
    const { deps: d } = deps(root, worker(root));
    const results = await runBuild(d, targets, { maxIterations: 10, stagnationLimit: 3 });
    expect(results.map((r) => [r.target.name, r.end.kind])).toEqual([["2-early", "done"], ["10-late", "done"], ["b-spec", "done"]]);
    const log = execFileSync("git", ["log", "--format=%s"], { cwd: root, encoding: "utf8" }).trim().split("\n");
    expect(log.slice(0, 3)).toEqual(["feat(b-spec): implementation complete", "feat(10-late): implementation complete", "feat(2-early): implementation complete"]);
  });

  it("notifies on stagnation, keeps the state, and resumes a paused loop with its counters", async () => {
    const root = repoWith({ demo: tasksMd(2) });
    const notified: NotifyEvent[] = [];
    const { deps: d } = deps(root, () => "nothing to do", notified);
    const [stalled] = await runBuild(d, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 2 });
    expect(stalled?.end).toMatchObject({ kind: "stop", reason: "stagnation" });
    expect(notified.map((e) => e.kind)).toEqual(["human_needed"]);
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toMatchObject({ status: "stagnated", iteration: 2 });

    const paused = deps(root, () => {
      // The user writes in the builder's session during the turn.
      const builder = paused.builders[0];
      if (builder) builder.extraUserMessages = 1;
      return "hello";
    });
    const run = runBuild(paused.deps, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 5 });
    const [p] = await run;
    expect(p?.end.kind).toBe("pause");
    const state = await new BuildStore(root).read({ kind: "spec", name: "demo" });
    expect(state).toMatchObject({ status: "paused", iteration: 1 });

    const resumed = deps(root, worker(root));
    const [r] = await runBuild(resumed.deps, [{ kind: "spec", name: "demo" }], { maxIterations: 10, stagnationLimit: 3 });
    expect(r?.end).toMatchObject({ kind: "done", iterations: 4 });
  });

  it("leaves an OpenSpec change in place when the openspec CLI is missing", async () => {
    const root = tempRepoDir();
    expect(await archiveTarget({ kind: "openspec", name: "add-auth" }, { repoRoot: root, now: () => NOW, openspec: async () => undefined })).toEqual({
      note: "The openspec CLI is not installed, so the change was left in openspec/changes/add-auth: archive it with `openspec archive add-auth`.",
    });
  });
});
