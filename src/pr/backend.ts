import type { Env } from "../core/index.ts";
import type { Config } from "../config/index.ts";
import type {
  AuthorAccess,
  Check,
  CommentAuthor,
  CommentResolution,
  InlineComment,
  NewPr,
  PipelineStatus,
  PrComment,
  PrInfo,
  PrLocator,
  PrReview,
  ProviderName,
  ReviewPost,
  WorkflowAction,
  WorkflowResult,
} from "./types.ts";

/** A response kept with its ETag, so an unchanged resource costs a 304 and nothing else. */
export interface CachedResponse {
  etag: string;
  value: unknown;
}

/** Per-PR store of conditional responses (the watcher keeps one file per PR). */
export interface ResponseCache {
  get(key: string): CachedResponse | undefined;
  set(key: string, value: CachedResponse): void;
}

export interface CallOptions {
  cache?: ResponseCache;
  signal?: AbortSignal;
}

export interface BaseCheckOptions extends CallOptions {
  /** The PR's failed check's logId: Azure DevOps reads its build's definition from it, and finds the base branch's builds by that definition's id. */
  logId?: string | undefined;
}

/** One PR as a repository's PR list shows it: enough to tell whether it changed. */
export interface PrSkim {
  /** The PR as the list has it (the description may be shortened). */
  pr: PrInfo;
  /** Changes whenever the PR changes in a way the list shows (head commit, state, title; GitHub's updated_at). */
  version: string;
}

/** The open PRs of one repository, read in as few requests as the forge allows. */
export interface RepoSkim {
  prs: Map<number, PrSkim>;
  /**
   * True when a new comment changes a PR's version (GitHub's updated_at); false when the list
   * cannot show comments (Azure DevOps), so a PR still being checked has its comments read too.
   */
  commentsInVersion: boolean;
}

/** Where a bare id was typed: the repository of the current directory, when there is one. */
export interface IdContext {
  /** The `origin` URL of the repository OpenCode runs in. */
  remoteUrl?: string;
}

/**
 * One forge behind otto's PR features. Implemented by `github/` and
 * `ado/`; everything outside src/pr talks to this interface and never to a provider by name.
 * Methods throw OttoError with a fix line (auth, not found); network trouble has been retried.
 */
export interface PrBackend {
  readonly name: ProviderName;
  /** True when the web URL's host belongs to this provider (github.com, dev.azure.com, configured hosts). */
  matchesUrl(url: URL): boolean;
  /** The PR a web URL points to; undefined when it is not a PR URL of this provider. */
  parseUrl(url: URL): PrLocator | undefined;
  /** A bare id (`42`, or `owner/repo#42` on GitHub) against the config and the current repository. */
  locateId(id: string, context: IdContext): PrLocator;

  /** The repository a remote URL (origin) names on this forge (`owner/repo`, `org/project/repo`); undefined when it is another forge's. */
  repoOfRemote(remoteUrl: string): string | undefined;
  /** The open PR whose source branch is `branch` in `repo`, if there is one. */
  findOpenPr(repo: string, branch: string): Promise<PrLocator | undefined>;
  /**
   * Opens a PR. Not retried blindly: after an answer that leaves the outcome unknown, the open PR
   * of the branch is looked up, so a PR is never opened twice.
   */
  createPr(pr: NewPr): Promise<{ pr: PrLocator; notes: string[] }>;

