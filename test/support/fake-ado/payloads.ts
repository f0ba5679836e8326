import type { AdoIdentity, AdoState, FakeAdoPr, FakeBuild, FakePolicy, FakeThread } from "./state.ts";

/*
 * Azure DevOps REST 7.1 payloads, shaped after the samples of the REST reference:
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-request-by-id
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/list
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/build/timeline/get
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations/list
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-threads/list
 */

// https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/types/list
const POLICY_TYPES = {
  build: { id: "0609b952-1397-4640-95ec-e00a01b2c241", displayName: "Build" },
  status: { id: "cbdc66da-9728-4af8-aada-9a5a32e4a226", displayName: "Status" },
  reviewers: { id: "fa4e907d-c16b-4a4c-9dfa-4906e5d171dd", displayName: "Minimum number of reviewers" },
};

export function identity(who: AdoIdentity, base: string) {
  return {
    displayName: who.displayName,
    url: `${base}/_apis/Identities/${who.id}`,
    id: who.id,
    uniqueName: who.uniqueName,
    imageUrl: `${base}/_api/_common/identityImage?id=${who.id}`,
    descriptor: `aad.${Buffer.from(who.id).toString("base64")}`,
  };
}

function projectRef(state: AdoState, base: string) {
  return {
    id: state.project.id,
    name: state.project.name,
    url: `${base}/_apis/projects/${state.project.id}`,
    state: "wellFormed",
    revision: 411,
    visibility: "private",
    lastUpdateTime: "2025-11-01T08:00:00Z",
  };
}

export function pullRequest(state: AdoState, pr: FakeAdoPr, base: string) {
  const repo = state.repo(pr.repo);
  const repoUrl = `${base}/${state.project.id}/_apis/git/repositories/${repo.id}`;
  const commit = (id: string) => ({ commitId: id, url: `${repoUrl}/commits/${id}` });
  return {
    repository: {
      id: repo.id,
      name: repo.name,
      url: repoUrl,
      project: projectRef(state, base),
      remoteUrl: `${base}/${state.project.name}/_git/${repo.name}`,
    },
    pullRequestId: pr.id,
    codeReviewId: pr.id,
    status: pr.status,
    createdBy: identity(pr.createdBy, base),
    creationDate: pr.creationDate,
    ...(pr.closedDate ? { closedDate: pr.closedDate } : {}),
    title: pr.title,
    description: pr.description,
    sourceRefName: pr.sourceRefName,
    targetRefName: pr.targetRefName,
    mergeStatus: "succeeded",
    isDraft: pr.isDraft,
    mergeId: "f5fc8381-3fb2-49fe-8a0d-27dcc2d6ef82",
    lastMergeSourceCommit: commit(pr.sourceCommit),
    lastMergeTargetCommit: commit("b".repeat(40)),
    lastMergeCommit: commit("d".repeat(40)),
    reviewers: [],
    url: `${repoUrl}/pullRequests/${pr.id}`,
    supportsIterations: true,
    ...(pr.autoCompleteSetBy
      ? {
          autoCompleteSetBy: identity(pr.autoCompleteSetBy, base),
          completionOptions: { mergeCommitMessage: `Merged PR ${pr.id}: ${pr.title}`, transitionWorkItems: true },
        }
      : {}),
  };
}

export function build(state: AdoState, b: FakeBuild, base: string) {
  const url = `${base}/${state.project.id}/_apis/build/Builds/${b.id}`;
  const web = `${base}/${state.project.name}/_build/results?buildId=${b.id}`;
  const pr = state.pr(b.prId);
  return {
    _links: {
      self: { href: url },
      web: { href: web },
      sourceVersionDisplayUri: { href: `${url}/sources` },
      timeline: { href: `${url}/Timeline` },
    },
    properties: {},
    tags: [],
    validationResults: [],
    plans: [{ planId: `0000${b.id}`.padStart(8, "0") }],
    triggerInfo: {
      "pr.number": String(b.prId),
      "pr.isFork": "False",
      "pr.sourceBranch": pr?.sourceRefName ?? "",
      "pr.sourceSha": b.sourceVersion,
    },
    id: b.id,
    buildNumber: `20260206.${b.id}`,
    status: b.status,
    ...(b.result ? { result: b.result, finishTime: b.queueTime } : {}),
    queueTime: b.queueTime,
    startTime: b.queueTime,
    url,
    definition: {
      drafts: [],
      id: b.definition.id,
      name: b.definition.name,
      url: `${base}/${state.project.id}/_apis/build/Definitions/${b.definition.id}`,
      uri: `vstfs:///Build/Definition/${b.definition.id}`,
      path: "\\",
      type: "build",
      queueStatus: "enabled",
      revision: 3,
      project: projectRef(state, base),
    },
    buildNumberRevision: 1,
    project: projectRef(state, base),
    uri: `vstfs:///Build/Build/${b.id}`,
    sourceBranch: b.sourceBranch,
    sourceVersion: b.sourceVersion,
    priority: "normal",
    reason: "pullRequest",
    requestedFor: identity(state.me, base),
    requestedBy: identity(state.me, base),
    lastChangedDate: b.queueTime,
    lastChangedBy: identity(state.me, base),
    orchestrationPlan: { planId: `0000${b.id}` },
    logs: { id: 0, type: "Container", url: `${url}/logs` },
    repository: {
      id: state.repo(pr?.repo ?? "app").id,
      type: "TfsGit",
      name: pr?.repo ?? "app",
      url: `${base}/${state.project.name}/_git/${pr?.repo ?? "app"}`,
      clean: null,
      checkoutSubmodules: false,
    },
    retainedByRelease: false,
    triggeredByBuild: null,
  };
}

