import { OttoError, type Env } from "../core/index.ts";
import type { PrInfo } from "../pr/index.ts";
import { changedOpenCodeConfig, openCodeConfigDiff, removeOpenCodeConfig } from "../workspace/index.ts";

/*
 * A review session opened in a PR's checkout makes the user's OpenCode load that checkout's
 * OpenCode configuration (src/workspace/opencode-config.ts): a fork's plugin would run in the
 * user's OpenCode, its MCP command would start, its `agent.otto-reviewer` would meet otto's
 * reviewer. So, for a PR whose branch was written by someone without write access, otto removes
 * that configuration from its own checkout before the first session, gives the reviewer the PR's
 * changes to those files as fenced text instead, and says so in its output. Never in the user's
 * checkout: the caller hands over otto's temporary worktree.
 */

export interface StrippedConfig {
  /** Why the tree is not trusted to configure OpenCode, for the output. */
  reason: string;
  /** What was removed from otto's checkout (files, `.opencode` and skills folders). */
  removed: string[];
  /** The configuration files the PR changes against its target. */
  changed: string[];
  /** `git diff <target>...HEAD` of `changed`: given to the reviewer as data. */
  diff: string;
}

/**
 * Why the PR's tree may not configure OpenCode; undefined when it may. A branch in the repository
 * itself was pushed by someone who can write to it (GitHub and Azure DevOps both require it), so
 * only a fork's branch carries files from someone who cannot.
 */
export function untrustedTreeReason(pr: Pick<PrInfo, "fork" | "headRepo" | "repo">): string | undefined {
  if (pr.fork !== true) return undefined;
  return `the PR's branch is in a fork (${pr.headRepo ?? "another repository"}), written by someone who need not have write access to ${pr.repo}`;
}

/**
 * Removes the OpenCode configuration from otto's checkout of an untrusted PR. `temporary` must be
 * true (otto's own worktree): the user's checkout is never changed, so anything else is refused.
 */
export async function stripOpenCodeConfig(input: {
  pr: PrInfo;
  dir: string;
  temporary: boolean;
  target: string;
  env?: Env;
}): Promise<StrippedConfig | undefined> {
  const reason = untrustedTreeReason(input.pr);
  if (reason === undefined) return undefined;
  if (!input.temporary) {
    throw new OttoError(
      "untrusted_checkout",
      `PR #${input.pr.number} would be reviewed in ${input.dir}, which is not otto's own checkout, and ${reason}: otto would have to delete its OpenCode configuration there first.`,
      "Run the review from a clone where the PR's branch is not checked out; otto then uses a temporary worktree of its own.",
    );
  }
  const changed = (await changedOpenCodeConfig(input.dir, input.target, { ...(input.env ? { env: input.env } : {}) })) ?? [];
  const diff = await openCodeConfigDiff(input.dir, input.target, changed, input.env);
  const { removed } = await removeOpenCodeConfig(input.dir, input.env);
  return { reason, removed, changed, diff };
}

/** The output's lines about what was removed and why; none when the tree had no configuration. */
export function strippedLines(stripped: StrippedConfig | undefined): string[] {
  if (!stripped || stripped.removed.length === 0) return [];
  const list =
    stripped.removed
      .slice(0, 10)
      .map((f) => `\`${f}\``)
      .join(", ") + (stripped.removed.length > 10 ? `, … (${stripped.removed.length} in all)` : "");
  const changed =
    stripped.changed.length > 0
      ? ` The PR's changes to ${stripped.changed.length === 1 ? "it" : "them"} (${stripped.changed.map((f) => `\`${f}\``).join(", ")}) were given to the reviewer as text.`
      : "";
  return [
    `Removed the OpenCode configuration from otto's checkout before the review: ${list}. Why: ${stripped.reason}, and OpenCode loads a session's directory's configuration (plugins, MCP servers, agents, instructions) into your OpenCode.${changed}`,
  ];
}
