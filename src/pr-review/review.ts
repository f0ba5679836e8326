import { findRepoRoot, modelRoles } from "../config/index.ts";
import { Account, withAccount } from "../cost/index.ts";
import { OttoError, formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import {
  createPrContext,
  documentKey,
  locatePr,
  originUrl,
  type PrBackend,
  type PrContext,
  type PrInfo,
  type PrLocator,
} from "../pr/index.ts";
import { formatModel, resolveRoleModel } from "../session/index.ts";
import { checkoutPr } from "./checkout.ts";
import { draftsDir, saveDraft, type Draft } from "./draft.ts";
import { renderExistingComments } from "./existing-comments.ts";
import { postReviewFromDraft, type PostResult } from "./post.ts";
import { renderSpend, renderTable, spendLine } from "./render.ts";
import { reviewCheckout } from "./run-review.ts";
import { stripOpenCodeConfig, strippedLines } from "./untrusted-config.ts";

export interface ReviewInput {
  runtime: Runtime;
  /** Where the command runs (the tool's directory). */
  directory: string;
  /** The PR: a URL, a number, or `owner/repo#n`. */
  target: string;
  provider?: string;
  focus?: string;
  /** --post all: post every comment (and the summary) right away, without approval. */
  postAll: boolean;
  /** The invoking session: the review session shows under it, and its model is the fallback. */
  sessionID: string;
  signal?: AbortSignal;
  progress(message: string): void;
}

export interface ReadPr {
  pr: PrInfo;
  backend: PrBackend;
  ctx: PrContext;
}

/** Which PR the user means (a URL, a number, `owner/repo#n`), without reading it. */
export async function locateTarget(
  ctx: PrContext,
  directory: string,
  target: string,
  provider?: string,
): Promise<{ backend: PrBackend; locator: PrLocator }> {
  const remote = await originUrl(directory);
  return locatePr(ctx.registry, {
    text: target,
    ...(provider === undefined ? {} : { provider }),
    ...(ctx.loaded.config.pr.default_provider ? { defaultProvider: ctx.loaded.config.pr.default_provider } : {}),
    context: remote ? { remoteUrl: remote } : {},
  });
}

/** Reads the PR from its forge: the one the user typed, or a known locator (a draft's). */
export async function readPr(runtime: Runtime, directory: string, target: string | PrLocator, provider?: string): Promise<ReadPr> {
  const ctx = await createPrContext(runtime, directory);
  const { backend, locator } =
    typeof target === "string"
      ? await locateTarget(ctx, directory, target, provider)
      : { backend: ctx.registry.get(target.provider), locator: target };
  return { pr: await backend.getPr(locator), backend, ctx };
}

/** The PR's open comments for the prompt; a forge error only costs the reviewer that context. */
async function readExistingComments(backend: PrBackend, pr: PrInfo, runtime: Runtime): Promise<string | undefined> {
  try {
    return renderExistingComments(await backend.getComments(pr));
  } catch (error) {
    runtime.log.log("warn", `pr-review: could not read the comments of PR #${pr.number}`, { error: formatError(error) });
    return undefined;
  }
}

/**
 * /pr-review <url|number>: checks out the PR, runs one read-only review session there, checks the
 * comments against the diff and saves them as a draft (posted right away with --post all).
 */
export async function reviewPr(input: ReviewInput): Promise<string> {
  const { runtime } = input;
  input.progress("pr-review: reading the PR");
  const { pr, backend, ctx } = await readPr(runtime, input.directory, input.target, input.provider);
  if (pr.state !== "open")
    throw new OttoError("pr_not_open", `PR #${pr.number} (${pr.repo}) is ${pr.state}; there is nothing to review.`, "Review an open PR.");
  const config = ctx.loaded.config;
  const secrets = ctx.loaded.secrets;
  const roles = modelRoles(config);
  // The first reviewer model reviews; without models.reviewers, the primary; without either, the session's model.
  const configured = roles.reviewers?.[0] ?? roles.primary;
  const role = await resolveRoleModel(roles.reviewers?.[0] ? "reviewers" : "primary", configured, {
    client: runtime.client,
    sessionID: input.sessionID,
    directory: input.directory,
    once: runtime.once,
    log: runtime.log,
  });
  // The review's spend, per reviewer model: the ledger's labels let /otto-cost --by pr find it.
  const key = documentKey(pr);
  const repoRoot = (await findRepoRoot(input.directory)) ?? input.directory;
  const account = new Account(`pr-review ${key}`, {
    labels: { repo: repoRoot, pr: `${pr.repo}#${pr.number}`, review: key },
  });
  const lines = [`Fetching PR #${pr.number}... done: ${pr.title} (${pr.sourceBranch} → ${pr.targetBranch}, ${pr.repo})`];

  input.progress(`pr-review: checking out ${pr.sourceBranch}`);
  const checkout = await checkoutPr({ pr, repos: config.repos, cwd: input.directory, env: runtime.env, log: runtime.log });
  let draft: Draft;
  try {
    lines.push(`Checked out ${pr.sourceBranch}: ${checkout.how}`);
    // Before the first session there: OpenCode loads the directory's configuration when it opens one.
    const stripped = await stripOpenCodeConfig({
      pr,
      dir: checkout.dir,
      temporary: checkout.temporary,
      target: `${checkout.remote}/${pr.targetBranch}`,
      env: runtime.env,
    });
    lines.push(...strippedLines(stripped));
    draft = await withAccount(account.child(`reviewer ${formatModel(role.model)}`), () =>
      reviewCheckout({
        runtime,
        pr,
        checkout,
        model: role.model,
        secrets,
        sessionID: input.sessionID,
        ...(input.focus ? { focus: input.focus } : {}),
        ...(stripped?.diff ? { openCodeConfigDiff: stripped.diff } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
        progress: (message) => input.progress(message),
        report: (line) => lines.push(line),
        existingComments: () => readExistingComments(backend, pr, runtime),
        rulesKey: repoRoot,
      }),
    );
  } finally {
    await checkout.release();
  }
  if (checkout.temporary) lines.push("Removed the temporary worktree.");
  const file = await saveDraft(draftsDir(runtime.env), draft);
  const outside = draft.comments.filter((c) => !c.inDiff).length;
  lines.push(
    `Generated ${draft.comments.length} review comment${draft.comments.length === 1 ? "" : "s"}${outside > 0 ? ` (${outside} outside the diff: posted in the review's summary)` : ""}.`,
    "",
  );
  if (role.note) lines.splice(1, 0, `Note: ${role.note}`);
  lines.push(renderTable(draft.comments), "");
  if (draft.summary) lines.push(`**Summary**: ${draft.summary}`, "");
  // The review session is closed: its counts are exact once the meter has written them.
  await runtime.sessions.meter?.flush();
  lines.unshift(spendLine(pr.number, account.usage), "");
  lines.push(renderSpend(account.byModel, account.usage), "");

  if (input.postAll) {
    if (draft.comments.length === 0 && !draft.summary) return [...lines, "Nothing to post."].join("\n");
    input.progress(`pr-review: posting on PR #${pr.number}`);
    const result = await postReviewFromDraft({ file, backend, pr, ids: draft.comments.map((c) => c.id), summary: true, secrets });
    return [...lines, postedLine(result)].join("\n");
  }
  lines.push(`Draft saved: ${file}`);
  lines.push(
    draft.comments.length > 0
      ? `Post with /pr-review post <ids|all> [--summary], e.g. /pr-review post ${draft.comments
          .map((c) => c.id)
          .slice(0, 2)
          .join(",")}.`
      : "Nothing to post; /pr-review post all --summary posts the summary.",
  );
  return lines.join("\n");
}

/** "Posted 2 inline comments and the summary on PR #5 as one review: <url>" */
export function postedLine(result: PostResult): string {
  const { draft, inline, outside } = result;
  const parts = [`${inline.length} inline comment${inline.length === 1 ? "" : "s"}`];
  if (outside.length > 0) parts.push(`${outside.length} in the summary (outside the diff)`);
  const review = draft.pr.provider === "github" ? "as one review" : "(one thread per comment, plus a summary thread)";
  const notes = [
    ...(result.skipped.length > 0 ? [`Skipped ${result.skipped.join(", ")}: posted already.`] : []),
    ...(result.moved ? ["The PR has new commits since the review; the comments are anchored to the reviewed commit."] : []),
  ];
  return [`Posted ${parts.join(" and ")} on PR #${draft.pr.number} ${review}: ${draft.pr.url}`, ...notes].join("\n");
}
