/**
 * Which of otto's execute prompts a request carries, from a phrase of the builtin prompt file.
 * Sessions of one phase run concurrently, so tests answer by prompt content, never by order.
 */
export type ExecKind =
  | "execute-task"
  | "task-briefing"
  | "phase-review"
  | "phase-fix"
  | "external-assumptions"
  | "domain-hardening"
  | "docs-align"
  | "docs-finalize"
  | "question-harvest"
  | "review"
  | "json-retry";

// Prompts that quote other prompts' text (logs, diffs) come first, so they are not mistaken for what they quote.
const PHRASES: Array<[string, ExecKind]> = [
  ["Your previous answer could not be used", "json-retry"],
  ["Read their logs and extract the questions", "question-harvest"],
  ["You are an independent reviewer", "review"],
  ["You are the reviewer at the gate of a phase", "phase-review"],
  ["You are implementing one task of a specified change", "execute-task"],
  ["You are preparing the brief for a coding agent", "task-briefing"],
  ["You are the engineer closing phase", "phase-fix"],
  ["You are validating the assumptions", "external-assumptions"],
  ["giving this phase's code", "domain-hardening"],
  ["Make the repository's documentation tell the truth", "docs-align"],
  ["You updated this repository's documentation in an earlier session", "docs-finalize"],
];

export function execKindOf(text: string): ExecKind | undefined {
  return PHRASES.find(([phrase]) => text.includes(phrase))?.[1];
}

/** The task id of an execute-task or task-briefing prompt. */
export function taskIdOf(text: string): string | undefined {
  // The prompt's own task section, not the tasks.md it may quote before it.
  return /# The task\n\n- \*\*id\*\*: (\S+)/.exec(text)?.[1];
}

/** The phase number of a phase-review / phase-fix / hardening prompt. */
export function phaseOf(text: string): number | undefined {
  // The line naming the phase's parallel group (the prompts' first sentence no longer carries the number), else the first "phase N".
  const m = /with `parallel_group: (\d+)`/.exec(text) ?? /phase (\d+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** A tasks.md from compact rows: [id, status, group, deps, title]. */
export function tasksMd(rows: Array<[string, string, number, string[], string]>): string {
  const tasks = rows.map(
    ([id, status, group, deps, title], i) =>
      `## Task ${i + 1}: ${title}\n- **id**: ${id}\n- **status**: ${status}\n- **parallel_group**: ${group}\n- **depends_on**: [${deps.join(", ")}]\n- **description**: ${title}.\n- **files**: ["src/${id}.txt"]`,
  );
  return `# Tasks\n\n${tasks.join("\n\n")}\n`;
}

export const SPEC_DOCS = {
  "requirements.md": "# Requirements: Greeting\n\n## Summary\nThe project greets people.\n\n- AC-1: greet.txt exists.\n",
  "research.md": "# Research: Greeting\n\n## Summary\nNothing external.\n",
  "design.md": "# Design: Greeting\n\n## Overview\nOne file per task under src/.\n",
};

/** The project files of an e2e workspace: a README and a spec `greeting` with these tasks. */
export function specFiles(tasks: string, slug = "greeting"): Record<string, string> {
  const files: Record<string, string> = { "README.md": "# greeting\n" };
  for (const [name, text] of Object.entries(SPEC_DOCS)) files[`.otto/specs/${slug}/${name}`] = text;
  files[`.otto/specs/${slug}/tasks.md`] = tasks;
  return files;
}