  getPr(pr: PrLocator, options?: CallOptions): Promise<PrInfo>;
  /**
   * The open PRs of `repo` (as PrLocator.repo spells it) from its PR list: one conditional request
   * per 100 open PRs on GitHub (no further page once every `tracked` number was seen), one
   * request on Azure DevOps. The watcher reads a PR in full only
   * when its version changed. Tracked PRs missing from the answer are closed, merged or beyond
   * the pages read; the caller reads those one by one.
   */
  skimRepo?(repo: string, tracked: readonly number[], options?: CallOptions): Promise<RepoSkim>;
  /**
   * The PRs of `repo` (open, merged and closed) that changed at or after `since`, newest first, at
   * most `max`: what rules learning reads (src/rules/signals). GitHub sorts by updated_at; Azure
   * DevOps lists no update time, so its active PRs all count and closed ones by their closing date.
   */
  listRecentPrs?(repo: string, since: Date, max: number): Promise<PrInfo[]>;
  getPipelineStatus(pr: PrInfo, options?: CallOptions): Promise<PipelineStatus>;
  /**
   * The newest completed run of the check `name` on the PR's target branch (the default branch's
   * own CI: GitHub's completed workflow runs on the branch, then the check runs of their commits;
   * Azure DevOps the branch's completed builds), or undefined when the branch has none. Its
   * `logId` reads with getBuildLogs. Used to tell a failure the PR inherited (docs/pr-fix.md).
   */
  baseCheck?(pr: PrInfo, name: string, options?: BaseCheckOptions): Promise<BaseCheck | undefined>;
  /** Logs of one failed check (its `logId`): the failed steps' output, trimmed to the end. */
  getBuildLogs(pr: PrInfo, logId: string, options?: CallOptions): Promise<string>;
  getComments(pr: PrInfo, options?: CallOptions): Promise<PrComment[]>;
  /**
   * Who the token acts as, as `authoredBy` compares it with a comment: the GitHub login
   * (`PrComment.author`), the Azure DevOps identity id (`PrComment.authorId`).
   */
  currentUser(pr: PrInfo): Promise<string>;
  /**
   * Whether each author may change the repository, keyed by `authorKey` (src/pr/comments/trust.ts):
   * GitHub asks the collaborator permission API (write, maintain, admin); Azure DevOps the
   * members of the project's teams. Answers are kept for the backend's life (one watcher cycle,
   * one command). Throws when the forge cannot be asked; the caller then trusts nobody.
   */
  authorAccess(pr: PrInfo, authors: readonly CommentAuthor[]): Promise<Map<string, AuthorAccess>>;
  /** Submitted reviews (GitHub) or reviewer votes (Azure DevOps), oldest first. */
  getReviews(pr: PrInfo, options?: CallOptions): Promise<PrReview[]>;
  postComment(pr: PrInfo, body: string): Promise<void>;
  /** Replaces the body of one of the token user's own conversation comments (otto's CI state, src/pr/ci/state.ts); idempotent. */
  editComment?(pr: PrInfo, commentId: string, body: string): Promise<void>;
  postInlineComment(pr: PrInfo, comment: InlineComment): Promise<void>;
  /** One review of the PR at `pr.headSha`: the body plus inline comments (lines must be inside the diff's hunks). */
  postReview(pr: PrInfo, review: ReviewPost): Promise<void>;
  replyToComment(pr: PrInfo, commentId: string, body: string): Promise<void>;
  /** Marks the comment's thread resolved; a comment kind without threads is left as is. */
  resolveComment(pr: PrInfo, commentId: string, resolution: CommentResolution): Promise<void>;
  /** Provider-specific lifecycle steps (auto-complete, work items, bots, re-runs). */
  runWorkflow(pr: PrInfo, action: WorkflowAction): Promise<WorkflowResult>;
  /**
   * Opens an issue (GitHub) or a Bug work item in the project (Azure DevOps) of `repo` and returns
   * its web page: a flaky test's report (docs/pr-fix.md, pr.flakes.open_issue). Throws like the
   * other methods, a token without the scope included (403).
   */
  openIssue?(repo: string, issue: NewIssue): Promise<{ url: string }>;
}

/** An issue or work item otto opens: a title and a markdown body, both already sanitized for posting. */
export interface NewIssue {
  title: string;
  body: string;
}

/** A check's newest completed run on a branch: its state, the commit it ran on, and where its log is. */
export interface BaseCheck {
  state: Check["state"];
  sha: string;
  logId?: string;
  url?: string;
}

/** A subprocess result, as every otto runner returns it. */
export interface ExecResult {
  exitCode: number | undefined;
  stdout: string;
}

/** Side effects the backends use, injected so tests pass fakes and timing runs in milliseconds. */
export interface BackendDeps {
  config: Config;
  env: Env;
  fetch: typeof globalThis.fetch;
  /** Runs a CLI (gh, az) for a token; resolves with exitCode undefined when it is not installed. */
  exec: (file: string, args: string[], options: { timeoutMs: number }) => Promise<ExecResult>;
  sleep: (ms: number) => Promise<void>;
  /** Base of every retry delay (1 s in production: GitHub's and Azure DevOps's guidance is seconds). */
  retryBaseMs: number;
  log: (message: string, extra?: Record<string, unknown>) => void;
  /**
   * The values redacted from everything otto posts and logs (LoadedConfig.secrets, shared by
   * reference): a token a CLI hands out at run time (gh, az) is added to it (see token.ts).
   */
  secrets?: string[];
}

export type BackendFactory = (deps: BackendDeps) => PrBackend;

/**
 * The shape of a Bottleneck group as plugin-throttling uses it for writes. GitHub asks for a
 * second between content-creating requests (three for notifying ones), which the plugin enforces
 * process-wide.
 * https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#pause-between-mutative-requests
 */
export interface WriteLimiter {
  key(id: string): { schedule(options: unknown, task: (...args: never[]) => unknown, ...args: unknown[]): Promise<unknown> };
}

/** Runs every write at once: a GitHub without secondary rate limits (pr.providers.github.pause_writes: false). */
export const IMMEDIATE_WRITES: WriteLimiter = {
  key: () => ({
    schedule: async (_options: unknown, task: (...args: never[]) => unknown, ...args: unknown[]) =>
      (task as (...a: unknown[]) => unknown)(...args),
  }),
};

/** How writes are spaced: at once when the pauses are off; else by no limiter of otto's, so the throttling plugin keeps GitHub.com's pauses (process-wide). */
export function writeLimiterOption(pause: boolean): { writeLimiter?: WriteLimiter } {
  return pause ? {} : { writeLimiter: IMMEDIATE_WRITES };
}
