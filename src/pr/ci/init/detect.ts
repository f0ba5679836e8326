import fs from "node:fs/promises";
import path from "node:path";

/*
 * What `ci init` reads from the repository to fill in the templates: the names of its GitHub
 * Actions workflows (the CI otto's workflow listens to) and the jobs of its Azure pipeline (the
 * build job(s) otto's job runs after). Top-level keys are read line by line rather than with a
 * YAML parser: otto ships none, and a wrong guess only ends up in a file the user reviews.
 */

export const GITHUB_WORKFLOW_FILE = ".github/workflows/otto.yml";

const unquote = (value: string): string => {
  const v = value.replace(/\s+#.*$/, "").trim();
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'");
  return v;
};

/**
 * Pure: the name `workflow_run` matches a workflow by: its top-level `name:`, or, without one, its
 * path (how GitHub names an unnamed workflow).
 */
export function workflowName(relativePath: string, text: string): string {
  const match = /^name:[ \t]*(\S.*)$/m.exec(text);
  const name = match?.[1] ? unquote(match[1]) : "";
  return name || relativePath;
}

/** The repository's workflows' names, otto's own excepted, sorted; [] without a workflows folder. */
export async function detectWorkflows(root: string): Promise<string[]> {
  const dir = path.join(root, ".github", "workflows");
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  const names: string[] = [];
  for (const entry of entries.sort()) {
    const relative = `.github/workflows/${entry}`;
    if (!/\.ya?ml$/.test(entry) || relative === GITHUB_WORKFLOW_FILE || relative === ".github/workflows/otto.yaml") continue;
    const text = await fs.readFile(path.join(dir, entry), "utf8").catch(() => undefined);
    if (text !== undefined) names.push(workflowName(relative, text));
  }
  return [...new Set(names)];
}

/** Pure: the ids of `- job: <id>` entries in an Azure pipeline (top-level jobs and jobs in stages). */
export function azureJobs(text: string): string[] {
  const ids = [...text.matchAll(/^[ \t]*-[ \t]+job:[ \t]*(\S.*)$/gm)].map((m) => unquote(m[1] ?? ""));
  return [...new Set(ids.filter((id) => /^[A-Za-z0-9_]+$/.test(id)))];
}

/** The jobs of the repository's `azure-pipelines.yml` (or `.yaml`); [] when there is none. */
export async function detectAzureJobs(root: string): Promise<string[]> {
  for (const name of ["azure-pipelines.yml", "azure-pipelines.yaml"]) {
    const text = await fs.readFile(path.join(root, name), "utf8").catch(() => undefined);
    if (text !== undefined) return azureJobs(text);
  }
  return [];
}
