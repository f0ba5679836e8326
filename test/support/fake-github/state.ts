/*
 * The fake GitHub's in-memory world: pull requests, check runs, commit statuses, comments,
 * review threads and job logs. Tests change it directly (push a commit, fail a check, merge).
 */

export interface FakeUser {
  login: string;
  id: number;
}

export interface FakePr {
  owner: string;
  repo: string;
  number: number;
  id: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  head: { ref: string; sha: string };
  /** Set for a PR from a fork: the repository the head branch lives in. */
  headRepo?: { owner: string; repo: string };
  base: { ref: string; sha: string };
  user: FakeUser;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  /**
   * New-side lines inside the diff's hunks per file, when a test sets it: review comments elsewhere
   * are refused with GitHub's 422, as the real API does. Unset: every line is accepted.
   */
  diffLines?: Record<string, number[]>;
}

export type Conclusion = "success" | "failure" | "neutral" | "cancelled" | "skipped" | "timed_out" | "action_required";

export interface FakeCheckRun {
  id: number;
  owner: string;
  repo: string;
  head_sha: string;
  name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: Conclusion | null;
  started_at: string;
  completed_at: string | null;
  app: "github-actions" | "other-ci";
  output: { title: string | null; summary: string | null };
  run_id: number;
}

export interface FakeStatus {
  id: number;
  sha: string;
  context: string;
  state: "success" | "failure" | "pending" | "error";
  description: string | null;
  target_url: string | null;
  created_at: string;
}

export interface FakeComment {
  id: number;
  owner: string;
  repo: string;
  number: number;
  body: string;
  user: FakeUser;
  created_at: string;
  author_association: AuthorAssociation;
}

export interface FakeReviewComment extends FakeComment {
  path: string;
  line: number;
  side: "LEFT" | "RIGHT";
  commit_id: string;
  in_reply_to_id?: number;
  thread: string;
  /** The review it was submitted with (POST …/reviews). */
  review_id?: number;
  /** A later commit changed its lines: GitHub then shows it as outdated, without a `line` on the head. */
  outdated?: boolean;
}

/** https://docs.github.com/en/rest/pulls/reviews (state values) */
export type ReviewState = "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";

/** The legacy base roles the permission API answers with (maintain shows as write, triage as read). */
export type Permission = "admin" | "write" | "read" | "none";

/** GitHub's author_association: how the author relates to the repository. */
export type AuthorAssociation =
  "OWNER" | "MEMBER" | "COLLABORATOR" | "CONTRIBUTOR" | "FIRST_TIMER" | "FIRST_TIME_CONTRIBUTOR" | "MANNEQUIN" | "NONE";

export interface FakeReview {
  id: number;
  owner: string;
  repo: string;
  number: number;
  user: FakeUser;
  body: string;
  state: ReviewState;
  commit_id: string;
  submitted_at: string | undefined;
  author_association: AuthorAssociation;
}

/** An issue opened through the API (POST /repos/{owner}/{repo}/issues). */
export interface FakeIssue {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  user: FakeUser;
  created_at: string;
}

export interface CheckSpec {
  name: string;
  status?: FakeCheckRun["status"];
  conclusion?: Conclusion;
  app?: FakeCheckRun["app"];
  title?: string;
  /** The job's log (Actions checks), served through the 302 redirect. */
  log?: string;
}

const BASE_TIME = Date.parse("2026-02-06T10:00:00Z");

