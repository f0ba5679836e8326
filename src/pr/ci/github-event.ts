import { OttoError } from "../../core/index.ts";
import { GITHUB_VARS } from "./variables.ts";
import { nothing, type CiEvent, type EventComment } from "./event.ts";

/*
 * GitHub Actions: GITHUB_EVENT_NAME and the webhook payload at GITHUB_EVENT_PATH
 * (https://docs.github.com/en/webhooks/webhook-events-and-payloads). Pure apart from the payload
 * read through `readFile`. Fork PRs are refused here when the payload says so (the PR read later
 * says it again): otto cannot push to a fork and its comments are a stranger's.
 */

type Env = Readonly<Record<string, string | undefined>>;

interface Repo {
  full_name?: string;
}
interface User {
  login?: string;
  id?: number;
}
interface PullRef {
  number?: number;
  head?: { ref?: string; sha?: string; repo?: Repo | null };
  base?: { repo?: Repo | null };
  state?: string;
}
interface Payload {
  action?: string;
  repository?: Repo;
  workflow_run?: {
    conclusion?: string | null;
    head_sha?: string;
    head_branch?: string | null;
    head_repository?: Repo | null;
    pull_requests?: PullRef[];
    name?: string;
  };
  check_suite?: { conclusion?: string | null; head_sha?: string; head_branch?: string | null; pull_requests?: PullRef[] };
  issue?: { number?: number; pull_request?: unknown; state?: string };
  comment?: { id?: number; body?: string | null; user?: User | null; author_association?: string; created_at?: string };
  review?: { id?: number; body?: string | null; user?: User | null; author_association?: string; submitted_at?: string | null };
  pull_request?: PullRef;
}

const lower = (s: string | undefined | null): string => (s ?? "").toLowerCase();

/** The event of the GitHub Actions job `env` describes. */
export async function readGithubEvent(env: Env, readFile: (file: string) => Promise<string>): Promise<CiEvent> {
  const name = env[GITHUB_VARS.eventName];
  const file = env[GITHUB_VARS.eventPath];
  if (!name || !file) {
    throw new OttoError(
      "ci_event",
      `${GITHUB_VARS.eventName} and ${GITHUB_VARS.eventPath} must both be set in a GitHub Actions job.`,
      "Run /otto-pr ci from a workflow step (GitHub sets both), or set them by hand to replay an event.",
    );
  }
  let payload: Payload;
  try {
    payload = JSON.parse(await readFile(file)) as Payload;
  } catch (error) {
    throw new OttoError(
      "ci_event",
      `Could not read the event payload ${file}: ${error instanceof Error ? error.message : String(error)}.`,
      `${GITHUB_VARS.eventPath} must name the webhook payload's JSON file, as GitHub Actions sets it.`,
    );
  }
  const repo = payload.repository?.full_name ?? env[GITHUB_VARS.repository];
  if (!repo)
    throw new OttoError(
      "ci_event",
      `The event names no repository, and ${GITHUB_VARS.repository} is not set.`,
      `Set ${GITHUB_VARS.repository} to owner/repo.`,
    );
  return githubEvent(name, payload, repo);
}

/** Pure: the event `name` with `payload` in `repo`. */
export function githubEvent(name: string, payload: Payload, repo: string): CiEvent {
  const source = `${name}${payload.action ? `.${payload.action}` : ""}`;
  switch (name) {
    case "workflow_run": {
      const run = payload.workflow_run;
      if (payload.action !== "completed" || !run) return nothing(`${source}: otto acts on completed runs only`);
      if (run.conclusion !== "failure") return nothing(`${source}: the run's conclusion is ${run.conclusion ?? "none"}, not failure`);
      if (run.head_repository?.full_name && lower(run.head_repository.full_name) !== lower(repo))
        return nothing(`${source}: the run is of a fork's branch (${run.head_repository.full_name}); otto does not work on fork PRs`);
      return failure(repo, source, run.pull_requests, run.head_branch, run.head_sha);
    }
    case "check_suite": {
      const suite = payload.check_suite;
      if (payload.action !== "completed" || !suite) return nothing(`${source}: otto acts on completed check suites only`);
      if (suite.conclusion !== "failure") return nothing(`${source}: the suite's conclusion is ${suite.conclusion ?? "none"}, not failure`);
      return failure(repo, source, suite.pull_requests, suite.head_branch, suite.head_sha);
    }
    case "issue_comment": {
      if (payload.action !== "created") return nothing(`${source}: otto acts on new comments only`);
      if (!payload.issue?.pull_request) return nothing(`${source}: a comment on an issue, not on a pull request`);
      const c = payload.comment;
      if (!c?.id || !payload.issue.number) return nothing(`${source}: the payload has no comment`);
      return comment(repo, source, payload.issue.number, { id: `issue-${c.id}`, ...written(c, c.created_at) });
    }
    case "pull_request_review_comment": {
      if (payload.action !== "created") return nothing(`${source}: otto acts on new review comments only`);
      const c = payload.comment;
      const pr = payload.pull_request;
      if (!c?.id || !pr?.number) return nothing(`${source}: the payload has no comment`);
      if (isFork(pr, repo)) return forkNothing(source, pr);
      return comment(repo, source, pr.number, { id: `review-${c.id}`, ...written(c, c.created_at) });
    }
    case "pull_request_review": {
      if (payload.action !== "submitted") return nothing(`${source}: otto acts on submitted reviews only`);
      const r = payload.review;
      const pr = payload.pull_request;
      if (!r || !pr?.number) return nothing(`${source}: the payload has no review`);
      if (isFork(pr, repo)) return forkNothing(source, pr);
      return comment(repo, source, pr.number, written(r, r.submitted_at));
    }
    default:
      return nothing(
        `${source}: not an event otto acts on (workflow_run, check_suite, issue_comment, pull_request_review, pull_request_review_comment)`,
      );
  }
}

function failure(
  repo: string,
  source: string,
  prs: PullRef[] | undefined,
  branch: string | null | undefined,
  headSha: string | undefined,
): CiEvent {
  // A run's pull_requests lists PRs of this repository only (fork PRs never show there).
  const named = (prs ?? []).find((p) => !p.base?.repo?.full_name || lower(p.base.repo.full_name) === lower(repo));
  if (!named?.number && !branch) return nothing(`${source}: the failure is on no pull request`);
  return {
    kind: "failure",
    provider: "github",
    repo,
    ...(named?.number ? { number: named.number } : {}),
    ...(branch ? { branch } : {}),
    ...(headSha ? { headSha } : {}),
    source,
  };
}

function comment(repo: string, source: string, number: number, c: EventComment): CiEvent {
  return { kind: "comment", provider: "github", repo, number, comment: c, source };
}

function author(user: User | null | undefined): Pick<EventComment, "author"> {
  return { author: user?.login ?? "" };
}

/** Who wrote a comment or review, what, when, and their association with the repository. */
function written(
  c: { body?: string | null; user?: User | null; author_association?: string },
  at: string | null | undefined,
): Omit<EventComment, "id"> {
  return {
    ...author(c.user),
    body: c.body ?? "",
    createdAt: at ?? "",
    ...(c.author_association ? { association: c.author_association } : {}),
  };
}

function isFork(pr: PullRef, repo: string): boolean {
  const head = pr.head?.repo?.full_name;
  return head !== undefined && lower(head) !== lower(pr.base?.repo?.full_name ?? repo);
}

const forkNothing = (source: string, pr: PullRef): CiEvent =>
  nothing(`${source}: PR #${pr.number ?? "?"} is from a fork (${pr.head?.repo?.full_name ?? "?"}); otto does not work on fork PRs`);
