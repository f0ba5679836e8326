import fs from "node:fs";
import path from "node:path";
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { slashCommand, useE2E } from "../../support/index.ts";

/*
 * `/otto-pr ci init` through real OpenCode (`opencode run --command` done through one served
 * OpenCode, the scripted model only relaying the command): the files land at the repository's top
 * level, uncommitted, the output names the secrets of the models otto is configured with, and an
 * existing file is never replaced without --force. Its exit code as a process of its own is
 * test/e2e/newcomer/first-hour.test.ts's.
 */

const CI_WORKFLOW = [
  "name: Tests",
  "on: [pull_request]",
  "jobs:",
  "  test:",
  "    runs-on: ubuntu-latest",
  "    steps:",
  "      - run: npm test",
  "",
].join("\n");
const AZURE_PIPELINE = ["trigger: none", "pr: [main]", "jobs:", "- job: Compile", "  steps:", "  - script: make", ""].join("\n");
const MODELS = { models: { primary: "anthropic/claude-sonnet-4-5", secondary: "openai/gpt-5" } };

async function parserErrors(content: string): Promise<string[]> {
  const result = parseWorkflow({ name: ".github/workflows/otto.yml", content }, new NoOperationTraceWriter());
  if (result.value) await convertWorkflowTemplate(result.context, result.value);
  return result.context.errors.getErrors().map((e) => e.message);
}

