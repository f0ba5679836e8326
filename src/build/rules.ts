import fs from "node:fs/promises";
import type { Env } from "../core/index.ts";
import { ALL_FILES, applyRules, loadRuleSet } from "../rules/index.ts";
import { parseTasks } from "../spec/index.ts";
import type { BuildTarget } from "./state.ts";
import { taskSource } from "./task-source.ts";

/**
 * The team rules for a build loop's builder (docs/rules.md), sent as its system text with every
 * turn: those in scope of the files the target's open tasks list (an otto spec's `files`), or every
 * accepted rule when no task lists files (an OpenSpec change's checkboxes name none).
 */
export async function buildRules(repoRoot: string, target: BuildTarget, env: Env, log: (problem: string) => void): Promise<string> {
  const set = await loadRuleSet(repoRoot, env);
  for (const problem of set.problems) log(problem);
  const files = target.kind === "spec" ? await openTaskFiles(taskSource(repoRoot, target).file) : [];
  return (await applyRules(set, repoRoot, files.length > 0 ? files : ALL_FILES, "write", env)).text;
}

async function openTaskFiles(file: string): Promise<string[]> {
  const text = await fs.readFile(file, "utf8").catch(() => "");
  const tasks = parseTasks(text).tasks.tasks.filter((t) => t.status !== "completed" && t.status !== "skipped");
  return [...new Set(tasks.flatMap((t) => t.files))];
}
