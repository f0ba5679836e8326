import fs from "node:fs";
import { formatProblems } from "../problems.ts";
import { parseQuestions } from "../questions/parse-questions.ts";
import { listSpecs, specPaths, specsDir, type SpecEntry } from "../layout.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import type { TaskList } from "../tasks/schema.ts";
import { summarizeTasks, type TaskSummary } from "../tasks/summarize-tasks.ts";
import { validateTasks } from "../tasks/validate-tasks.ts";
import type { VerbResult } from "./document-stage.ts";
import { table } from "./render-output.ts";
import { relativeTo, resolveTarget } from "./target.ts";

/** The next pipeline command for a spec, from the artifacts it has (pure). */
export function nextCommand(entry: Pick<SpecEntry, "slug" | "artifacts">): string {
  const { artifacts: a, slug } = entry;
  if (!a.requirements) return `write .otto/specs/${slug}/requirements.md, or /otto-spec add "<prompt>"`;
  if (!a.research) return `/otto-spec research --spec ${slug}`;
  if (!a.design) return `/otto-spec design --spec ${slug}`;
  if (!a.tasks) return `/otto-spec task generate --spec ${slug}`;
  return `/otto-spec task list --spec ${slug}`;
}

/** "2/6 completed | 1 running | 3 pending" */
export function progressLine(summary: TaskSummary): string {
  const rest = (["running", "pending", "failed", "skipped"] as const)
    .filter((s) => summary.byStatus[s] > 0)
    .map((s) => `${summary.byStatus[s]} ${s}`);
  return [`${summary.byStatus.completed}/${summary.total} completed`, ...rest].join(" | ");
}

function openQuestions(repoRoot: string, slug: string): number {
  try {
    const text = fs.readFileSync(specPaths(repoRoot, slug).questions, "utf8");
    return parseQuestions(text).questions.questions.filter((q) => q.status === "unanswered").length;
  } catch {
    return 0;
  }
}

/** `/otto-spec list`: every spec with its artifacts, task progress, open questions and next step. */
export function listVerb(repoRoot: string): VerbResult {
  const specs = listSpecs(repoRoot);
  const where = relativeTo(repoRoot)(specsDir(repoRoot));
  if (specs.length === 0) {
    return { title: "otto-spec: no specs", output: `No specs in ${where} yet.\n\nNext step: /otto-spec add "<what you want to build>"` };
  }
  const mark = (b: boolean) => (b ? "yes" : "-");
  const rows = specs.map((s) => [
    s.slug,
    mark(s.artifacts.requirements),
    mark(s.artifacts.research),
    mark(s.artifacts.design),
    s.tasks ? `${s.tasks.byStatus.completed}/${s.tasks.total} completed` : "-",
    String(openQuestions(repoRoot, s.slug)),
    nextCommand(s),
  ]);
  const output = [
    `## Specs in ${where} (${specs.length})`,
    "",
    table(["spec", "requirements", "research", "design", "tasks", "open questions", "next step"], rows),
  ].join("\n");
  return { title: `otto-spec: ${specs.length} spec(s)`, output };
}

/** The task table with status, group and dependencies, and the progress summary (pure). */
export function renderTaskList(slug: string, list: TaskList, problems: string): string {
  const summary = summarizeTasks(list);
  const rows = list.tasks.map((t) => [
    String(t.number),
    t.id,
    t.status,
    String(t.parallel_group),
    t.depends_on.join(", ") || "-",
    t.title,
    t.verify ? `\`${t.verify}\`` : "-",
  ]);
  const groups = summary.byGroup.map((g) => `group ${g.group}: ${g.byStatus.completed}/${g.total} completed`).join(" · ");
  const out = [
    `## Tasks of ${slug}: ${progressLine(summary)}`,
    "",
    table(["#", "id", "status", "group", "depends on", "title", "verify"], rows),
    "",
    `Progress: ${progressLine(summary)}`,
    `Parallel groups: ${groups || "(none)"}`,
  ];
  if (problems) out.push("", `Problems in tasks.md (fix them by hand, or re-run /otto-spec task generate --spec ${slug}):`, problems);
  const next = summary.byStatus.completed === summary.total ? "every task is completed" : `/otto-spec execute --spec ${slug}`;
  out.push("", `Next step: ${next}`);
  return out.join("\n");
}

/** `/otto-spec task list`. */
export function taskListVerb(repoRoot: string, flag?: string): VerbResult {
  const { slug, paths } = resolveTarget(repoRoot, flag, "task-list");
  const parsed = parseTasks(fs.readFileSync(paths.tasks, "utf8"));
  const problems = [...parsed.problems, ...(parsed.problems.length ? [] : validateTasks(parsed.tasks))];
  const summary = summarizeTasks(parsed.tasks);
  return {
    title: `otto-spec: ${slug} tasks ${summary.byStatus.completed}/${summary.total} completed`,
    output: renderTaskList(slug, parsed.tasks, formatProblems(problems, "tasks.md")),
  };
}
