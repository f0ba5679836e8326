import { randomUUID } from "node:crypto";

/*
 * The fake Azure DevOps world: one organization and project, repositories, pull requests, build
 * policies and their builds (with timelines and logs), and comment threads.
 */

export interface AdoIdentity {
  id: string;
  displayName: string;
  uniqueName: string;
}

export interface FakeAdoPr {
  id: number;
  repo: string;
  title: string;
  description: string;
  status: "active" | "completed" | "abandoned";
  isDraft: boolean;
  sourceRefName: string;
  targetRefName: string;
  sourceCommit: string;
  createdBy: AdoIdentity;
  creationDate: string;
  closedDate?: string;
  autoCompleteSetBy?: AdoIdentity;
}

export interface FakeBuild {
  id: number;
  definition: { id: number; name: string };
  status: "completed" | "inProgress" | "notStarted";
  result?: "succeeded" | "partiallySucceeded" | "failed" | "canceled";
  sourceBranch: string;
  sourceVersion: string;
  queueTime: string;
  prId: number;
}

export interface FakePolicy {
  evaluationId: string;
  configurationId: number;
  kind: "build" | "status" | "reviewers";
  displayName: string;
  status: "approved" | "rejected" | "running" | "queued" | "notApplicable" | "broken";
  buildId?: number;
}

export interface TimelineTask {
  id: string;
  name: string;
  result: "succeeded" | "failed" | "skipped";
  logId: number;
  issues: string[];
}

export interface FakeThread {
  id: number;
  prId: number;
  status: "active" | "fixed" | "wontFix" | "closed" | "byDesign" | "pending";
  filePath?: string;
  line?: number;
  comments: Array<{
    id: number;
    parentCommentId: number;
    content: string;
    author: AdoIdentity;
    publishedDate: string;
    commentType: "text" | "system";
  }>;
}

export interface CheckSpec {
  name: string;
  result?: FakeBuild["result"];
  status?: FakeBuild["status"];
  log?: string;
}

const BASE_TIME = Date.parse("2026-02-06T10:00:00Z");

export class AdoState {
  readonly org = "contoso";
  readonly project = { id: "6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c", name: "payments" };
  readonly me: AdoIdentity = { id: "d6245f20-2af8-44f4-9451-8107cb2767db", displayName: "Otto Bot", uniqueName: "otto@contoso.com" };
  repos = new Map<string, { id: string; name: string }>();
  prs: FakeAdoPr[] = [];
  builds: FakeBuild[] = [];
  policies = new Map<number, FakePolicy[]>();
  timelines = new Map<number, TimelineTask[]>();
  logs = new Map<string, string>();
  threads: FakeThread[] = [];
  /** Comments edited in place (`<thread>/<comment>`), in order. */
  edits: string[] = [];
  /** Reviewer votes per PR id (10 approved, 5 with suggestions, -5 waiting for author, -10 rejected). */
  votes = new Map<number, Array<{ who: AdoIdentity; vote: number }>>();
  /** Builds whose failed jobs were retried (PATCH builds/{id}?retry=true), in order. */
  retried: number[] = [];
  /** Policy evaluations re-queued (PATCH policy/evaluations/{id}), in order. */
  requeued: string[] = [];
  /** Work items created through the API (POST …/_apis/wit/workitems/$<type>), with their fields. */
  workItems: Array<{ id: number; type: string; fields: Record<string, unknown> }> = [];
  /** The project's one team (every project has a default team). */
  readonly team = { id: "9a3f1c2e-6b1d-4f0e-8d7c-3b5a2e1f0c4d", name: "payments Team" };
  /** Display names of people who comment without being in the project's team; everyone else is a member. */
  outsiders = new Set<string>();
  #people = new Map<string, AdoIdentity>();
  #ids = 100;
  #tick = 0;

  nextId(): number {
    return ++this.#ids;
  }

