import { z } from "zod";
import { Account, formatUsage } from "../../cost/index.ts";
import { addSpend } from "../context/spend.ts";
import { documentKey } from "../store/store.ts";
import { OttoError, redact, errorText } from "../../core/index.ts";
import { findRepoRoot, parseDuration } from "../../config/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import { resolveRoleModel } from "../../session/index.ts";
import { currentBranch, gitOutput } from "../../workspace/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { PrBackend } from "../backend.ts";
import { trackPr } from "../commands/add.ts";
import { createPrContext, type PrContext } from "../context/context.ts";
import { originUrl } from "../remote.ts";
import type { PrLocator } from "../types.ts";
import { prepareBranch, type PreparedBranch } from "./branch.ts";
import { specBody } from "./spec-body.ts";

/*
 * `/otto-pr create`: the branch of the current checkout becomes a tracked PR on the forge of its
 * origin. Otto's code pushes (never forced) and posts; a model only writes the description when
 * neither --body nor --spec gives one. Creating twice opens nothing the second time.
 */

export interface CreatePrInput {
  directory: string;
  title?: string;
  body?: string;
  /** A spec of the repository: the description is built from its files. */
  spec?: string;
  base?: string;
  draft?: boolean;
  reviewers?: readonly string[];
  now: Date;
  /** The invoking session: the model that writes a description when models.primary is unset. */
  sessionID: string;
  signal?: AbortSignal;
  progress?: (message: string) => void;
}

export interface CreatePrResult {
  /** The tool's output. */
  markdown: string;
  pr: PrLocator;
  /** False when the branch already had an open PR. */
  created: boolean;
}

/** The diff a model sees: cut so one huge generated file cannot crowd out the rest. */
const MAX_DIFF_CHARS = 60_000;

const Description = z.object({ title: z.string().trim().min(1).max(200), body: z.string().trim().min(1) });

/** The forge of the checkout's origin; `command` is what the user ran, named in the fix. */
async function forgeOf(
  ctx: PrContext,
  directory: string,
  command = "/otto-pr create",
): Promise<{ backend: PrBackend; repo: string; remote: string }> {
  if (!(await findRepoRoot(directory)))
    throw new OttoError(
      "not_a_repository",
      `${directory} is not inside a git repository, so there is no current branch and no origin remote to find a PR by.`,
      command === "/pr-review"
        ? "Name the PR: /pr-review <url>, or run /pr-review in a clone of the PR's repository."
        : `Run ${command} in a clone of the repository.`,
    );
  const remote = await originUrl(directory);
  if (!remote)
    throw new OttoError(
      "pr_create_no_origin",
      `This checkout has no origin remote, so otto cannot tell which forge ${command === "/pr-review" ? "the PR is on" : "to open the PR on"}.`,
      command === "/pr-review"
        ? "Name the PR: /pr-review <url>, or add origin (`git remote add origin <url>`)."
        : `Add it (\`git remote add origin <url>\`), then run ${command} again.`,
    );
  for (const backend of ctx.registry.all()) {
    const repo = backend.repoOfRemote(remote);
    if (repo) return { backend, repo, remote };
  }
  throw new OttoError(
    "pr_create_forge",
    `origin (${redact(remote)}) is not a repository on a forge otto knows.`,
    "GitHub Enterprise: set pr.providers.github.hosts (or api_url); Azure DevOps Server: set pr.providers.ado.base_url. Then run /otto-pr create again.",
  );
}