export class GithubState {
  prs: FakePr[] = [];
  checkRuns: FakeCheckRun[] = [];
  statuses: FakeStatus[] = [];
  comments: FakeComment[] = [];
  reviewComments: FakeReviewComment[] = [];
  reviews: FakeReview[] = [];
  issues: FakeIssue[] = [];
  /** author_association of users on every repository (default COLLABORATOR: a test's reviewers can write). */
  associations = new Map<string, AuthorAssociation>();
  /**
   * Repository permission of users (GET …/collaborators/{username}/permission); unset: admin for
   * OWNER, write for MEMBER and COLLABORATOR, read for everyone else (anyone can read a public repository).
   */
  permissions = new Map<string, Permission>();
  threads = new Map<string, { resolved: boolean }>();
  logs = new Map<number, string>();
  rerunRuns: number[] = [];
  /** Conversation comments edited in place (PATCH …/issues/comments/{id}), by id, in order. */
  edits: number[] = [];
  /** Reviewers requested per PR number (POST …/requested_reviewers). */
  requestedReviewers = new Map<number, string[]>();
  /**
   * The commit a branch points to on the repository, for PRs opened through the API (a test reads
   * its bare remote); unset: a made-up sha.
   */
  headOf?: (owner: string, repo: string, branch: string) => string | undefined;
  #ids = 1000;
  #tick = 0;

  nextId(): number {
    return ++this.#ids;
  }

  /** Resolves (or reopens) the review thread of a comment, as a person does on the PR page. */
  resolveThread(comment: FakeReviewComment, resolved = true): void {
    this.threads.set(comment.thread, { resolved });
  }

