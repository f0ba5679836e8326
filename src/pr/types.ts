import { z } from "zod";

/*
 * The provider-neutral model of a pull request, its pipeline status and its comments.
 * Backends map their payloads into these; the store, the watcher and the tools only
 * ever see these shapes.
 */

export const ProviderName = z.enum(["github", "ado"]);
export type ProviderName = z.infer<typeof ProviderName>;

/** Where a PR lives: enough to call its provider again. */
export const PrLocator = z.object({
  provider: ProviderName,
  /** The provider's PR number. */
  number: z.number().int().positive(),
  /** github: `owner/repo`; ado: `org/project/repo` (or `org/project` before the PR was read). */
  repo: z.string().min(1),
});
export type PrLocator = z.infer<typeof PrLocator>;

/** A PR to open (`/otto-pr create`): the branch is pushed already. */
export interface NewPr {
  /** github: `owner/repo`; ado: `org/project/repo`. */
  repo: string;
  source: string;
  target: string;
  title: string;
  body: string;
  draft: boolean;
  /** GitHub logins; Azure DevOps identity ids. */
  reviewers: string[];
}

export const PrState = z.enum(["open", "merged", "closed", "abandoned"]);
export type PrState = z.infer<typeof PrState>;

export interface PrInfo extends PrLocator {
  /** The PR's web page. */
  url: string;
  title: string;
  /** The PR's description (body), as the author wrote it; "" when empty. */
  description?: string;
  state: PrState;
  draft: boolean;
  sourceBranch: string;
  targetBranch: string;
  /** The commit CI runs on (GitHub head SHA, Azure DevOps last merge source commit). */
  headSha: string;
  author: string;
  createdAt: string;
  /** Ids the backend needs again (repository or project ids, node ids); opaque to everyone else. */
  meta: Record<string, string>;
  /**
   * The head branch lives in another repository (a fork): otto's clone cannot push to it, so the
   * fix flow refuses such PRs. Undefined when the provider did not say.
   */
  fork?: boolean;
  /** The repository of the head branch when it is a fork (`owner/repo`, or the Azure DevOps repository name). */
  headRepo?: string;
  /** The author's stable id and sign-in name (Azure DevOps identity id and uniqueName), for the trust check. */
  authorId?: string;
  authorLogin?: string;
  /** When the PR last changed, as its forge's list says (GitHub updated_at; Azure DevOps: closed date, else creation). */
  updatedAt?: string;
}

export const CheckState = z.enum(["pending", "success", "failure", "skipped"]);
export type CheckState = z.infer<typeof CheckState>;

export const Check = z.object({
  name: z.string(),
  state: CheckState,
  /** Why it failed or what it waits for, when the provider says. */
  detail: z.string().optional(),
  url: z.string().optional(),
  /** Pass to getBuildLogs for this check's logs (GitHub Actions job id, Azure DevOps build id). */
  logId: z.string().optional(),
});
export type Check = z.infer<typeof Check>;

export interface PipelineStatus {
  /** success: every check passed (or was skipped) and there is at least one; none: no checks at all. */
  state: "pending" | "success" | "failure" | "none";
  headSha: string;
  checks: Check[];
}

export interface PrComment {
  /** Unique within the PR across comment kinds, stable across polls (e.g. `review-123`, `12/3`). */
  id: string;
  kind: "conversation" | "inline";
  author: string;
  body: string;
  createdAt: string;
  path?: string;
  line?: number;
  resolved: boolean;
  /** The comment this one answers, when it is a reply. */
  inReplyTo?: string;
  url?: string;
  /** GitHub's author_association on the comment (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, …); absent elsewhere. */
  association?: string;
  /** The forge's stable id of the author (Azure DevOps identity id), when it gives one. */
  authorId?: string;
  /** The author's sign-in name when it differs from `author` (Azure DevOps uniqueName, e.g. an email). */
  authorLogin?: string;
  /**
   * How its thread was closed, when the forge says (Azure DevOps: fixed, won't fix, by design,
   * closed); GitHub resolves threads without a reason. What rules learning reads (src/rules/signals).
   */
  resolution?: CommentResolution;
  /**
   * The commented lines changed in a later commit (GitHub shows the comment as outdated: its
   * `line` is null). Undefined when the forge does not say.
   */
  outdated?: boolean;
}

/** A comment's author, as the trust check asks the forge about them. */
export type CommentAuthor = Pick<PrComment, "author" | "authorId" | "authorLogin">;

/**
 * What the forge says about an author: `write` can push to the repository (GitHub write, maintain
 * or admin) or is a member of the project (Azure DevOps); `none` cannot.
 */
export type AuthorAccess = "write" | "none";

/**
 * Whether `me` (the token's user as `currentUser` gives it: a GitHub login, an Azure DevOps
 * identity id) wrote the comment. By the forge's id when it gives one: an Azure DevOps display
 * name is anyone's to pick, so it never says who wrote a comment.
 */
export function authoredBy(comment: CommentAuthor, me: string | undefined): boolean {
  if (me === undefined) return false;
  return (comment.authorId ?? comment.author).trim().toLowerCase() === me.trim().toLowerCase();
}

/** The key an author's access is looked up and kept under: the most stable name the forge gave. */
export function authorKey(author: CommentAuthor): string {
  return (author.authorId ?? author.authorLogin ?? author.author).trim().toLowerCase();
}

/** A submitted review of the PR (GitHub reviews; Azure DevOps reviewer votes). */
export interface PrReview {
  author: string;
  /**
   * GitHub's author_association (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, …). Azure DevOps
   * has none: anyone who can vote is a project member, so its reviews say MEMBER.
   */
  association: string;
  state: "approved" | "changes_requested" | "commented" | "dismissed" | "pending";
  submittedAt?: string;
  /** The forge's own words for the verdict, shown in reports instead of the association (Azure DevOps: `vote -10: rejected`). */
  note?: string;
}

/** A review posted at once: GitHub one review with inline comments; Azure DevOps one thread per comment and one for the body. */
export interface ReviewPost {
  body: string;
  comments: InlineComment[];
}

export interface InlineComment {
  path: string;
  line: number;
  body: string;
  /** LEFT: the old version of the file, RIGHT: the new one. */
  side: "LEFT" | "RIGHT";
}

/**
 * What to do with a comment's thread: the three resolutions, plus closing it without a
 * verdict and reopening it (`active`).
 */
export const CommentResolution = z.enum(["resolved", "wont_fix", "by_design", "closed", "active"]);
export type CommentResolution = z.infer<typeof CommentResolution>;

export const WorkflowAction = z.enum(["auto_complete", "create_work_item", "address_bot", "rerun_failed"]);
export type WorkflowAction = z.infer<typeof WorkflowAction>;

export interface WorkflowResult {
  /** False when the provider has no such step (GitHub has no auto-complete); not an error. */
  done: boolean;
  message: string;
}
