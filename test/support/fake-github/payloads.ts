import type {
  FakeCheckRun,
  FakeComment,
  FakeIssue,
  FakePr,
  FakeReview,
  FakeReviewComment,
  FakeStatus,
  FakeUser,
  GithubState,
  Permission,
} from "./state.ts";

/*
 * GitHub REST payloads with every field the OpenAPI description requires (checked by
 * test/unit/pr/fake-github-openapi.test.ts against @octokit/openapi), built from the fake state.
 */

export interface Urls {
  /** REST base, e.g. http://127.0.0.1:1234 or …/api/v3. */
  api: string;
  /** Web base for html_url fields. */
  web: string;
  /** Where job logs are downloaded from (another origin). */
  blobs: string;
}

const nodeId = (kind: string, id: number): string => Buffer.from(`${kind}:${id}`).toString("base64");

export function user(u: FakeUser, urls: Urls) {
  const url = `${urls.api}/users/${u.login}`;
  return {
    login: u.login,
    id: u.id,
    node_id: nodeId("User", u.id),
    avatar_url: `${urls.web}/avatars/${u.login}`,
    gravatar_id: "",
    url,
    html_url: `${urls.web}/${u.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: "User",
    site_admin: false,
  };
}

/**
 * GET …/collaborators/{username}/permission: the legacy base role and the role name, with the user
 * as a collaborator. https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user
 */
export function collaboratorPermission(u: FakeUser, permission: Permission, urls: Urls) {
  const rank = ["none", "read", "write", "admin"].indexOf(permission);
  return {
    permission,
    role_name: permission,
    user: {
      ...user(u, urls),
      permissions: { pull: rank >= 1, triage: rank >= 1, push: rank >= 2, maintain: rank >= 3, admin: rank >= 3 },
      role_name: permission,
    },
  };
}

/** GET /user: the token's user, as the public-user shape (a private user adds plan and disk fields). */
export function authenticatedUser(u: FakeUser, urls: Urls) {
  return {
    ...user(u, urls),
    name: null,
    company: null,
    blog: null,
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: "2020-01-01T00:00:00Z",
    updated_at: "2020-01-01T00:00:00Z",
  };
}

const REPO_LINKS = [
  "archive:/{archive_format}{/ref}",
  "assignees:/assignees{/user}",
  "blobs:/git/blobs{/sha}",
  "branches:/branches{/branch}",
  "collaborators:/collaborators{/collaborator}",
  "comments:/comments{/number}",
  "commits:/commits{/sha}",
  "compare:/compare/{base}...{head}",
  "contents:/contents/{+path}",
  "contributors:/contributors",
  "deployments:/deployments",
  "downloads:/downloads",
  "events:/events",
  "forks:/forks",
  "git_commits:/git/commits{/sha}",
  "git_refs:/git/refs{/sha}",
  "git_tags:/git/tags{/sha}",
  "hooks:/hooks",
  "issue_comment:/issues/comments{/number}",
  "issue_events:/issues/events{/number}",
  "issues:/issues{/number}",
  "keys:/keys{/key_id}",
  "labels:/labels{/name}",
  "languages:/languages",
  "merges:/merges",
  "milestones:/milestones{/number}",
  "notifications:/notifications{?since,all,participating}",
  "pulls:/pulls{/number}",
  "releases:/releases{/id}",
  "stargazers:/stargazers",
  "statuses:/statuses/{sha}",
  "subscribers:/subscribers",
  "subscription:/subscription",
  "tags:/tags",
  "teams:/teams",
  "trees:/git/trees{/sha}",
];

export function minimalRepository(state: GithubState, owner: string, name: string, urls: Urls) {
  const url = `${urls.api}/repos/${owner}/${name}`;
  const id = [...`${owner}/${name}`].reduce((n, c) => n * 31 + c.charCodeAt(0), 11) % 10_000_000;
  const links = Object.fromEntries(REPO_LINKS.map((l) => l.split(/:(.*)/s)).map(([k, suffix]) => [`${k}_url`, `${url}${suffix}`]));
  return {
    id,
    node_id: nodeId("Repository", id),
    name,
    full_name: `${owner}/${name}`,
    owner: user(state.user(owner), urls),
    private: false,
    html_url: `${urls.web}/${owner}/${name}`,
    description: null,
    fork: false,
    url,
    ...links,
  };
}

export function repository(state: GithubState, owner: string, name: string, urls: Urls) {
  return {
    ...minimalRepository(state, owner, name, urls),
    clone_url: `${urls.web}/${owner}/${name}.git`,
    git_url: `git://github.com/${owner}/${name}.git`,
    ssh_url: `git@github.com:${owner}/${name}.git`,
    svn_url: `${urls.web}/${owner}/${name}`,
    mirror_url: null,
    homepage: null,
    language: "TypeScript",
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 100,
    default_branch: "main",
    open_issues: 0,
    open_issues_count: 0,
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    archived: false,
    disabled: false,
    license: null,
    pushed_at: "2026-02-06T09:00:00Z",
    created_at: "2025-01-01T00:00:00Z",
    updated_at: "2026-02-06T09:00:00Z",
  };
}