export function policyEvaluation(state: AdoState, p: FakePolicy, pr: FakeAdoPr, base: string) {
  const type = POLICY_TYPES[p.kind];
  const b = p.buildId === undefined ? undefined : state.builds.find((x) => x.id === p.buildId);
  return {
    configuration: {
      createdBy: identity(state.me, base),
      createdDate: "2025-06-01T08:00:00Z",
      isEnabled: true,
      isBlocking: p.kind !== "status",
      isDeleted: false,
      settings:
        p.kind === "build"
          ? {
              buildDefinitionId: b?.definition.id ?? 0,
              queueOnSourceUpdateOnly: true,
              manualQueueOnly: false,
              // Optional in the policy's settings: null when nobody named it.
              displayName: p.displayName || null,
              validDuration: 720,
              scope: [{ refName: "refs/heads/main", matchKind: "Exact", repositoryId: state.repo(pr.repo).id }],
            }
          : { minimumApproverCount: 1, creatorVoteCounts: false, scope: [{ repositoryId: null }] },
      isEnterpriseManaged: false,
      _links: { self: { href: `${base}/${state.project.id}/_apis/policy/configurations/${p.configurationId}` } },
      revision: 1,
      id: p.configurationId,
      url: `${base}/${state.project.id}/_apis/policy/configurations/${p.configurationId}`,
      type: { id: type.id, url: `${base}/${state.project.id}/_apis/policy/types/${type.id}`, displayName: type.displayName },
    },
    artifactId: `vstfs:///CodeReview/CodeReviewId/${state.project.id}/${pr.id}`,
    evaluationId: p.evaluationId,
    startedDate: pr.creationDate,
    ...(p.status === "approved" || p.status === "rejected" ? { completedDate: b?.queueTime ?? pr.creationDate } : {}),
    status: p.status,
    context: b
      ? {
          lastMergeCommitId: "d".repeat(40),
          lastMergeSourceCommitId: pr.sourceCommit,
          lastMergeTargetCommitId: "b".repeat(40),
          buildId: b.id,
          // `context` is internal data (the API reference says so): otto reads only buildId.
          buildDefinitionId: b.definition.id,
          buildIsNotCurrent: false,
          buildStartedUtc: b.queueTime,
          isExpired: false,
          buildAfterMerge: false,
          wasAutoRequeued: false,
          buildOutputPreview: null,
        }
      : null,
  };
}

export function timeline(state: AdoState, buildId: number, base: string) {
  const url = `${base}/${state.project.id}/_apis/build/builds/${buildId}`;
  const jobId = `job-${buildId}`;
  const tasks = state.timelines.get(buildId) ?? [];
  const finished = "2026-02-06T10:05:00Z";
  const job = {
    previousAttempts: [],
    id: jobId,
    parentId: null,
    type: "Job",
    name: "Build",
    startTime: finished,
    finishTime: finished,
    currentOperation: null,
    percentComplete: 100,
    state: "completed",
    result: tasks.some((t) => t.result === "failed") ? "failed" : "succeeded",
    resultCode: null,
    changeId: 1,
    lastModified: finished,
    workerName: "Azure Pipelines 2",
    order: 1,
    details: null,
    errorCount: 0,
    warningCount: 0,
    url: null,
    log: { id: 3, type: "Container", url: `${url}/logs/3` },
    task: null,
    attempt: 1,
    identifier: "Build.__default",
    issues: [],
  };
  return {
    records: [
      job,
      ...tasks.map((t, i) => ({
        ...job,
        id: t.id,
        parentId: jobId,
        type: "Task",
        name: t.name,
        result: t.result,
        order: i + 1,
        errorCount: t.issues.length,
        log: { id: t.logId, type: "Container", url: `${url}/logs/${t.logId}` },
        task: { id: "d9bafed4-0b18-4f58-968d-86655b4d2ce9", name: "CmdLine", version: "2.212.0" },
        identifier: null,
        issues: t.issues.map((message) => ({
          type: "error",
          category: "General",
          message,
          data: { type: "error", logFileLineNumber: "12" },
        })),
      })),
    ],
    lastChangedBy: "00000002-0000-8888-8000-000000000000",
    lastChangedOn: finished,
    id: `timeline-${buildId}`,
    changeId: tasks.length + 1,
    url: `${url}/Timeline/timeline-${buildId}`,
  };
}

export function thread(state: AdoState, t: FakeThread, base: string) {
  const pr = state.pr(t.prId);
  const repoUrl = `${base}/${state.project.id}/_apis/git/repositories/${state.repo(pr?.repo ?? "app").id}`;
  const url = `${repoUrl}/pullRequests/${t.prId}/threads/${t.id}`;
  const first = t.comments[0]?.publishedDate ?? "2026-02-06T10:00:00Z";
  const last = t.comments.at(-1)?.publishedDate ?? first;
  const position = (line: number) => ({ line, offset: 1 });
  return {
    pullRequestThreadContext: null,
    id: t.id,
    publishedDate: first,
    lastUpdatedDate: last,
    comments: t.comments.map((c) => ({
      id: c.id,
      parentCommentId: c.parentCommentId,
      author: identity(c.author, base),
      content: c.content,
      publishedDate: c.publishedDate,
      lastUpdatedDate: c.publishedDate,
      lastContentUpdatedDate: c.publishedDate,
      commentType: c.commentType,
      usersLiked: [],
      _links: { self: { href: `${url}/comments/${c.id}` }, repository: { href: repoUrl }, threads: { href: url } },
    })),
    status: t.status,
    threadContext: t.filePath ? { filePath: t.filePath, rightFileStart: position(t.line ?? 1), rightFileEnd: position(t.line ?? 1) } : null,
    properties: {},
    identities: null,
    isDeleted: false,
    _links: { self: { href: url }, repository: { href: repoUrl } },
  };
}
