/**
 * npm run bench: side-by-side measurements in one run, written to docs/benchmarks.md.
 *
 * 1. Bytes of tool schemas in the model request: a `build`-agent request with and without otto,
 *    an `otto`-agent request, and a slash command's turn (its own agent, offered its tool alone).
 * Then the other benches, each writing its own section (startup as whole processes, execute, PR
 * tracking, tasks.md, tokens, install size).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchExecute, writeSection as writeExecuteSection } from "./execute.ts";
import { benchInstallSize, writeSection as writeInstallSizeSection } from "./install-size.ts";
import { benchPostOnce, writeSection as writePostOnceSection } from "./post-once.ts";
import { benchSafety, writeSection as writeSafetySection } from "./safety.ts";
import { benchStartup, writeSection as writeStartupSection } from "./startup.ts";
import { benchPr, writeSection as writePrSection } from "./pr.ts";
import { benchTasksFile, writeSection as writeTasksFileSection } from "./tasks-file.ts";
import { benchTokens, writeSection as writeTokensSection } from "./tokens.ts";
import {
  createWorkspace,
  opencodeVersion,
  REPO_ROOT,
  runOpencode,
  slashCommand,
  startModelServer,
  text,
  type ModelServer,
  type Workspace,
} from "../test/support/index.ts";

async function timedRun(model: ModelServer, ws: Workspace, args: string[]): Promise<number> {
  model.script({ reply: text("ok") });
  const result = await runOpencode(ws, args, { timeoutMs: 120_000 });
  if (result.exitCode !== 0) throw new Error(`opencode ${args.join(" ")} failed (${String(result.exitCode)}):\n${result.stderr}`);
  return result.durationMs;
}

/** Bytes of the `tools` array of the last non-title request, as sent on the wire. */
function toolBytes(model: ModelServer): { bytes: number; names: string[] } {
  const turn = model.turns().at(-1);
  if (!turn) throw new Error("no model request recorded");
  return { bytes: Buffer.byteLength(JSON.stringify(turn.body.tools ?? [])), names: turn.toolNames };
}

async function main(): Promise<void> {
  const model = await startModelServer();
  const withOtto = await createWorkspace({ model });
  // Same seeded OpenCode config dir on both sides; only the plugin list differs.
  const without = await createWorkspace({ model });
  without.updateConfig({ plugin: [] });
  try {
    const prompt = ["run", "Say hello."];
    // Warm-up: the first run of a workspace pays one-time costs (sqlite, snapshots, caches).
    await timedRun(model, withOtto, prompt);
    await timedRun(model, without, prompt);
    model.reset();
    await timedRun(model, without, prompt);
    const buildWithout = toolBytes(model);
    model.reset();
    await timedRun(model, withOtto, prompt);
    const buildWith = toolBytes(model);
    model.reset();
    await timedRun(model, withOtto, ["run", "--agent", "otto", "Say hello."]);
    const ottoAgent = toolBytes(model);
    model.reset();
    model.script(...slashCommand("otto_config"));
    const command = await runOpencode(withOtto, ["run", "--command", "otto-config", "--", "path"], { timeoutMs: 120_000 });
    if (command.exitCode !== 0) throw new Error(`/otto-config path failed (${String(command.exitCode)}):\n${command.stderr}`);
    const commandTurn = toolBytes(model);
    await model.close();

    const ottoTools = ottoAgent.names.filter((n) => n.startsWith("otto_"));
    const report = [
      "# Benchmarks",
      "",
      `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: OpenCode ${opencodeVersion()}, Node ${process.version}, ${os.cpus().length} cores, a scripted local model; every section below comes from this one run. Each figure with a target stands beside it, and beside the previous run's figure ("before").`,
      "",
      "## Tool schemas in the model request",
      "",
      "| request | tools | bytes of `tools` |",
      "|---|---|---|",
      `| \`build\` agent, without otto | ${buildWithout.names.length} | ${buildWithout.bytes} |`,
      `| \`build\` agent, with otto | ${buildWith.names.length} | ${buildWith.bytes} |`,
      `| \`otto\` agent | ${ottoAgent.names.length} | ${ottoAgent.bytes} |`,
      `| a slash command's turn (\`/otto-config\`, agent \`otto.config\`) | ${commandTurn.names.length} | ${commandTurn.bytes} |`,
      "",
      `**Otto adds ${buildWith.bytes - buildWithout.bytes} bytes to a \`build\`-agent request** (target 0; before: 0). The \`otto\` agent is offered otto's tools (${ottoTools.join(", ") || "none"}); a slash command's turn only its command's (${commandTurn.names.join(", ")}).`,
      "",
    ].join("\n");
    const file = path.join(REPO_ROOT, "docs", "benchmarks.md");
    fs.writeFileSync(file, report);
    process.stdout.write(`\n${report}`);
    // The other benches append their own sections to the file just written.
    const startup = await benchStartup((line) => process.stdout.write(`${line}\n`));
    writeStartupSection(startup);
    process.stdout.write(`\n${startup}`);
    const execute = await benchExecute((line) => process.stdout.write(`${line}\n`));
    writeExecuteSection(execute);
    process.stdout.write(`\n${execute}`);
    const pr = await benchPr((line) => process.stdout.write(`${line}\n`));
    writePrSection(pr);
    process.stdout.write(`\n${pr}`);
    const postOnce = await benchPostOnce((line) => process.stdout.write(`${line}\n`));
    writePostOnceSection(postOnce);
    process.stdout.write(`\n${postOnce}`);
    const safety = await benchSafety((line) => process.stdout.write(`${line}\n`));
    writeSafetySection(safety);
    process.stdout.write(`\n${safety}`);
    const tasksFile = await benchTasksFile((line) => process.stdout.write(`${line}\n`));
    writeTasksFileSection(tasksFile);
    process.stdout.write(`\n${tasksFile}`);
    const tokens = await benchTokens((line) => process.stdout.write(`${line}\n`));
    writeTokensSection(tokens);
    process.stdout.write(`\n${tokens}`);
    const installSize = await benchInstallSize((line) => process.stdout.write(`${line}\n`));
    writeInstallSizeSection(installSize);
    process.stdout.write(`\n${installSize}`);
  } finally {
    await withOtto.cleanup();
    await without.cleanup();
    await model.close().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
