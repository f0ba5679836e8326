import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { assertOttoPathSafe, processAlive, withFileLock, writeFileAtomic } from "../core/index.ts";
import { UsageRecord } from "../cost/index.ts";
import { TreeSnapshot } from "../workspace/index.ts";

/** What is being built: an otto spec, or an OpenSpec change. */
export const BuildTarget = z.object({ kind: z.enum(["spec", "openspec"]), name: z.string().min(1) });
export type BuildTarget = z.infer<typeof BuildTarget>;

export const BUILD_STATUSES = ["running", "paused", "stopped", "stagnated", "max_iterations", "done", "failed"] as const;

/** What one turn of the loop used; `task`: the task it was prompted to work (none in the verify phase). */
export const IterationSpend = z.object({ iteration: z.number().int().min(1), task: z.string().optional(), usage: UsageRecord });
export type IterationSpend = z.infer<typeof IterationSpend>;

/** One check's result (src/workspace/checks.ts CheckResult), its output's end kept (verdict.ts keptResult). */
export const StoredCheck = z.object({
  command: z.string(),
  exitCode: z.number().int(),
  passed: z.boolean(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  output: z.string(),
});

/** A failing check of the build's verdict (src/workspace/run-verdict.ts): `before`, it failed before the build too. */
export const FailingCheck = z.object({ command: z.string(), ended: z.string(), before: z.boolean() });

/** `.otto/build/<key>.json`: enough to show status and to resume a stopped loop. */
export const BuildState = z.object({
  target: BuildTarget,
  status: z.enum(BUILD_STATUSES),
  phase: z.enum(["build", "verify"]),
  iteration: z.number().int().min(0),
  maxIterations: z.number().int().min(1),
  stagnantTurns: z.number().int().min(0),
  /** The builder session of the current (or last) loop. */
  sessionID: z.string().optional(),
  /** The tree before the loop's first turn (src/workspace/snapshot.ts): the final commit takes only what changed since. */
  baseline: TreeSnapshot.optional(),
  /**
   * spec.verify on the tree as the loop found it, before its first turn: a check failing there
   * fails the build's work only when it gets worse. A resumed loop keeps its first one.
   */
  checkBaseline: z.array(StoredCheck).optional(),
  /** The OpenCode process's pid while running, so status can tell a dead loop from a live one. */
  pid: z.number().int().optional(),
  progress: z.object({ done: z.number().int(), total: z.number().int() }).optional(),
  /**
   * A done loop's verdict: verified when checks ran on its final tree and each passed. False: no
   * check was found, or some failed (`failing`, each saying whether it failed before the build too).
   */
  verified: z.boolean().optional(),
  failing: z.array(FailingCheck).optional(),
  /** Why the loop ended, in words. */
  note: z.string().optional(),
  /** What the loop's model calls used, over every run of it (a resumed loop adds to it). */
  spend: UsageRecord.optional(),
  /** The same per turn. */
  iterations: z.array(IterationSpend).optional(),
  /** The budget of the current (or last) run: only that run's own spend counts toward it. */
  budget: z.object({ usd: z.number().optional(), tokens: z.number().optional() }).optional(),
  updatedAt: z.string(),
});
export type BuildState = z.infer<typeof BuildState>;

/** A `running` state whose process is gone (killed, crashed): a stopped loop, whatever the file says. */
export function crashed(state: BuildState): boolean {
  return state.status === "running" && state.pid !== undefined && !processAlive(state.pid);
}

/** The file name of a target's state: `demo` for a spec, `openspec-add-auth` for a change. */
export function stateKey(target: BuildTarget): string {
  return target.kind === "spec" ? target.name : `openspec-${target.name}`;
}

export function buildDir(repoRoot: string): string {
  return path.join(repoRoot, ".otto", "build");
}

/** The loop's state files; none of them are ever committed (the folder ignores itself). */
export class BuildStore {
  constructor(readonly repoRoot: string) {}

  file(target: BuildTarget): string {
    return path.join(buildDir(this.repoRoot), `${stateKey(target)}.json`);
  }

  /** What build-lock.ts locks: proper-lockfile makes `.otto/build/<key>.lock` beside the state. */
  lockPath(target: BuildTarget): string {
    return path.join(buildDir(this.repoRoot), stateKey(target));
  }

  stopFile(target: BuildTarget): string {
    return path.join(buildDir(this.repoRoot), `${stateKey(target)}.stop`);
  }

  async read(target: BuildTarget): Promise<BuildState | undefined> {
    return readState(this.file(target));
  }

  async write(state: BuildState): Promise<void> {
    await this.#ensureDir();
    const file = this.file(state.target);
    await withFileLock(file, () => writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, 0o644));
  }

  /** Every state file, newest first. */
  async list(): Promise<BuildState[]> {
    let names: string[];
    try {
      names = await fs.readdir(buildDir(this.repoRoot));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const states = await Promise.all(names.filter((n) => n.endsWith(".json")).map((n) => readState(path.join(buildDir(this.repoRoot), n))));
    return states.filter((s): s is BuildState => s !== undefined).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  async requestStop(target: BuildTarget): Promise<void> {
    await this.#ensureDir();
    await assertOttoPathSafe(this.stopFile(target));
    await fs.writeFile(this.stopFile(target), `${new Date().toISOString()}\n`);
  }

  async stopRequested(target: BuildTarget): Promise<boolean> {
    return fs.access(this.stopFile(target)).then(
      () => true,
      () => false,
    );
  }

  async clearStop(target: BuildTarget): Promise<void> {
    await assertOttoPathSafe(this.stopFile(target));
    await fs.rm(this.stopFile(target), { force: true });
  }

  async #ensureDir(): Promise<void> {
    const dir = buildDir(this.repoRoot);
    await assertOttoPathSafe(path.join(dir, ".gitignore"));
    await fs.mkdir(dir, { recursive: true });
    // Loop state is per machine: `git add -A` of the final commit must not pick it up.
    await fs.writeFile(path.join(dir, ".gitignore"), "*\n", { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
}

async function readState(file: string): Promise<BuildState | undefined> {
  try {
    const parsed = BuildState.safeParse(JSON.parse(await fs.readFile(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Missing or half-written by a killed process: no state (a new loop starts).
    return undefined;
  }
}
