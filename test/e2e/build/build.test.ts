import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pathWithout, slashCommand, useE2E } from "../../support/index.ts";
import { buildPrompts, builderModel, oneTaskPerTurn, tasksMd } from "../build/builder-model.ts";

const SPEC = ".otto/specs/demo";
const OTTO = { models: { primary: "mock/m1", secondary: "mock/m2" } };

function state(project: string, key: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(project, ".otto/build", `${key}.json`), "utf8")) as Record<string, unknown>;
}

describe("/otto-build (one served OpenCode for the file)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("does not accept VERIFIED while spec.verify fails: the failing output goes back, the fix passes", async () => {
    // The check passes before the build (a failure there would be the project's: build-verdict.test.ts); the task breaks it.
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", "fixed.txt": "ok\n", [`${SPEC}/tasks.md`]: tasksMd(["Only"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["grep -qx ok fixed.txt || (echo 'fixed.txt must say ok'; exit 3)"] } },
    });
    const work = oneTaskPerTurn(ws.project);
    let fixes = 0;
    e2e.model.script(
      ...slashCommand("otto_build"),
      builderModel(ws.project, (kind, req) => {
        if (kind === "start") {
          const plan = work(kind, req);
          return { writes: { ...plan.writes, "fixed.txt": "gone\n" }, say: "Done.\nVERIFIED" };
        }
        if (kind === "fix" && req.lastRole === "user") fixes++;
        if (kind === "fix")
          return fixes === 1 ? { say: "It is fine.\nVERIFIED" } : { writes: { "fixed.txt": "ok\n" }, say: "Restored fixed.txt." };
        return { say: "VERIFIED" };
      }),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 120_000 });
    expect(run.stdout, run.stderr).toContain("done and verified in 4 turn(s)");
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "fix", "fix", "verify"]);
    const fix = e2e.model.requests.find((r) => r.lastRole === "user" && r.lastUser.includes("checks failed"));
    expect(fix?.lastUser).toContain("fixed.txt must say ok");
    expect((await ws.repo.log()).map((c) => c.subject)[0]).toBe("feat(demo): implementation complete");
  });

  it("stops after K turns in which nothing changed, and at max iterations", async () => {
    const ws = await e2e.workspace({ files: { "README.md": "# demo\n", [`${SPEC}/tasks.md`]: tasksMd(["One", "Two"]) }, ottoConfig: OTTO });
    e2e.model.script(
      ...slashCommand("otto_build"),
      builderModel(ws.project, () => ({ say: "I am thinking about it." })),
    );
    const stalled = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--stagnation=2"], { timeoutMs: 120_000 });
    expect(stalled.stdout, stalled.stderr).toContain("stopped: nothing changed");
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "continue"]);
    expect(state(ws.project, "demo")).toMatchObject({ status: "stagnated", iteration: 2 });

    let n = 0;
    e2e.model.script(
      ...slashCommand("otto_build"),
      builderModel(ws.project, (_kind, req) =>
        req.lastRole === "user" ? { writes: { [`scratch-${++n}.txt`]: "x\n" }, say: "busy" } : { say: "busy" },
      ),
    );
    const capped = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--max-iterations=2"], { timeoutMs: 120_000 });
    expect(capped.stdout, capped.stderr).toContain("max iterations (2) reached");
    expect(state(ws.project, "demo")).toMatchObject({ status: "max_iterations", iteration: 2 });
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual(["Initial commit"]);
  });
});

describe("/otto-build headless (an opencode run process of its own)", () => {
  const e2e = useE2E();

  it("works a three-task spec one task per turn, verifies, commits once and archives the spec", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", [`${SPEC}/tasks.md`]: tasksMd(["First", "Second", "Third"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["test -f src/done-3.txt"] } },
    });
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 120_000 });
    expect(run.stdout, run.stderr).toContain("done and verified in 4 turn(s)");

    // The first prompt and two continuations (one task each), then one verify turn.
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "continue", "continue", "verify"]);
    const continuations = e2e.model.requests
      .filter((r) => r.lastRole === "user" && r.lastUser.startsWith("Otto build: Tasks remaining"))
      .map((r) => r.lastUser.split("\n")[0]);
    expect(continuations).toEqual([
      "Otto build: Tasks remaining 2/3; next: task-002 Second.",
      "Otto build: Tasks remaining 1/3; next: task-003 Third.",
    ]);

    const subjects = (await ws.repo.log()).map((c) => c.subject);
    expect(subjects).toEqual(["feat(demo): implementation complete", "Initial commit"]);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    const archive = fs.readdirSync(path.join(ws.project, ".otto/specs/archive"));
    expect(archive).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2}-demo$/)]);
    expect(fs.existsSync(path.join(ws.project, SPEC))).toBe(false);
    expect(state(ws.project, "demo")).toMatchObject({ status: "done", iteration: 4 });
    expect(e2e.model.unmatched()).toEqual([]);
  });
});

describe("/otto-build on a machine without bubblewrap (an opencode run process of its own)", () => {
  const e2e = useE2E();

  it('under the default "auto" the loop runs, and its summary says its commands had no sandbox, why, and how to get one', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "otto-nobwrap-"));
    try {
      const ws = await e2e.workspace({
        files: { "README.md": "# demo\n", [`${SPEC}/tasks.md`]: tasksMd(["Only"]) },
        ottoConfig: OTTO,
        env: { PATH: pathWithout(scratch, ["bwrap"]) },
      });
      e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
      const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 120_000 });
      expect(run.stdout, run.stderr).toContain("done");
      expect(run.stdout).toContain(
        "Note: no sandbox (bubblewrap (bwrap) is not installed): the sessions' shell commands and the checks ran with otto's environment and command guards alone, as your user.",
      );
      expect(run.stdout).toContain("apt-get install bubblewrap");
      expect((await ws.repo.log()).map((c) => c.subject)[0]).toBe("feat(demo): implementation complete");
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
