import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, useE2E } from "../../support/index.ts";
import { execModel } from "../execute/exec-model.ts";
import { ottoSpec } from "../execute/drive.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";
import { useForges } from "../pr/forges.ts";
import { builderModel, oneTaskPerTurn, tasksMd as buildTasksMd } from "../build/builder-model.ts";

const SLUG = "greeting";
const QUIET = {
  task_briefing: false,
  external_assumptions: false,
  domain_hardening: false,
  review_gate: false,
  docs_alignment: false,
  verify: ["test -f src/task-001.txt"],
};

/*
 * Runs never commit onto the default branch: `/otto-spec execute` started on main makes the spec's
 * branch and commits there, the user's uncommitted work left as it was; `--here` commits where it
 * stands; `--pr` opens the spec's PR on the forge when the run is complete.
 */
describe("/otto-spec execute and the default branch, through opencode serve", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("started on main it commits on otto/<slug>, leaves the user's edit uncommitted, and --pr opens and tracks the PR; a second spec with --here commits on main", async () => {
    const f = await forges();
    const ws = await e2e.workspace({
      files: {
        ...specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]]), SLUG),
        ...specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]]), "here"),
      },
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" }, spec: QUIET },
      userOttoConfig: f.ottoConfig(),
      env: f.env,
      remote: true,
    });
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, "https://github.com/octo/app.git"]);
    await ws.repo.git(["remote", "set-url", "origin", "https://github.com/octo/app.git"]);
    // The user's own work in progress, uncommitted, in a file the run does not touch.
    fs.writeFileSync(path.join(ws.project, "README.md"), "# mine, not done yet\n");
    const mainBefore = await ws.repo.git(["rev-parse", "main"]);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      { ...slashCommand("otto_spec")[0]!, times: Infinity },
      { ...slashCommand("otto_spec")[1]!, times: Infinity },
      execModel(ws.project),
    );

    const run = await ottoSpec(client, `execute --spec ${SLUG} --pr`);
    expect(run.output).toContain(`Created the branch otto/${SLUG} from main (the default branch): the run commits there.`);
    expect(await ws.repo.git(["branch", "--show-current"])).toBe(`otto/${SLUG}`);
    expect(await ws.repo.git(["rev-parse", "main"])).toBe(mainBefore);
    expect(await ws.repo.git(["log", "--format=%s", `main..otto/${SLUG}`])).toMatch(/greeting/);
    // The user's edit is still theirs: uncommitted, unchanged.
    expect(fs.readFileSync(path.join(ws.project, "README.md"), "utf8")).toBe("# mine, not done yet\n");
    expect(await ws.repo.git(["status", "--porcelain", "--", "README.md"])).toBe("M README.md");
    expect(await ws.repo.git(["log", "--format=%H", "-1", "--", "README.md", `otto/${SLUG}`])).toBe(
      await ws.repo.git(["log", "--format=%H", "-1", "--", "README.md", "main"]),
    );

    // --pr: the branch was pushed and the PR opened from the spec's files, and tracked.
    expect(run.output).toContain("## Pull request");
    expect(run.output).toContain("Opened PR #1 in octo/app");
    expect(f.gh.state.prs).toHaveLength(1);
    expect(f.gh.state.prs[0]?.head.ref).toBe(`otto/${SLUG}`);
    expect(f.gh.state.prs[0]?.body).toContain("- [x] task-001: Write the greeting (commit ");
    expect(await ws.repo.gitRemote(["rev-parse", `refs/heads/otto/${SLUG}`])).toBe(await ws.repo.git(["rev-parse", `otto/${SLUG}`]));
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto", "prs", "github-octo-app-1.md"))).toBe(true);

    // --here on main: the run commits where it stands.
    // tasks.md holds the last commit's sha, committed with the next commit (docs/execute.md).
    await ws.repo.git(["commit", "-qm", "Record the commit", "--", `.otto/specs/${SLUG}/tasks.md`]);
    await ws.repo.git(["switch", "-q", "main"]);
    const here = await ottoSpec(client, "execute --spec here --here");
    expect(here.output).not.toContain("Created the branch");
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("main");
    expect(await ws.repo.git(["log", "--format=%s", `${mainBefore}..main`])).toMatch(/here/);
    expect(f.gh.state.prs).toHaveLength(1);
  });
});

describe("/otto-build --pr, headless", () => {
  const e2e = useE2E();
  const forges = useForges();

  it("started on main builds on otto/demo, archives the spec and opens its PR described from the archived files", async () => {
    const f = await forges();
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", ".otto/specs/demo/tasks.md": buildTasksMd(["Only"]) },
      ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" }, spec: { verify: ["test -f src/done-1.txt"] } },
      userOttoConfig: f.ottoConfig(),
      env: f.env,
      remote: true,
    });
    await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, "https://github.com/octo/app.git"]);
    await ws.repo.git(["remote", "set-url", "origin", "https://github.com/octo/app.git"]);
    e2e.model.script(...slashCommand("otto_build"), builderModel(ws.project, oneTaskPerTurn(ws.project)));
    const run = await e2e.run(ws, ["run", "--command", "otto-build", "--", "--spec", "demo", "--pr"], { timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("otto/demo");
    expect(f.gh.state.prs).toHaveLength(1);
    expect(f.gh.state.prs[0]).toMatchObject({ title: "demo", head: { ref: "otto/demo" } });
    expect(f.gh.state.prs[0]?.body).toContain("## Tasks (1 of 1 completed)");
    expect(await ws.repo.gitRemote(["rev-parse", "refs/heads/otto/demo"])).toBe(await ws.repo.git(["rev-parse", "otto/demo"]));
  });
});