  /** Monotonic fake time, one second per change. */
  time(): string {
    return new Date(BASE_TIME + ++this.#tick * 1000).toISOString();
  }

  sha(): string {
    return this.nextId().toString(16).padStart(40, "a");
  }

  associationOf(login: string): AuthorAssociation {
    return this.associations.get(login) ?? "COLLABORATOR";
  }

  permissionOf(login: string): Permission {
    const set = this.permissions.get(login);
    if (set) return set;
    const association = this.associationOf(login);
    if (association === "OWNER") return "admin";
    return association === "MEMBER" || association === "COLLABORATOR" ? "write" : "read";
  }

  /** A drive-by commenter: no association with the repository, read access only. */
  stranger(login: string, association: AuthorAssociation = "NONE"): void {
    this.associations.set(login, association);
    this.permissions.set(login, "read");
  }

  user(login: string): FakeUser {
    return { login, id: [...login].reduce((n, c) => n * 31 + c.charCodeAt(0), 7) % 1_000_000 };
  }

  /** The next free PR number of a repository (issues and PRs share the sequence; the fake starts at 1). */
  nextNumber(owner: string, repo: string): number {
    const numbers = [...this.prs, ...this.issues].filter((p) => p.owner === owner && p.repo === repo).map((p) => p.number);
    return Math.max(0, ...numbers) + 1;
  }

  addPr(input: {
    owner?: string;
    repo?: string;
    number: number;
    title?: string;
    branch?: string;
    base?: string;
    author?: string;
    draft?: boolean;
    fork?: { owner: string; repo: string };
    body?: string;
  }): FakePr {
    const now = this.time();
    const pr: FakePr = {
      owner: input.owner ?? "octo",
      repo: input.repo ?? "app",
      number: input.number,
      id: this.nextId(),
      title: input.title ?? `Change ${input.number}`,
      body: input.body ?? "What this changes.",
      state: "open",
      merged: false,
      draft: input.draft ?? false,
      head: {
        ref: input.branch ?? `feature/${input.number}`,
        sha: this.headOf?.(input.owner ?? "octo", input.repo ?? "app", input.branch ?? `feature/${input.number}`) ?? this.sha(),
      },
      ...(input.fork ? { headRepo: input.fork } : {}),
      base: { ref: input.base ?? "main", sha: this.sha() },
      user: this.user(input.author ?? "dev"),
      created_at: now,
      updated_at: now,
      closed_at: null,
      merged_at: null,
    };
    this.prs.push(pr);
    return pr;
  }

  pr(owner: string, repo: string, number: number): FakePr | undefined {
    return this.prs.find(
      (p) => p.owner.toLowerCase() === owner.toLowerCase() && p.repo.toLowerCase() === repo.toLowerCase() && p.number === number,
    );
  }

  /** Replaces the check runs of `sha` (a new run of the same name replaces the old one on GitHub too). */
  setChecks(pr: FakePr, checks: CheckSpec[], sha = pr.head.sha): void {
    this.checkRuns = this.checkRuns.filter((r) => r.head_sha !== sha);
    for (const spec of checks) {
      const status = spec.status ?? "completed";
      const run: FakeCheckRun = {
        id: this.nextId(),
        owner: pr.owner,
        repo: pr.repo,
        head_sha: sha,
        name: spec.name,
        status,
        conclusion: status === "completed" ? (spec.conclusion ?? "success") : null,
        started_at: this.time(),
        completed_at: status === "completed" ? this.time() : null,
        app: spec.app ?? "github-actions",
        output: { title: spec.title ?? (spec.conclusion === "failure" ? `${spec.name} failed` : null), summary: null },
        run_id: 9000 + this.#ids,
      };
      this.checkRuns.push(run);
      if (run.app === "github-actions") this.logs.set(run.id, spec.log ?? `##[group]Run ${spec.name}\nok\n##[endgroup]\n`);
    }
  }

  setStatus(pr: FakePr, context: string, state: FakeStatus["state"], description: string | null = null, sha = pr.head.sha): void {
    this.statuses = this.statuses.filter((s) => !(s.sha === sha && s.context === context));
    this.statuses.push({
      id: this.nextId(),
      sha,
      context,
      state,
      description,
      target_url: `https://ci.example.com/${context}`,
      created_at: this.time(),
    });
  }

  pushCommit(pr: FakePr): string {
    pr.head.sha = this.sha();
    pr.updated_at = this.time();
    return pr.head.sha;
  }

  merge(pr: FakePr): void {
    pr.state = "closed";
    pr.merged = true;
    pr.merged_at = pr.closed_at = pr.updated_at = this.time();
  }

  close(pr: FakePr): void {
    pr.state = "closed";
    pr.closed_at = pr.updated_at = this.time();
  }

  // GitHub moves a PR's updated_at with every comment, review and review comment, as with a push.
  addComment(pr: FakePr, body: string, author = "reviewer"): FakeComment {
    const comment = {
      id: this.nextId(),
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      body,
      user: this.user(author),
      created_at: this.time(),
      author_association: this.associationOf(author),
    };
    this.comments.push(comment);
    pr.updated_at = comment.created_at;
    return comment;
  }

  /** A submitted review (or a pending one); its inline comments are added with addReviewComment({ reviewId }). */
  addReview(
    pr: FakePr,
    input: { author?: string; state?: ReviewState; body?: string; association?: AuthorAssociation; commitId?: string } = {},
  ): FakeReview {
    const login = input.author ?? "reviewer";
    const state = input.state ?? "COMMENTED";
    const review: FakeReview = {
      id: this.nextId(),
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      user: this.user(login),
      body: input.body ?? "",
      state,
      commit_id: input.commitId ?? pr.head.sha,
      submitted_at: state === "PENDING" ? undefined : this.time(),
      author_association: input.association ?? this.associationOf(login),
    };
    this.reviews.push(review);
    if (review.submitted_at) pr.updated_at = review.submitted_at;
    return review;
  }

  addReviewComment(
    pr: FakePr,
    input: { path: string; line: number; body: string; author?: string; inReplyTo?: number; side?: "LEFT" | "RIGHT"; reviewId?: number },
  ): FakeReviewComment {
    const parent = input.inReplyTo === undefined ? undefined : this.reviewComments.find((c) => c.id === input.inReplyTo);
    const thread = parent?.thread ?? `PRRT_${this.nextId()}`;
    if (!this.threads.has(thread)) this.threads.set(thread, { resolved: false });
    const comment: FakeReviewComment = {
      id: this.nextId(),
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      body: input.body,
      user: this.user(input.author ?? "reviewer"),
      created_at: this.time(),
      author_association: this.associationOf(input.author ?? "reviewer"),
      path: parent?.path ?? input.path,
      line: parent?.line ?? input.line,
      side: input.side ?? "RIGHT",
      commit_id: pr.head.sha,
      thread,
      ...(parent ? { in_reply_to_id: parent.id } : {}),
      ...(input.reviewId === undefined ? {} : { review_id: input.reviewId }),
    };
    this.reviewComments.push(comment);
    pr.updated_at = comment.created_at;
    return comment;
  }
}
