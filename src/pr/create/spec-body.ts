import fs from "node:fs";
import { OttoError } from "../../core/index.ts";
import path from "node:path";
import { parseQuestions, parseTasks, specPaths, specsDir, type Task } from "../../spec/index.ts";

/*
 * The description of a PR opened for a spec, built in code from the spec's own files: what it is
 * for (requirements.md), what was done and the evidence recorded beside each task (tasks.md), and
 * what is still open (questions.md). No model writes it, so it claims nothing the files do not.
 */

const read = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);

/** The first `# ` heading without a "Requirements:" prefix, for the PR's title. */
export function specTitle(requirements: string | undefined): string | undefined {
  const heading = /^#\s+(.+)$/m.exec(requirements ?? "")?.[1]?.trim();
  return heading?.replace(/^requirements\s*(?:document)?\s*[:—-]\s*/i, "").trim() || undefined;
}

/** The goal: the section named like an introduction or goal, else the first paragraph after the title. */
export function specGoal(requirements: string | undefined): string | undefined {
  if (!requirements) return undefined;
  const sections = requirements.split(/^##\s+/m).slice(1);
  const named = sections.find((s) => /^(introduction|goal|goals|overview|summary|purpose|problem)\b/i.test(s));
  const text = named ? named.slice(named.indexOf("\n") + 1) : requirements.replace(/^#\s+.*$/m, "").split(/^##\s+/m)[0];
  const paragraph = (text ?? "")
    .trim()
    .split(/\n\s*\n/)[0]
    ?.trim();
  return paragraph || undefined;
}

function evidence(task: Task): string {
  const parts = [
    task.extra.commit ? `commit ${task.extra.commit.slice(0, 12)}` : undefined,
    task.extra.changed_files
      ? `changed ${task.extra.changed_files}`
      : task.extra.no_changes
        ? `no changes needed: ${task.extra.no_changes}`
        : undefined,
    task.extra.checks ? `checks: ${task.extra.checks}` : undefined,
  ].filter(Boolean);
  return parts.length ? ` (${parts.join("; ")})` : "";
}

export interface SpecBody {
  title: string;
  body: string;
}

/**
 * Where the spec's files are: `.otto/specs/<slug>/`, or, once a build archived it, the newest
 * `.otto/specs/archive/<date>-<slug>[-n]/`.
 */
function specFiles(root: string, slug: string): ReturnType<typeof specPaths> {
  const paths = specPaths(root, slug);
  if (fs.existsSync(paths.dir)) return paths;
  const archive = path.join(specsDir(root), "archive");
  const archived = fs.existsSync(archive)
    ? fs
        .readdirSync(archive)
        .filter((name) => new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${slug.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(-\\d+)?$`).test(name))
        .sort()
        .at(-1)
    : undefined;
  if (!archived) return paths;
  const dir = path.join(archive, archived);
  return {
    ...paths,
    dir,
    requirements: path.join(dir, "requirements.md"),
    tasks: path.join(dir, "tasks.md"),
    questions: path.join(dir, "questions.md"),
  };
}

/** Title and description of the PR for spec `slug` of the repository at `root`. */
export function specBody(root: string, slug: string): SpecBody {
  const paths = specFiles(root, slug);
  const requirements = read(paths.requirements);
  const tasksText = read(paths.tasks);
  if (requirements === undefined && tasksText === undefined) {
    throw new OttoError(
      "pr_create_no_spec",
      `There is no spec '${slug}' in ${root} (no requirements.md or tasks.md).`,
      "Name one of /otto-spec list, or write the description with --body.",
    );
  }
  const tasks = tasksText === undefined ? [] : parseTasks(tasksText).tasks.tasks;
  const done = tasks.filter((t) => t.status === "completed");
  const left = tasks.filter((t) => t.status !== "completed");
  const questionsText = read(paths.questions);
  const open =
    questionsText === undefined ? [] : parseQuestions(questionsText).questions.questions.filter((q) => q.status === "unanswered");
  const lines = [
    "## Goal",
    "",
    specGoal(requirements) ?? "_requirements.md states no goal._",
    "",
    `## Tasks (${done.length} of ${tasks.length} completed)`,
    "",
    ...(done.length ? done.map((t) => `- [x] ${t.id}: ${t.title}${evidence(t)}`) : ["_No task is completed yet._"]),
    ...left.map((t) => `- [ ] ${t.id}: ${t.title} (${t.status}${t.extra.last_error ? `: ${t.extra.last_error}` : ""})`),
    "",
    "## Open questions",
    "",
    ...(open.length ? open.map((q) => `- Q${q.number}: ${q.title}`) : ["None."]),
    "",
    `_Opened by otto from the spec \`${slug}\` (\`.otto/specs/${slug}/\`)._`,
  ];
  return { title: specTitle(requirements) ?? slug, body: lines.join("\n") };
}