describe("/otto-pr ci init (opencode run --command)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("github: writes a valid workflow for the repository's CI, names the secrets, refuses to overwrite without --force", async () => {
    const ws = await e2e.workspace({ ottoConfig: MODELS, files: { "README.md": "# demo\n", ".github/workflows/ci.yml": CI_WORKFLOW } });
    const head = await ws.repo.git(["rev-parse", "HEAD"]);
    const file = path.join(ws.project, ".github/workflows/otto.yml");
    await ws.repo.git(["remote", "add", "origin", "https://github.com/acme/demo.git"]);

    e2e.model.script(...slashCommand("otto_pr"));
    const first = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci", "init", "github"]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain("Wrote .github/workflows/otto.yml (not committed");
    expect(first.stdout).toContain("`ANTHROPIC_API_KEY`: anthropic");
    expect(first.stdout).toContain("`OPENAI_API_KEY`: openai");
    expect(first.stdout).toContain("`OTTO_APP_ID`");
    expect(first.stdout).toContain("`OTTO_GITHUB_TOKEN`, a fine-grained token of a machine account");
    expect(first.stdout).toContain("pushes made with the default GITHUB_TOKEN start no workflow run");
    expect(first.stdout).toContain('package-ecosystem: "github-actions"');
    // origin is on GitHub: nothing to say about it.
    expect(first.stdout).not.toContain("origin remote");

    const written = fs.readFileSync(file, "utf8");
    expect(await parserErrors(written)).toEqual([]);
    const doc = parse(written) as {
      on: { workflow_run: { workflows: string[] } };
      jobs: { otto: { permissions: unknown; steps: Array<{ env?: Record<string, string> }> } };
    };
    expect(doc.on.workflow_run.workflows).toEqual(["Tests"]);
    expect(doc.jobs.otto.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      checks: "read",
      statuses: "read",
      // pr.flakes.rerun is off (the default): logs are read, nothing re-run.
      actions: "read",
    });
    expect(Object.keys(doc.jobs.otto.steps.at(-1)?.env ?? {})).toEqual([
      "GITHUB_TOKEN",
      "OTTO_GITHUB_BOT_LOGIN",
      "OTTO_GITHUB_TOKEN_KIND",
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
    ]);
    // Written, not committed: HEAD is where it was and the file is untracked.
    expect(await ws.repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(await ws.repo.git(["status", "--porcelain", "--untracked-files=all"])).toContain("?? .github/workflows/otto.yml");

    fs.appendFileSync(file, "# my edit\n");
    e2e.model.script(...slashCommand("otto_pr"));
    const again = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci", "init", "github"]);
    // A refusal: headless, it exits non-zero.
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stdout).toContain(".github/workflows/otto.yml exists already; otto did not touch it.");
    expect(again.stdout).toContain("--force");
    expect(fs.readFileSync(file, "utf8")).toBe(`${written}# my edit\n`);

    // The repository's config turns re-runs on: the job asks for actions: write.
    fs.writeFileSync(path.join(ws.project, ".otto/otto.jsonc"), JSON.stringify({ ...MODELS, pr: { flakes: { rerun: true } } }));
    e2e.model.script(...slashCommand("otto_pr"));
    const forced = await e2e.run(ws, [
      "run",
      "--command",
      "otto-pr",
      "--",
      "ci",
      "init",
      "github",
      "--force",
      "--workflow",
      "Build",
      "--workflow",
      "Lint",
    ]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout).toContain("Wrote .github/workflows/otto.yml");
    const replaced = fs.readFileSync(file, "utf8");
    expect(replaced).not.toContain("# my edit");
    expect((parse(replaced) as typeof doc).on.workflow_run.workflows).toEqual(["Build", "Lint"]);
    expect((parse(replaced) as { jobs: { otto: { permissions: { actions: string } } } }).jobs.otto.permissions.actions).toBe("write");
    expect(forced.stdout).toContain("actions: write because pr.flakes.rerun is on");
    expect(e2e.model.unmatched()).toEqual([]);
    // Three OpenCode runs: on a loaded 2-core machine each can take a minute.
  }, 420_000);

  it("azure: from a subfolder, writes the job template and the comment pipeline at the top level, after the detected build job", async () => {
    const ws = await e2e.workspace({
      ottoConfig: MODELS,
      files: { "README.md": "# demo\n", "azure-pipelines.yml": AZURE_PIPELINE, "src/app.js": "export {};\n" },
    });
    e2e.model.script(...slashCommand("otto_pr"));
    const run = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci", "init", "azure"], { cwd: path.join(ws.project, "src") });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Wrote azure-pipelines.otto-job.yml and azure-pipelines.otto.yml (not committed");
    expect(run.stdout).toContain("dependsOn: [Compile]");
    expect(run.stdout).toContain("`ANTHROPIC_API_KEY`: anthropic");
    expect(run.stdout).toContain("Contribute and Contribute to pull requests: Allow");
    expect(run.stdout).toContain('"Pull request commented on"');
    // No origin: said, not guessed.
    expect(run.stdout).toContain("This checkout has no origin remote, so otto cannot tell whether the repository is on Azure DevOps");
    // The incoming webhook's name: drawn at random, printed, in no file.
    const hook = /webhook name `(otto-[0-9a-f]{20})`/.exec(run.stdout)?.[1];
    expect(hook).toBeDefined();
    expect(fs.existsSync(path.join(ws.project, "src/azure-pipelines.otto-job.yml"))).toBe(false);
    const job = parse(fs.readFileSync(path.join(ws.project, "azure-pipelines.otto-job.yml"), "utf8")) as {
      parameters: Array<{ name: string; default: unknown }>;
      jobs: Array<{ condition: string }>;
    };
    expect(job.parameters[0]).toMatchObject({ name: "dependsOn", default: ["Compile"] });
    expect(job.jobs[0]?.condition).toContain("failed()");
    const comments = parse(fs.readFileSync(path.join(ws.project, "azure-pipelines.otto.yml"), "utf8")) as {
      resources: { webhooks: unknown[] };
    };
    expect(comments.resources.webhooks).toHaveLength(1);
    for (const name of ["azure-pipelines.otto-job.yml", "azure-pipelines.otto.yml"])
      expect(fs.readFileSync(path.join(ws.project, name), "utf8")).not.toContain(hook ?? "<none>");

    const jobFile = path.join(ws.project, "azure-pipelines.otto-job.yml");
    fs.appendFileSync(jobFile, "# my edit\n");
    const edited = fs.readFileSync(jobFile, "utf8");
    e2e.model.script(...slashCommand("otto_pr"));
    const again = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci", "init", "azure"]);
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stdout).toContain("azure-pipelines.otto-job.yml and azure-pipelines.otto.yml exist already");
    expect(fs.readFileSync(jobFile, "utf8")).toBe(edited);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 300_000);
  it("no models configured and a model served on this machine: refuses, names the roles and the command, writes nothing", async () => {
    // The scripted model the command runs with is served on 127.0.0.1: a runner could never reach it.
    const ws = await e2e.workspace({ files: { "README.md": "# demo\n", ".github/workflows/ci.yml": CI_WORKFLOW } });
    await ws.repo.git(["remote", "add", "origin", "https://github.com/acme/demo.git"]);
    e2e.model.script(...slashCommand("otto_pr"));
    const run = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci", "init", "github"]);
    const out = run.stdout + run.stderr;
    expect(out).toContain("served on this machine");
    expect(out).toContain("127.0.0.1");
    expect(out).toContain("/otto-config set models.primary");
    expect(out).toContain("/otto-pr ci init");
    expect(out).not.toMatch(/MOCK_API_KEY/);
    expect(fs.existsSync(path.join(ws.project, ".github/workflows/otto.yml"))).toBe(false);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 180_000);
});