async function describeWithModel(
  runtime: Runtime,
  ctx: PrContext,
  input: CreatePrInput,
  branch: PreparedBranch,
  account: Account,
): Promise<{ title: string; body: string; model: string }> {
  const role = await resolveRoleModel("primary", ctx.loaded.config.models.primary, {
    client: runtime.client,
    sessionID: input.sessionID,
    directory: input.directory,
    once: runtime.once,
    log: runtime.log,
  });
  const git = { env: runtime.env, cwd: branch.root };
  const range = `origin/${branch.base}...HEAD`;
  const diff = await gitOutput(["diff", "--no-color", "--no-ext-diff", range], git);
  const prompt = renderPrompt(
    "pr-description",
    {
      branch: branch.branch,
      base: branch.base,
      commits: branch.commits.map((c) => `- ${c}`).join("\n"),
      diff:
        diff.length > MAX_DIFF_CHARS
          ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (${diff.length - MAX_DIFF_CHARS} more characters: read the files for the rest)`
          : diff,
      diffstat: (await gitOutput(["diff", "--stat", "--no-color", range], git)).trim(),
    },
    { env: runtime.env },
  );
  const reply = await runtime.sessions.runChildJson(
    {
      directory: branch.root,
      agent: "otto-reviewer",
      model: role.model,
      title: `otto: describe ${branch.branch}`,
      timeoutMs: parseDuration(ctx.loaded.config.spec.task_timeout),
      parentID: input.sessionID,
      account,
      ...(input.signal ? { signal: input.signal } : {}),
    },
    prompt,
    Description,
  );
  return { ...reply.value, model: `${role.model.providerID}/${role.model.modelID}` };
}

/** Opens (or finds) the PR of the current branch and tracks it. */
export async function createPullRequest(runtime: Runtime, input: CreatePrInput): Promise<CreatePrResult> {
  if (input.body !== undefined && input.spec !== undefined) {
    throw new OttoError(
      "pr_create_args",
      "--body and --spec both give the description.",
      "Pass one of them: --spec <slug> builds it from the spec's files, --body <text> is used as it is.",
    );
  }
  const progress = input.progress ?? (() => undefined);
  const ctx = await createPrContext(runtime, input.directory);
  const { backend, repo } = await forgeOf(ctx, input.directory);
  progress("otto pr create: checking and pushing the branch");
  const branch = await prepareBranch(input.directory, { ...(input.base ? { base: input.base } : {}), git: { env: runtime.env } });
  const notes = [
    `Branch: ${branch.branch} → ${branch.base}, ${branch.commits.length} commit${branch.commits.length === 1 ? "" : "s"}; ${branch.pushed}.`,
  ];
  if (branch.uncommitted.length)
    notes.push(
      `Not in the PR (uncommitted): ${branch.uncommitted.slice(0, 5).join(", ")}${branch.uncommitted.length > 5 ? ` and ${branch.uncommitted.length - 5} more` : ""}.`,
    );

  const existing = await backend.findOpenPr(repo, branch.branch);
  if (existing) {
    const tracked = await trackPr(ctx, backend, existing, input.now);
    return {
      markdown: [
        `PR #${existing.number} is already open for ${branch.branch} in ${repo}; no new PR was opened.`,
        ...notes,
        tracked.text,
      ].join("\n"),
      pr: existing,
      created: false,
    };
  }

  let title = input.title;
  let body = input.body;
  let by = input.body !== undefined ? "--body" : "";
  if (input.spec !== undefined) {
    const fromSpec = specBody(branch.root, input.spec);
    title ??= fromSpec.title;
    body = fromSpec.body;
    by = `the spec ${input.spec}`;
  }
  // The description's model calls: labelled with the repository, and with the PR once it is open.
  const account = new Account(`pr create ${branch.branch}`, { labels: { repo, run: input.now.toISOString() } });
  if (body === undefined) {
    progress("otto pr create: the primary model is describing the change");
    const written = await describeWithModel(runtime, ctx, input, branch, account);
    title ??= written.title;
    body = written.body;
    by = `${written.model}, from the diff`;
    notes.push(`Writing the description cost ${formatUsage(account.usage)}.`);
  }
  title ??= branch.commits.length === 1 ? branch.commits[0]?.replace(/^\S+\s+/, "") : branch.branch;
  // Whatever wrote them, no known secret leaves in a title or description.
  const secrets = ctx.loaded.secrets;
  const final = { title: redact(title ?? branch.branch, secrets).split("\n")[0] ?? branch.branch, body: redact(body, secrets) };

  progress(`otto pr create: opening the PR on ${backend.name}`);
  const created = await backend.createPr({
    repo,
    source: branch.branch,
    target: branch.base,
    title: final.title,
    body: final.body,
    draft: input.draft === true,
    reviewers: [...(input.reviewers ?? [])],
  });
  let tracked: { text: string };
  try {
    tracked = await trackPr(ctx, backend, created.pr, input.now);
    if (account.usage.requests > 0)
      await ctx.store.update(documentKey(created.pr), (d) => ({
        ...d,
        data: { ...d.data, spend: addSpend(d.data.spend, account.usage, input.now) },
      }));
  } catch (error) {
    tracked = { text: `The PR is open but not tracked yet (${errorText(error)}); track it with /otto-pr add ${created.pr.number}.` };
  }
  return {
    markdown: [
      `Opened PR #${created.pr.number} in ${repo}${input.draft ? " (draft)" : ""}: ${final.title}`,
      ...notes,
      ...created.notes,
      tracked.text,
      "",
      `Description (${by}):`,
      "",
      final.body,
    ].join("\n"),
    pr: created.pr,
    created: true,
  };
}

/**
 * The open PR of the branch checked out in `directory`, on the forge of its origin, as its web URL
 * (what `/pr-review` takes when no PR is named). Throws with the next step when there is none.
 */
export async function currentBranchPr(runtime: Runtime, directory: string): Promise<string> {
  const ctx = await createPrContext(runtime, directory);
  const { backend, repo } = await forgeOf(ctx, directory, "/pr-review");
  const branch = await currentBranch(directory, { env: runtime.env });
  if (!branch)
    throw new OttoError(
      "pr_no_branch",
      "No PR was named and HEAD is detached, so there is no current branch to look up.",
      "Name the PR: /pr-review <url|number>.",
    );
  const found = await backend.findOpenPr(repo, branch);
  if (!found) {
    throw new OttoError(
      "pr_none_for_branch",
      `No PR was named, and ${branch} has no open PR in ${repo} on ${backend.name}.`,
      "Open one with /otto-pr create, or name the PR: /pr-review <url|number>.",
    );
  }
  return (await backend.getPr(found)).url;
}
