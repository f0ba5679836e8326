import { templatePattern } from "./branch-template.ts";
import { gitOutput } from "../workspace/index.ts";
import type { GitEnv } from "../workspace/index.ts";

/** A local branch with its upstream tracking state. */
export interface BranchRef {
  name: string;
  head: string;
  upstream: string | undefined;
  /** undefined without an upstream, or when the upstream is gone. */
  ahead: number | undefined;
  behind: number | undefined;
  /** The upstream branch was deleted on the remote. */
  gone: boolean;
}

const FORMAT = "%(refname:short)%00%(objectname)%00%(upstream:short)%00%(upstream:track)";

/** Pure: the output of `git for-each-ref --format=<FORMAT> refs/heads`. */
export function parseBranchRefs(text: string): BranchRef[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [name = "", head = "", upstream = "", track = ""] = line.split("\0");
      const gone = track.includes("gone");
      const ahead = /ahead (\d+)/.exec(track)?.[1];
      const behind = /behind (\d+)/.exec(track)?.[1];
      const tracked = upstream !== "" && !gone;
      return {
        name,
        head,
        upstream: upstream || undefined,
        ahead: tracked ? Number(ahead ?? 0) : undefined,
        behind: tracked ? Number(behind ?? 0) : undefined,
        gone,
      };
    });
}

export async function listBranchRefs(dir: string, git: GitEnv = {}): Promise<BranchRef[]> {
  return parseBranchRefs(await gitOutput(["for-each-ref", `--format=${FORMAT}`, "refs/heads"], { ...git, cwd: dir }));
}

/** A `branch_patterns` glob as a regex: `*` within one path segment, `**` across segments. */
export function globPattern(glob: string): RegExp {
  let body = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*" && glob[i + 1] === "*") {
      body += ".*";
      i++;
    } else if (c === "*") body += "[^/]*";
    else if (c === "?") body += "[^/]";
    else body += c.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${body}$`);
}

/** Branches otto manages for a repo: they follow branch_template or match one of branch_patterns. */
export function managedBranchMatcher(repo: {
  branch_template?: string | undefined;
  branch_patterns: readonly string[];
}): (branch: string) => boolean {
  const patterns = repo.branch_patterns.map(globPattern);
  const template = repo.branch_template === undefined ? undefined : templatePattern(repo.branch_template);
  return (branch) => (template?.test(branch) ?? false) || patterns.some((p) => p.test(branch));
}
