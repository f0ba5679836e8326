import { OttoError } from "../core/index.ts";
import { editConfigFile, formatConfigProblems, parseConfigText, planEdit, type ConfigFile, type SetResult } from "../config/index.ts";

/** One `repos[]` entry as written in otto.jsonc (defaults not filled in). */
export type RepoEntry = NonNullable<ConfigFile["repos"]>[number];

export interface RepoEdit extends SetResult {
  /** Index of the entry in the file's `repos` array (before removal, for a removal). */
  index: number;
  entry: RepoEntry;
}

type Scope = "user" | "repo";

/** The `repos` array of a config file's text; refuses a file that does not parse or validate. */
function reposOf(text: string, file: string, scope: Scope): RepoEntry[] {
  const parsed = parseConfigText(text, { file, scope });
  if (!parsed.value) {
    throw new OttoError(
      "config_invalid",
      `Cannot edit repos in ${file}: fix the file first:\n${formatConfigProblems(parsed.problems)}`,
      "Fix each problem above, then run /otto-config validate.",
    );
  }
  const repos = parsed.value.repos;
  return Array.isArray(repos) ? (repos as RepoEntry[]) : [];
}

/**
 * Appends a repo to the `repos` array of a config file, in place: comments and formatting are
 * kept, the file and its directory are created when absent, and the result is validated first.
 */
export async function addRepoEntry(file: string, entry: RepoEntry, scope: Scope = "user"): Promise<RepoEdit> {
  let index = -1;
  const result = await editConfigFile(file, (text) => {
    const repos = reposOf(text, file, scope);
    if (repos.some((r) => r.name === entry.name)) {
      throw new OttoError(
        "repo_exists",
        `A repo named '${entry.name}' is already in ${file}.`,
        `Pick another --name, or remove it first: /otto-repo remove ${entry.name}`,
      );
    }
    index = repos.length;
    return planEdit(text, { file, scope }, ["repos", index], entry);
  });
  return { ...result, index, entry };
}

/** Removes the named repo from a config file; undefined when the file has no repo of that name. */
export async function removeRepoEntry(file: string, name: string, scope: Scope = "user"): Promise<RepoEdit | undefined> {
  let found: { index: number; entry: RepoEntry } | undefined;
  const result = await editConfigFile(file, (text) => {
    const repos = reposOf(text, file, scope);
    const index = repos.findIndex((r) => r.name === name);
    const entry = repos[index];
    if (!entry) return { text, key: "repos", value: undefined, previous: undefined, changed: false };
    found = { index, entry };
    return planEdit(text, { file, scope }, ["repos", index], undefined);
  });
  return found ? { ...result, ...found } : undefined;
}
