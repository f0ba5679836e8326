import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { useForges } from "../pr/forges.ts";
import { buildPrompts, builderModel, completeFirst, oneTaskPerTurn, tasksFileOf, tasksMd } from "../build/builder-model.ts";

const SPEC = ".otto/specs/demo";
const OTTO = { models: { primary: "mock/m1", secondary: "mock/m2" } };
/** The project's test script, failing before the build starts: a legacy test the spec does not touch. */
const LEGACY_FAILS = "echo 'FAIL test/legacy.test.js > parses dates'\necho ' Tests  1 failed | 4 passed (5)'\nexit 1\n";

interface State {
  status: string;
  iteration: number;
  verified?: boolean;
  failing?: Array<{ command: string; ended: string; before: boolean }>;
  checkBaseline?: Array<{ command: string; passed: boolean }>;
}

function state(project: string): State {
  return JSON.parse(fs.readFileSync(path.join(project, ".otto/build/demo.json"), "utf8")) as State;
}

describe("/otto-build: the build's verdict (verified, unverified) against the baseline of its checks", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("a check that already failed before the build sends no fix turn: the build ends done but unverified, and says so first", async () => {
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", "test.sh": LEGACY_FAILS, [`${SPEC}/tasks.md`]: tasksMd(["Only"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["sh test.sh"] } },
    });
    e2e.model.script(...slashCommand("otto_build"), ...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    // The task's turn, one confirm turn, and no fix loop: the failure is not the build's.
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "verify"]);
    const confirm = e2e.model.requests.find((r) => r.lastRole === "user" && r.lastUser.includes("says exactly `VERIFIED`"));
    expect(confirm?.lastUser).toContain("sh test.sh: failed before the build too (1 failure), not worse (1 now)");
    expect(confirm?.lastUser).not.toContain("otto's checks pass:");

    // The summary's first line says unverified and why; the verdict and the next step follow.
    const summary = run.stdout.slice(run.stdout.indexOf("## otto build:"));
    expect(summary.split("\n")[0]).toMatch(/^## otto build: spent .* — unverified: sh test\.sh fails \(it failed before the build too\)$/);
    expect(summary).toContain("done, unverified: sh test.sh fails (it failed before the build too), after 2 turn(s)");
    expect(summary).toContain("Baseline: sh test.sh: exit 1 (pre-existing, 1 failure)");
    expect(summary).toContain("Verdict: unverified: `sh test.sh` exit 1 (it failed before the run too)");
    expect(summary).toMatch(
      /Next step: every task is done and committed, but the build is unverified: sh test\.sh fails at its end .*open no pull request until it passes/,
    );
    expect(summary).not.toContain("done and verified");

    expect(state(ws.project)).toMatchObject({
      status: "done",
      iteration: 2,
      verified: false,
      failing: [{ command: "sh test.sh", ended: "exit 1", before: true }],
      checkBaseline: [{ command: "sh test.sh", passed: false }],
    });
    const log = await ws.repo.git(["log", "-1", "--format=%s%n%b"]);
    expect(log).toContain("feat(demo): implementation complete");
    expect(log).toContain("verify: sh test.sh: exit 1, it failed before the build too (unverified).");

    const status = await e2e.run(ws, ["run", "--command", "otto-build", "--", "status"], { timeoutMs: 60_000 });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain("| spec demo | done, unverified: sh test.sh fails (it failed before the build too) |");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a check the build breaks still gets a fix turn, and once it passes the build is verified", async () => {
    // Passes before the build; the builder's task breaks it, its fix turn repairs it.
    const check = "grep -qx ok config.txt || (echo 'config.txt must say ok'; exit 2)";
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", "config.txt": "ok\n", [`${SPEC}/tasks.md`]: tasksMd(["Only"]) },
      ottoConfig: { ...OTTO, spec: { verify: [check] } },
    });
    e2e.model.script(
      ...slashCommand("otto_build"),
      builderModel(ws.project, (kind, req) => {
        if (kind === "start") {
          const rel = tasksFileOf(req.lastUser) ?? "";
          return {
            writes: { [rel]: completeFirst(fs.readFileSync(path.join(ws.project, rel), "utf8")), "config.txt": "broken\n" },
            say: "Finished the task.",
          };
        }
        if (kind === "fix") return { writes: { "config.txt": "ok\n" }, say: "Restored config.txt." };
        return { say: "Checked.\nVERIFIED" };
      }),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "fix", "verify"]);
    const fix = e2e.model.requests.find((r) => r.lastRole === "user" && r.lastUser.includes("checks failed"));
    expect(fix?.lastUser).toContain("config.txt must say ok");
    const summary = run.stdout.slice(run.stdout.indexOf("## otto build:"));
    expect(summary.split("\n")[0]).not.toContain("unverified");
    expect(summary).toContain("done and verified in 3 turn(s)");
    expect(summary).toContain(`Verdict: verified (${check} passed at the end)`);
    expect(state(ws.project)).toMatchObject({ status: "done", verified: true, failing: [], checkBaseline: [{ passed: true }] });
    expect(ws.readFile("config.txt")).toBe("ok\n");
  });
});

describe("/otto-build --pr: an unverified build opens no pull request", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("says the build is unverified and why instead of pushing and opening the PR", async () => {
    const f = await forges();
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", "test.sh": LEGACY_FAILS, [`${SPEC}/tasks.md`]: tasksMd(["Only"]) },
      ottoConfig: { ...OTTO, spec: { verify: ["sh test.sh"] } },
      userOttoConfig: f.ottoConfig(),
      env: f.env,
      remote: true,
    });
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, "https://github.com/octo/app.git"]);
    await ws.repo.git(["remote", "set-url", "origin", "https://github.com/octo/app.git"]);
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo", "--pr"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(buildPrompts(e2e.model.requests)).toEqual(["start", "verify"]);
    expect(run.stdout).toContain("Not opened: the run is unverified (sh test.sh fails at its end)");
    expect(f.gh.state.prs).toHaveLength(0);
    // Committed on the build's branch, but nothing pushed.
    expect((await ws.repo.log()).map((c) => c.subject)[0]).toBe("feat(demo): implementation complete");
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("otto/demo");
    expect(await ws.repo.gitRemote(["branch", "--list", "otto/demo"])).toBe("");
  });
});