/** A PR as lists show it (pull-request-simple): without the merge and size fields of the PR itself. */
export function pullRequestSimple(state: GithubState, pr: FakePr, urls: Urls) {
  const full: Record<string, unknown> = pullRequest(state, pr, urls);
  return Object.fromEntries(Object.entries(full).filter(([key]) => !ONLY_IN_FULL_PR.has(key)));
}

const ONLY_IN_FULL_PR = new Set([
  "merged",
  "mergeable",
  "rebaseable",
  "mergeable_state",
  "merged_by",
  "comments",
  "review_comments",
  "maintainer_can_modify",
  "commits",
  "additions",
  "deletions",
  "changed_files",
]);

export function pullRequest(state: GithubState, pr: FakePr, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${pr.owner}/${pr.repo}`;
  const url = `${repoUrl}/pulls/${pr.number}`;
  const html = `${urls.web}/${pr.owner}/${pr.repo}/pull/${pr.number}`;
  const repo = repository(state, pr.owner, pr.repo, urls);
  const author = user(pr.user, urls);
  const ref = (side: FakePr["head"]) => ({
    label: `${pr.owner}:${side.ref}`,
    ref: side.ref,
    sha: side.sha,
    user: user(state.user(pr.owner), urls),
    repo,
  });
  // A fork's head names the fork's repository (and its owner), like GitHub.
  const fork = pr.headRepo;
  const headRef = fork
    ? {
        label: `${fork.owner}:${pr.head.ref}`,
        ref: pr.head.ref,
        sha: pr.head.sha,
        user: user(state.user(fork.owner), urls),
        repo: { ...repository(state, fork.owner, fork.repo, urls), fork: true },
      }
    : ref(pr.head);
  return {
    url,
    id: pr.id,
    node_id: nodeId("PullRequest", pr.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${repoUrl}/issues/${pr.number}`,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${repoUrl}/pulls/comments{/number}`,
    comments_url: `${repoUrl}/issues/${pr.number}/comments`,
    statuses_url: `${repoUrl}/statuses/${pr.head.sha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: author,
    body: pr.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pr.created_at,
    updated_at: pr.updated_at,
    closed_at: pr.closed_at,
    merged_at: pr.merged_at,
    merge_commit_sha: pr.merged ? pr.head.sha : null,
    assignee: null,
    assignees: [],
    requested_reviewers: (state.requestedReviewers.get(pr.number) ?? []).map((login) => user(state.user(login), urls)),
    requested_teams: [],
    head: headRef,
    base: ref(pr.base),
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: `${repoUrl}/issues/${pr.number}` },
      comments: { href: `${repoUrl}/issues/${pr.number}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${repoUrl}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${repoUrl}/statuses/${pr.head.sha}` },
    },
    author_association: "CONTRIBUTOR",
    auto_merge: null,
    draft: pr.draft,
    merged: pr.merged,
    mergeable: pr.state === "open" ? true : null,
    rebaseable: pr.state === "open" ? true : null,
    mergeable_state: pr.state === "open" ? "clean" : "unknown",
    merged_by: pr.merged ? author : null,
    comments: state.comments.filter((c) => c.owner === pr.owner && c.repo === pr.repo && c.number === pr.number).length,
    review_comments: state.reviewComments.filter((c) => c.owner === pr.owner && c.repo === pr.repo && c.number === pr.number).length,
    maintainer_can_modify: false,
    commits: 1,
    additions: 10,
    deletions: 2,
    changed_files: 1,
  };
}