  time(): string {
    return new Date(BASE_TIME + ++this.#tick * 1000).toISOString();
  }

  repo(name: string): { id: string; name: string } {
    let repo = this.repos.get(name.toLowerCase()) ?? [...this.repos.values()].find((r) => r.id === name);
    if (!repo) {
      repo = { id: randomUUID(), name };
      this.repos.set(name.toLowerCase(), repo);
    }
    return repo;
  }

  /** The commit a branch points to, for PRs opened through the API (a test reads its bare remote); unset: a made-up one. */
  headOf?: (repo: string, branch: string) => string | undefined;
  /** Reviewers given when a PR was opened through the API, by PR id. */
  reviewersAtCreate = new Map<number, string[]>();

  addPr(input: {
    id: number;
    repo?: string;
    title?: string;
    branch?: string;
    target?: string;
    draft?: boolean;
    description?: string;
    createdBy?: AdoIdentity;
  }): FakeAdoPr {
    this.repo(input.repo ?? "app");
    const pr: FakeAdoPr = {
      id: input.id,
      repo: input.repo ?? "app",
      title: input.title ?? `Change ${input.id}`,
      description: input.description ?? "What this changes.",
      status: "active",
      isDraft: input.draft ?? false,
      sourceRefName: `refs/heads/${input.branch ?? `feature/${input.id}`}`,
      targetRefName: `refs/heads/${input.target ?? "main"}`,
      sourceCommit: this.headOf?.(input.repo ?? "app", input.branch ?? `feature/${input.id}`) ?? this.commit(),
      createdBy: input.createdBy ?? { id: randomUUID(), displayName: "Dev Eloper", uniqueName: "dev@contoso.com" },
      creationDate: this.time(),
    };
    this.prs.push(pr);
    return pr;
  }

  pr(id: number): FakeAdoPr | undefined {
    return this.prs.find((p) => p.id === id);
  }

  commit(): string {
    return this.nextId().toString(16).padStart(40, "c");
  }

  /** New builds for the PR's merge ref, one per check; with `policies`, each is a build policy too. */
  setChecks(pr: FakeAdoPr, checks: CheckSpec[], options: { policies?: boolean } = {}): void {
    const policies: FakePolicy[] = [];
    checks.forEach((check, index) => {
      const status = check.status ?? "completed";
      const build: FakeBuild = {
        id: this.nextId(),
        definition: { id: index + 1, name: check.name },
        status,
        ...(status === "completed" ? { result: check.result ?? "succeeded" } : {}),
        sourceBranch: `refs/pull/${pr.id}/merge`,
        sourceVersion: pr.sourceCommit,
        queueTime: this.time(),
        prId: pr.id,
      };
      this.builds.push(build);
      const failed = build.result === "failed";
      this.timelines.set(build.id, [
        { id: randomUUID(), name: "Checkout", result: "succeeded", logId: 1, issues: [] },
        {
          id: randomUUID(),
          name: check.name,
          result: failed ? "failed" : "succeeded",
          logId: 2,
          issues: failed ? ["Process completed with exit code 1."] : [],
        },
      ]);
      this.logs.set(`${build.id}/1`, "Syncing repository\n");
      this.logs.set(`${build.id}/2`, check.log ?? (failed ? `${check.name}: 1 failing\n` : `${check.name}: ok\n`));
      const policyStatus: FakePolicy["status"] =
        status !== "completed" ? "running" : failed || build.result === "canceled" ? "rejected" : "approved";
      policies.push({
        evaluationId: randomUUID(),
        configurationId: index + 10,
        kind: "build",
        displayName: check.name,
        status: policyStatus,
        buildId: build.id,
      });
    });
    if (options.policies !== false) {
      // Every real branch policy set has non-CI policies too; they must not count as checks.
      policies.push({
        evaluationId: randomUUID(),
        configurationId: 99,
        kind: "reviewers",
        displayName: "Minimum number of reviewers",
        status: "running",
      });
      this.policies.set(pr.id, policies);
    } else this.policies.set(pr.id, []);
  }

  /**
   * A push to the PR's source branch: a new iteration. Azure cancels the PR's builds that are still
   * running for the old merge commit (a PR trigger's `autoCancel`, on by default) and each build
   * policy queues a build of the new one. Returns the cancelled builds.
   * https://learn.microsoft.com/azure/devops/pipelines/yaml-schema/pr#properties (autoCancel)
   */
  newIteration(pr: FakeAdoPr, sha: string): FakeBuild[] {
    const cancelled = this.builds.filter((b) => b.prId === pr.id && b.status !== "completed");
    for (const build of cancelled) {
      build.status = "completed";
      build.result = "canceled";
    }
    pr.sourceCommit = sha;
    for (const policy of this.policies.get(pr.id) ?? []) {
      const old = this.builds.find((b) => b.id === policy.buildId);
      if (policy.kind !== "build" || !old) continue;
      const build: FakeBuild = { ...old, id: this.nextId(), status: "notStarted", sourceVersion: sha, queueTime: this.time() };
      delete build.result;
      this.builds.push(build);
      policy.buildId = build.id;
      policy.status = "queued";
    }
    return cancelled;
  }

  /** "Rerun failed jobs": the same build runs again (its failed jobs); undefined when it has none. */
  retryBuild(id: number): FakeBuild | undefined {
    const build = this.builds.find((b) => b.id === id);
    if (!build || build.status !== "completed" || (build.result !== "failed" && build.result !== "canceled")) return undefined;
    build.status = "inProgress";
    delete build.result;
    this.retried.push(id);
    // The policy that gates the PR on this build follows it.
    for (const policy of this.policies.get(build.prId) ?? []) if (policy.buildId === id) policy.status = "running";
    return build;
  }

  /** "Re-queue" on the PR page: a build policy queues a new build of the PR's current merge commit. */
  requeueEvaluation(evaluationId: string): { pr: FakeAdoPr; policy: FakePolicy } | undefined {
    for (const [prId, policies] of this.policies) {
      const policy = policies.find((p) => p.evaluationId === evaluationId);
      const pr = this.pr(prId);
      if (!policy || !pr) continue;
      this.requeued.push(evaluationId);
      // Only build policies act on a re-queue (the REST reference says so); others keep their state.
      if (policy.kind !== "build") return { pr, policy };
      const old = this.builds.find((b) => b.id === policy.buildId);
      const build: FakeBuild = {
        id: this.nextId(),
        definition: old?.definition ?? { id: policy.configurationId, name: policy.displayName },
        status: "notStarted",
        sourceBranch: `refs/pull/${pr.id}/merge`,
        sourceVersion: pr.sourceCommit,
        queueTime: this.time(),
        prId: pr.id,
      };
      this.builds.push(build);
      policy.buildId = build.id;
      policy.status = "queued";
      return { pr, policy };
    }
    return undefined;
  }

  pushCommit(pr: FakeAdoPr): string {
    pr.sourceCommit = this.commit();
    return pr.sourceCommit;
  }

  complete(pr: FakeAdoPr): void {
    pr.status = "completed";
    pr.closedDate = this.time();
  }

  abandon(pr: FakeAdoPr): void {
    pr.status = "abandoned";
    pr.closedDate = this.time();
  }

  addThread(
    pr: FakeAdoPr,
    input: { content: string; author?: string | AdoIdentity; filePath?: string; line?: number; status?: FakeThread["status"] },
  ): FakeThread {
    const thread: FakeThread = {
      id: this.nextId(),
      prId: pr.id,
      status: input.status ?? "active",
      ...(input.filePath ? { filePath: input.filePath, line: input.line ?? 1 } : {}),
      comments: [],
    };
    this.threads.push(thread);
    this.reply(thread, input.content, input.author ?? "Reviewer", 0);
    return thread;
  }

  /** One identity per display name, so a person's comments share an id. */
  identity(name: string): AdoIdentity {
    if (name === this.me.displayName) return this.me;
    let who = this.#people.get(name);
    if (!who) {
      who = { id: randomUUID(), displayName: name, uniqueName: `${name.toLowerCase().replace(/\s+/g, ".")}@contoso.com` };
      this.#people.set(name, who);
    }
    return who;
  }

  /** The team's members: the token's user and everyone who commented, except outsiders. */
  members(): AdoIdentity[] {
    return [this.me, ...[...this.#people.values()].filter((p) => !this.outsiders.has(p.displayName))];
  }

  /** `author`: a display name (one identity per name, a team member unless an outsider), or an identity of its own, in no team. */
  reply(thread: FakeThread, content: string, author: string | AdoIdentity, parentCommentId: number): void {
    const identity = typeof author === "string" ? this.identity(author) : author;
    thread.comments.push({
      id: thread.comments.length + 1,
      parentCommentId,
      content,
      author: identity,
      publishedDate: this.time(),
      commentType: "text",
    });
  }
}
