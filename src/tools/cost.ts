import fs from "node:fs/promises";
import path from "node:path";
import type { ToolDefinition } from "@opencode-ai/plugin";
import type { Runtime } from "../runtime.ts";
import { findRepoRoot } from "../config/index.ts";
import { buildReport, ledgerFile, parseReportKey, parseSince, readLedger, renderReport, reportJson } from "../cost/index.ts";
import { prStoreDir, verdictSavings } from "../pr/index.ts";
import { runGit } from "../workspace/index.ts";
import { defineCommand, type CommandContext, type Values, type Verb } from "./command.ts";

const text = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);

/**
 * The paths a flow may have labelled this repository's calls with: flows set labels.repo to the
 * repository root they ran in, which may be the clone, one of its worktrees (spec runs, PR fixes),
 * or either through a symlink. The first is the one the report names.
 */
export async function repoPaths(ctx: CommandContext): Promise<string[]> {
  const dir = path.resolve(ctx.tool.directory || ctx.runtime.directory);
  const root = (await findRepoRoot(dir)) ?? dir;
  const paths = [root];
  const listed = await runGit(["worktree", "list", "--porcelain"], { cwd: root, env: ctx.runtime.env });
  if (listed.exitCode === 0) {
    for (const line of listed.stdout.split("\n")) if (line.startsWith("worktree ")) paths.push(line.slice("worktree ".length).trim());
  }
  const real = await Promise.all(paths.map((p) => fs.realpath(p).catch(() => p)));
  // The PR flows work in clones of their own and label their calls with the forge's name of the
  // repository ("owner/repo"): origin's, for this checkout.
  // As configured: `remote get-url` applies url.<base>.insteadOf, which may point elsewhere (a mirror, a local path).
  const origin = await runGit(["config", "--get", "remote.origin.url"], { cwd: root, env: ctx.runtime.env });
  const forge = origin.exitCode === 0 ? forgeRepo(origin.stdout.trim()) : undefined;
  return [...new Set([...paths, ...real, ...(forge ? [forge] : [])])];
}

/** "owner/repo" of a GitHub remote URL, "org/project/repo" of an Azure DevOps one. */
export function forgeRepo(url: string): string | undefined {
  const ado = /[:/]([^/:]+)\/([^/]+)\/_git\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  if (ado) return `${ado[1]}/${decodeURIComponent(ado[2] ?? "")}/${ado[3]}`;
  const github = /[:/]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  return github ? `${github[1]}/${github[2]}` : undefined;
}

const report: Verb = {
  path: [],
  args: "[--since 7d|24h|<date>] [--by day|spec|pr|model] [--all] [--json]",
  summary: "What otto spent (tokens and dollars) in this repository, per day, spec, PR or model, from otto's ledger of every model call",
  options: { since: { type: "string" }, by: { type: "string" }, all: { type: "boolean" }, json: { type: "boolean" } },
  async run({ values }, ctx) {
    const by = parseReportKey(text(values, "by"));
    const since = parseSince(text(values, "since"), new Date());
    const repos = values.all === true ? "all" : await repoPaths(ctx);
    const entries = await readLedger(ledgerFile(ctx.runtime.env), since);
    // Apart from the spend: what flake and inherited verdicts of the PR fix flow saved, estimated from the flake ledgers.
    const built = { ...buildReport(entries, { by, since, repos }), saved: await verdictSavings(prStoreDir(ctx.runtime.env), since, repos) };
    if (values.json === true) return reportJson(built);
    return {
      title: `otto cost: ${built.rows.length} ${by === "day" ? "day" : by}${built.rows.length === 1 ? "" : "s"}`,
      output: renderReport(built),
    };
  },
};

/** /otto-cost: the spend of otto's model calls, from the ledger (docs/cost.md). */
export function costCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    { name: "otto-cost", summary: "what otto spent, in tokens and dollars, per day, spec, PR or model", verbs: [report], bareRuns: true },
    runtime,
  );
}