function integration(slug: string, state: GithubState, urls: Urls) {
  return {
    id: slug === "github-actions" ? 15368 : 424242,
    slug,
    node_id: nodeId("Integration", slug.length),
    owner: user(state.user(slug === "github-actions" ? "github" : "ci-vendor"), urls),
    name: slug === "github-actions" ? "GitHub Actions" : "Other CI",
    description: null,
    external_url: `${urls.web}/apps/${slug}`,
    html_url: `${urls.web}/apps/${slug}`,
    created_at: "2018-07-30T09:30:17Z",
    updated_at: "2024-04-10T20:33:16Z",
    permissions: { checks: "write", metadata: "read" },
    events: ["check_run"],
  };
}

export function checkRun(state: GithubState, run: FakeCheckRun, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${run.owner}/${run.repo}`;
  const html =
    run.app === "github-actions"
      ? `${urls.web}/${run.owner}/${run.repo}/actions/runs/${run.run_id}/job/${run.id}`
      : `https://ci.example.com/runs/${run.id}`;
  return {
    id: run.id,
    head_sha: run.head_sha,
    node_id: nodeId("CheckRun", run.id),
    external_id: String(run.id),
    url: `${repoUrl}/check-runs/${run.id}`,
    html_url: html,
    details_url: html,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at,
    completed_at: run.completed_at,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: null,
      annotations_count: 0,
      annotations_url: `${repoUrl}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.run_id + 1 },
    app: integration(run.app, state, urls),
    pull_requests: [],
  };
}

export function combinedStatus(state: GithubState, owner: string, repo: string, sha: string, statuses: FakeStatus[], urls: Urls) {
  const repoUrl = `${urls.api}/repos/${owner}/${repo}`;
  const combined =
    statuses.length === 0
      ? "pending"
      : statuses.some((s) => s.state === "failure" || s.state === "error")
        ? "failure"
        : statuses.some((s) => s.state === "pending")
          ? "pending"
          : "success";
  return {
    state: combined,
    sha,
    total_count: statuses.length,
    statuses: statuses.map((s) => ({
      url: `${repoUrl}/statuses/${sha}`,
      avatar_url: null,
      id: s.id,
      node_id: nodeId("StatusContext", s.id),
      state: s.state,
      description: s.description,
      target_url: s.target_url,
      context: s.context,
      created_at: s.created_at,
      updated_at: s.created_at,
    })),
    repository: minimalRepository(state, owner, repo, urls),
    commit_url: `${repoUrl}/commits/${sha}`,
    url: `${repoUrl}/commits/${sha}/status`,
  };
}

export function issueComment(c: FakeComment, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${c.owner}/${c.repo}`;
  return {
    id: c.id,
    node_id: nodeId("IssueComment", c.id),
    url: `${repoUrl}/issues/comments/${c.id}`,
    html_url: `${urls.web}/${c.owner}/${c.repo}/pull/${c.number}#issuecomment-${c.id}`,
    body: c.body,
    user: user(c.user, urls),
    created_at: c.created_at,
    updated_at: c.created_at,
    issue_url: `${repoUrl}/issues/${c.number}`,
    author_association: c.author_association,
  };
}

/** https://docs.github.com/en/rest/issues/issues#create-an-issue (the `issue` schema's required fields and a few more). */
export function issue(i: FakeIssue, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${i.owner}/${i.repo}`;
  const url = `${repoUrl}/issues/${i.number}`;
  return {
    id: i.id,
    node_id: nodeId("Issue", i.id),
    url,
    repository_url: repoUrl,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${urls.web}/${i.owner}/${i.repo}/issues/${i.number}`,
    number: i.number,
    state: "open",
    title: i.title,
    body: i.body,
    user: user(i.user, urls),
    labels: [],
    assignee: null,
    milestone: null,
    locked: false,
    comments: 0,
    closed_at: null,
    created_at: i.created_at,
    updated_at: i.created_at,
    author_association: "NONE",
  };
}

