/**
 * npm run demo: otto's main job, end to end, in a scratch git repo under real OpenCode.
 *
 * Without OTTO_DEMO_MODEL the model is a scripted local server that plays a short session (the demo
 * says so). With OTTO_DEMO_MODEL=provider/model, OpenCode uses that real model with your own
 * OpenCode configuration and credentials (your HOME is used; only the scratch repo is new).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import {
  createWorkspace,
  OPENCODE_BIN,
  REPO_ROOT,
  runOpencode,
  slashCommand,
  startModelServer,
  type ModelServer,
  type Workspace,
} from "../test/support/index.ts";
import { demoScript, DEMO_FILES, DEMO_STEPS, type DemoStep } from "./demo-steps.ts";

const say = (line = "") => process.stdout.write(`${line}\n`);

interface Runner {
  describe: string;
  project: string;
  run(step: DemoStep): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

async function scriptedRunner(): Promise<Runner> {
  const model: ModelServer = await startModelServer();
  const ws: Workspace = await createWorkspace({
    model,
    files: DEMO_FILES,
    ottoConfig: { models: { primary: "mock/m1", secondary: "mock/m2" } },
  });
  return {
    describe:
      "a scripted local model (no network, no credentials): it plays a short, pre-written session. Set OTTO_DEMO_MODEL=provider/model to use a real model.",
    project: ws.project,
    async run(step) {
      // Each step plays its own script: an earlier step's answers (the spec model's reviews) would
      // otherwise also answer this step's prompts of the same kind, in their own format.
      model.reset();
      model.script(...slashCommand(step.tool), ...demoScript(step, ws.project));
      const result = await runOpencode(ws, ["run", "--command", step.command, "--", ...step.args], { timeoutMs: 300_000 });
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
    async close() {
      await ws.cleanup();
      await model.close();
    },
  };
}

async function realRunner(modelName: string): Promise<Runner> {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "otto-demo-"));
  for (const [file, content] of Object.entries(DEMO_FILES)) {
    fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    fs.writeFileSync(path.join(project, file), content);
  }
  const secondary = process.env.OTTO_DEMO_SECONDARY ?? modelName;
  fs.mkdirSync(path.join(project, ".otto"), { recursive: true });
  fs.writeFileSync(path.join(project, ".otto", "otto.jsonc"), JSON.stringify({ models: { primary: modelName, secondary } }, null, 2));
  fs.writeFileSync(path.join(project, "opencode.json"), JSON.stringify({ plugin: [`file://${REPO_ROOT}`], model: modelName }, null, 2));
  const git = (args: string[]) => execa("git", args, { cwd: project });
  await git(["init", "-q", "-b", "main"]);
  await git(["add", "-A"]);
  await git(["-c", "user.name=otto demo", "-c", "user.email=demo@otto.invalid", "commit", "-qm", "Initial commit"]);
  return {
    describe: `the real model ${modelName} (secondary: ${secondary}) through your own OpenCode configuration.`,
    project,
    async run(step) {
      const result = await execa(OPENCODE_BIN, ["run", "--command", step.command, "--", ...step.args], {
        cwd: project,
        env: { PWD: project },
        reject: false,
        stdin: "ignore",
        timeout: 1_800_000,
      });
      return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
    },
    async close() {
      say(`The scratch repo is kept for you to look at: ${project}`);
    },
  };
}

async function main(): Promise<void> {
  const modelName = process.env.OTTO_DEMO_MODEL;
  const runner = modelName ? await realRunner(modelName) : await scriptedRunner();
  // OpenCode runs in its own process group, so Ctrl-C (or a test stopping the demo) never reaches
  // it: close the runner, then exit, which also fires the harness's hook that kills what is left.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void runner.close().finally(() => process.exit(130)));
  }
  say("otto demo");
  say(`Model: ${runner.describe}`);
  say(`Scratch repo: ${runner.project}`);
  let failed = false;
  try {
    for (const step of DEMO_STEPS) {
      say();
      say(`$ opencode run --command ${step.command} -- ${step.args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
      say(`  (${step.explain})`);
      const result = await runner.run(step);
      say(result.stdout.trim().replace(/^/gm, "  "));
      if (result.exitCode !== 0) {
        failed = true;
        say(`  step failed (exit ${String(result.exitCode)}):\n${result.stderr.split("\n").slice(-15).join("\n")}`);
        break;
      }
      if (step.commits) {
        const log = await execa("git", ["log", "--format=%h %s", "-n", "8"], { cwd: runner.project, reject: false });
        say(`\n  --- git log ---\n${String(log.stdout).trim().replace(/^/gm, "  ")}`);
      }
      for (const file of step.show ?? []) {
        const full = path.join(runner.project, file);
        if (fs.existsSync(full)) say(`\n  --- ${file} ---\n${fs.readFileSync(full, "utf8").trim().replace(/^/gm, "  ")}`);
      }
    }
  } finally {
    await runner.close();
  }
  say();
  say(failed ? "Demo stopped at a failed step." : "Demo finished.");
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
