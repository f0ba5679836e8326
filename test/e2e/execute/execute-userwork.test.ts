import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";
import { execModel } from "../execute/exec-model.ts";
import { specFiles, tasksMd } from "../execute/kinds.ts";

/*
 * /otto-spec execute in a working tree holding the user's uncommitted work: the phase commit holds
 * only what the run changed (the task's file and the spec's task statuses); the user's edited
 * README.md and untracked .env stay uncommitted, byte for byte.
 */

const SLUG = "greeting";
const USER_EDIT = "# test project\n\nThe user's unfinished notes.\n";
const DOTENV = "API_TOKEN=the-users-own-secret\n";

describe("/otto-spec execute in a dirty tree", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("commits only the session's files; the user's edits remain uncommitted", async () => {
    const ws = await e2e.workspace({
      files: specFiles(tasksMd([["task-001", "pending", 1, [], "Write the greeting"]])),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: { task_briefing: false, external_assumptions: false, domain_hardening: false, docs_alignment: false },
      },
    });
    fs.writeFileSync(path.join(ws.project, "README.md"), USER_EDIT);
    fs.writeFileSync(path.join(ws.project, ".env"), DOTENV);
    e2e.model.script(
      ...slashCommand("otto_spec"),
      execModel(ws.project, () => undefined),
    );

    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "execute"], { timeoutMs: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);

    const log = await ws.repo.log();
    expect(log[0]?.subject).toBe(`otto(${SLUG}): phase 1: task-001`);
    const files = (await ws.repo.git(["show", "--name-only", "--format=", "HEAD"])).split("\n").sort();
    expect(files).toContain("src/task-001.txt");
    expect(files).toContain(`.otto/specs/${SLUG}/tasks.md`);
    expect(files).not.toContain("README.md");
    expect(files).not.toContain(".env");
    expect(fs.readFileSync(path.join(ws.project, "README.md"), "utf8")).toBe(USER_EDIT);
    expect(fs.readFileSync(path.join(ws.project, ".env"), "utf8")).toBe(DOTENV);
    const status = (await ws.repo.git(["status", "--porcelain"])).split("\n").map((l) => l.trim());
    expect(status).toContain("M README.md");
    expect(status).toContain("?? .env");
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