export function reviewComment(c: FakeReviewComment, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${c.owner}/${c.repo}`;
  const url = `${repoUrl}/pulls/comments/${c.id}`;
  const html = `${urls.web}/${c.owner}/${c.repo}/pull/${c.number}#discussion_r${c.id}`;
  const prUrl = `${repoUrl}/pulls/${c.number}`;
  return {
    url,
    pull_request_review_id: c.review_id ?? c.id + 1,
    id: c.id,
    node_id: nodeId("PullRequestReviewComment", c.id),
    diff_hunk: `@@ -1,3 +1,3 @@\n line`,
    path: c.path,
    commit_id: c.commit_id,
    original_commit_id: c.commit_id,
    ...(c.in_reply_to_id ? { in_reply_to_id: c.in_reply_to_id } : {}),
    user: user(c.user, urls),
    body: c.body,
    created_at: c.created_at,
    updated_at: c.created_at,
    html_url: html,
    pull_request_url: prUrl,
    author_association: c.author_association,
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: prUrl } },
    // Outdated: GitHub answers line (and position) null; the description has neither as nullable, so the fake leaves it out.
    ...(c.outdated ? {} : { line: c.line }),
    original_line: c.line,
    side: c.side,
    start_line: null,
    original_start_line: null,
    start_side: null,
    subject_type: "line",
  };
}

export function review(r: FakeReview, urls: Urls) {
  const prUrl = `${urls.api}/repos/${r.owner}/${r.repo}/pulls/${r.number}`;
  const html = `${urls.web}/${r.owner}/${r.repo}/pull/${r.number}#pullrequestreview-${r.id}`;
  return {
    id: r.id,
    node_id: nodeId("PullRequestReview", r.id),
    user: user(r.user, urls),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: prUrl,
    _links: { html: { href: html }, pull_request: { href: prUrl } },
    ...(r.submitted_at ? { submitted_at: r.submitted_at } : {}),
    commit_id: r.commit_id,
    author_association: r.author_association,
  };
}

export function job(run: FakeCheckRun, urls: Urls) {
  const repoUrl = `${urls.api}/repos/${run.owner}/${run.repo}`;
  return {
    id: run.id,
    run_id: run.run_id,
    run_url: `${repoUrl}/actions/runs/${run.run_id}`,
    node_id: nodeId("CheckRun", run.id),
    head_sha: run.head_sha,
    url: `${repoUrl}/actions/jobs/${run.id}`,
    html_url: `${urls.web}/${run.owner}/${run.repo}/actions/runs/${run.run_id}/job/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    created_at: run.started_at,
    started_at: run.started_at,
    completed_at: run.completed_at,
    name: run.name,
    steps: [],
    check_run_url: `${repoUrl}/check-runs/${run.id}`,
    labels: ["ubuntu-latest"],
    runner_id: 1,
    runner_name: "GitHub Actions 1",
    runner_group_id: 1,
    runner_group_name: "GitHub Actions",
    workflow_name: "CI",
    head_branch: "feature",
  };
}
