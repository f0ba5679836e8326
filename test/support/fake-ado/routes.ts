import type { IncomingRequest, Reply } from "../fake-http.ts";
import { build, identity, policyEvaluation, pullRequest, thread, timeline } from "./payloads.ts";
import type { AdoState, FakeThread } from "./state.ts";

/*
 * Routes of the fake Azure DevOps, under /{org}. Paths match case-insensitively, as on the real
 * service (pullRequests and pullrequests both work).
 */

type Params = Record<string, string>;
type Route = { method: string; pattern: RegExp; names: string[]; preview?: boolean; run: (p: Params, req: IncomingRequest) => Reply };

function route(method: string, template: string, run: Route["run"], preview = false): Route {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), "([^/]+)"));
  return { method, pattern: new RegExp(`^${source}$`, "i"), names, run, preview };
}

const error = (status: number, message: string, typeKey: string): Reply => ({
  status,
  body: {
    $id: "1",
    innerException: null,
    message,
    typeName: `Microsoft.TeamFoundation.${typeKey}, Microsoft.TeamFoundation`,
    typeKey,
    errorCode: 0,
    eventId: 3000,
  },
});

const list = (value: unknown[]): Reply => ({ status: 200, body: { count: value.length, value } });

// https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-threads/create#commentthreadstatus
const THREAD_STATUS: Record<string, FakeThread["status"]> = {
  "1": "active",
  "2": "fixed",
  "3": "wontFix",
  "4": "closed",
  "5": "byDesign",
  "6": "pending",
};
const threadStatus = (value: unknown): FakeThread["status"] => THREAD_STATUS[String(value)] ?? (value as FakeThread["status"]);

export function adoRoutes(state: AdoState, base: () => string): Route[] {
  const prOf = (p: Params) => state.pr(Number(p.id));
  const notFound = (what: string) => error(404, `TF401180: The requested ${what} was not found.`, "GitPullRequestNotFoundException");
  const threadsOf = (p: Params) => state.threads.filter((t) => t.prId === Number(p.id));
  return [
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/wit/work-items/create?view=azure-devops-rest-7.1
    route("POST", "/{project}/_apis/wit/workitems/{type}", (p, req) => {
      if (!(req.headers["content-type"] ?? "").startsWith("application/json-patch+json"))
        return error(
          415,
          "VS402360: The request's content type must be application/json-patch+json.",
          "VssRequestContentTypeNotSupportedException",
        );
      const type = (p.type ?? "").replace(/^\$/, "");
      if (!["Bug", "Task", "Issue", "User Story"].includes(type))
        return error(
          404,
          `VS402323: Work item type ${type} does not exist in project ${state.project.name}.`,
          "WorkItemTypeNotFoundException",
        );
      const ops = Array.isArray(req.body) ? (req.body as Array<{ op?: string; path?: string; value?: unknown }>) : [];
      const fields = Object.fromEntries(
        ops.filter((o) => o.op === "add" && o.path?.startsWith("/fields/")).map((o) => [o.path?.slice("/fields/".length) ?? "", o.value]),
      );
      if (typeof fields["System.Title"] !== "string" || fields["System.Title"] === "")
        return error(400, "TF401320: Rule Error for field Title. Error code: Required, HasValues.", "RuleValidationException");
      const id = state.nextId();
      state.workItems.push({ id, type, fields });
      const project = `${base()}/${state.project.id}`;
      return {
        status: 200,
        body: {
          id,
          rev: 1,
          fields: { ...fields, "System.WorkItemType": type, "System.State": "New", "System.TeamProject": state.project.name },
          url: `${project}/_apis/wit/workItems/${id}`,
          _links: { html: { href: `${base()}/${state.project.id}/_workitems/edit/${id}` } },
        },
      };
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/core/teams/get-teams?view=azure-devops-rest-7.1
    route(
      "GET",
      "/_apis/projects/{projectId}/teams",
      (p) => {
        if (p.projectId !== state.project.id && p.projectId?.toLowerCase() !== state.project.name)
          return error(404, `TF200016: The following project does not exist: ${p.projectId}.`, "ProjectDoesNotExistException");
        const url = `${base()}/_apis/projects/${state.project.id}/teams/${state.team.id}`;
        return list([
          {
            id: state.team.id,
            name: state.team.name,
            url,
            description: "The default project team.",
            identityUrl: `${base()}/_apis/Identities/${state.team.id}`,
            projectName: state.project.name,
            projectId: state.project.id,
          },
        ]);
      },
      true,
    ),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/core/teams/get-team-members-with-extended-properties?view=azure-devops-rest-7.1
    route(
      "GET",
      "/_apis/projects/{projectId}/teams/{teamId}/members",
      (p) => {
        if (p.teamId !== state.team.id)
          return error(404, `TF400398: The team with id ${p.teamId} does not exist.`, "TeamNotFoundException");
        return list(state.members().map((who) => ({ isTeamAdmin: who === state.me, identity: identity(who, base()) })));
      },
      true,
    ),
    route(
      "GET",
      "/_apis/connectionData",
      () => ({
        status: 200,
        body: {
          // An Identity, not an IdentityRef: its account (a person's sign-in address; a build
          // identity's is none) is a property, https://learn.microsoft.com/rest/api/azure/devops/ims/identities/read-identities
          authenticatedUser: {
            ...identity(state.me, base()),
            providerDisplayName: state.me.displayName,
            isActive: true,
            properties: { Account: { $type: "System.String", $value: state.me.uniqueName } },
          },
          authorizedUser: identity(state.me, base()),
          instanceId: "a4c8d59e-1c5b-4cc1-8ee3-9a3ab0e0cc12",
          deploymentType: "hosted",
        },
      }),
      true,
    ),
    route("GET", "/{project}/_apis/git/pullrequests/{id}", (p) => {
      const pr = prOf(p);
      return pr ? { status: 200, body: pullRequest(state, pr, base()) } : notFound("pull request");
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-requests (searchCriteria.*)
    route("GET", "/{project}/_apis/git/repositories/{repo}/pullrequests", (p, req) => {
      const source = req.query.get("searchCriteria.sourceRefName");
      const status = req.query.get("searchCriteria.status") ?? "active";
      const repo = state.repo(p.repo ?? "");
      const found = state.prs.filter(
        (pr) =>
          state.repo(pr.repo).id === repo.id && (status === "all" || pr.status === status) && (!source || pr.sourceRefName === source),
      );
      return list(found.slice(0, Number(req.query.get("$top") ?? 101)).map((pr) => pullRequest(state, pr, base())));
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/create
    route("POST", "/{project}/_apis/git/repositories/{repo}/pullrequests", (p, req) => {
      const input = (req.body ?? {}) as {
        sourceRefName?: string;
        targetRefName?: string;
        title?: string;
        description?: string;
        isDraft?: boolean;
        reviewers?: Array<{ id?: string }>;
      };
      if (!input.sourceRefName?.startsWith("refs/heads/") || !input.targetRefName?.startsWith("refs/heads/") || !input.title) {
        return error(400, "The source and target ref names and the title are required.", "InvalidArgumentValueException");
      }
      const repo = state.repo(p.repo ?? "");
      if (
        state.prs.some(
          (pr) =>
            state.repo(pr.repo).id === repo.id &&
            pr.status === "active" &&
            pr.sourceRefName === input.sourceRefName &&
            pr.targetRefName === input.targetRefName,
        )
      ) {
        return error(
          409,
          `TF401179: An active pull request for the source and target branch already exists.`,
          "GitPullRequestExistsException",
        );
      }
      const id = Math.max(0, ...state.prs.map((pr) => pr.id)) + 1;
      const created = state.addPr({
        id,
        repo: repo.name,
        title: input.title,
        branch: input.sourceRefName.slice("refs/heads/".length),
        target: input.targetRefName.slice("refs/heads/".length),
        draft: input.isDraft ?? false,
        description: input.description ?? "",
        createdBy: state.me,
      });
      state.reviewersAtCreate.set(
        id,
        (input.reviewers ?? []).map((r) => r.id ?? ""),
      );
      return { status: 201, body: pullRequest(state, created, base()) };
    }),
    route("GET", "/{project}/_apis/git/repositories/{repo}/pullrequests/{id}", (p) => {
      const pr = prOf(p);
      return pr ? { status: 200, body: pullRequest(state, pr, base()) } : notFound("pull request");
    }),
    route("PATCH", "/{project}/_apis/git/repositories/{repo}/pullrequests/{id}", (p, req) => {
      const pr = prOf(p);
      if (!pr) return notFound("pull request");
      const body = req.body as { autoCompleteSetBy?: { id: string } };
      if (body.autoCompleteSetBy?.id === state.me.id) pr.autoCompleteSetBy = state.me;
      return { status: 200, body: pullRequest(state, pr, base()) };
    }),
    route(
      "GET",
      "/{project}/_apis/policy/evaluations",
      (_p, req) => {
        const artifact = /^vstfs:\/\/\/CodeReview\/CodeReviewId\/([^/]+)\/(\d+)$/.exec(req.query.get("artifactId") ?? "");
        if (!artifact || artifact[1] !== state.project.id)
          return error(400, "The artifact ID is not valid.", "InvalidArgumentValueException");
        const pr = state.pr(Number(artifact[2]));
        return list(pr ? (state.policies.get(pr.id) ?? []).map((policy) => policyEvaluation(state, policy, pr, base())) : []);
      },
      true,
    ),
    route("GET", "/{project}/_apis/build/builds", (_p, req) => {
      const branch = req.query.get("branchName");
      // `definitions`: a comma-separated list of definition ids.
      const definitions = req.query.get("definitions")?.split(",").map(Number);
      const builds = state.builds
        .filter((b) => (!branch || b.sourceBranch === branch) && (!definitions || definitions.includes(b.definition.id)))
        .sort((a, b) => b.id - a.id);
      return list(builds.slice(0, Number(req.query.get("$top") ?? 1000)).map((b) => build(state, b, base())));
    }),
    // https://learn.microsoft.com/rest/api/azure/devops/build/builds/get
    route("GET", "/{project}/_apis/build/builds/{id}", (p) => {
      const found = state.builds.find((b) => b.id === Number(p.id));
      return found
        ? { status: 200, body: build(state, found, base()) }
        : error(404, `The requested build ${p.id} could not be found.`, "BuildNotFoundException");
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/update-build (retry: "Rerun failed jobs")
    route("PATCH", "/{project}/_apis/build/builds/{id}", (p, req) => {
      if (!state.builds.some((b) => b.id === Number(p.id)))
        return error(404, `The requested build ${p.id} could not be found.`, "BuildNotFoundException");
      // Other updates (keepForever, status) are not modelled: fail loudly rather than pretend.
      if (req.query.get("retry") !== "true")
        return error(400, "The fake Azure DevOps models only retry=true build updates.", "InvalidArgumentValueException");
      const retried = state.retryBuild(Number(p.id));
      if (!retried) return error(400, `Build ${p.id} cannot be retried: it has no failed or canceled jobs.`, "InvalidBuildException");
      return { status: 200, body: build(state, retried, base()) };
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations/requeue-policy-evaluation
    route(
      "PATCH",
      "/{project}/_apis/policy/evaluations/{evaluation}",
      (p) => {
        const found = state.requeueEvaluation(p.evaluation ?? "");
        if (!found) return error(404, `The policy evaluation ${p.evaluation} does not exist.`, "PolicyEvaluationNotFoundException");
        return { status: 200, body: policyEvaluation(state, found.policy, found.pr, base()) };
      },
      true,
    ),
    route("GET", "/{project}/_apis/build/builds/{id}/timeline", (p) => {
      if (!state.builds.some((b) => b.id === Number(p.id)))
        return error(404, `The requested build ${p.id} could not be found.`, "BuildNotFoundException");
      return { status: 200, body: timeline(state, Number(p.id), base()) };
    }),
    route("GET", "/{project}/_apis/build/builds/{id}/logs/{log}", (p) => {
      const text = state.logs.get(`${p.id}/${p.log}`);
      return text === undefined
        ? error(404, "The log was not found.", "BuildLogNotFoundException")
        : {
            status: 200,
            body: text
              .split("\n")
              .map((l) => `2026-02-06T10:04:00.0000000Z ${l}`)
              .join("\n"),
          };
    }),
    route("GET", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/reviewers", (p) => {
      const pr = prOf(p);
      if (!pr) return notFound("pull request");
      return list(
        (state.votes.get(pr.id) ?? []).map((v) => ({
          ...identity(v.who, base()),
          vote: v.vote,
          hasDeclined: false,
          isFlagged: false,
          reviewerUrl: `${base()}/_apis/git/repositories/${pr.repo}/pullRequests/${pr.id}/reviewers/${v.who.id}`,
        })),
      );
    }),
    route("GET", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads", (p) =>
      list(threadsOf(p).map((t) => thread(state, t, base()))),
    ),
    // https://learn.microsoft.com/rest/api/azure/devops/git/pull-request-threads/get
    route("GET", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads/{thread}", (p) => {
      const found = threadsOf(p).find((t) => t.id === Number(p.thread));
      return found ? { status: 200, body: thread(state, found, base()) } : notFound("thread");
    }),
    route("POST", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads", (p, req) => {
      const pr = prOf(p);
      if (!pr) return notFound("pull request");
      const body = req.body as {
        comments?: Array<{ content?: string }>;
        status?: unknown;
        threadContext?: { filePath?: string; rightFileStart?: { line: number }; leftFileStart?: { line: number } };
      };
      const content = body.comments?.[0]?.content;
      if (!content) return error(400, "The comment content is empty.", "InvalidArgumentValueException");
      const context = body.threadContext;
      const created = state.addThread(pr, {
        content,
        author: state.me.displayName,
        status: threadStatus(body.status ?? "active"),
        ...(context?.filePath
          ? { filePath: context.filePath, line: context.rightFileStart?.line ?? context.leftFileStart?.line ?? 1 }
          : {}),
      });
      return { status: 200, body: thread(state, created, base()) };
    }),
    route("POST", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads/{thread}/comments", (p, req) => {
      const target = threadsOf(p).find((t) => t.id === Number(p.thread));
      if (!target) return notFound("thread");
      const body = req.body as { content?: string; parentCommentId?: number };
      state.reply(target, body.content ?? "", state.me.displayName, body.parentCommentId ?? 0);
      return { status: 200, body: thread(state, target, base()).comments.at(-1) };
    }),
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-thread-comments/update: only the author may edit.
    route("PATCH", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads/{thread}/comments/{comment}", (p, req) => {
      const target = threadsOf(p).find((t) => t.id === Number(p.thread));
      const comment = target?.comments.find((c) => c.id === Number(p.comment));
      if (!target || !comment) return notFound("comment");
      if (comment.author.id !== state.me.id) return error(403, "Only the author of a comment can edit it.", "UnauthorizedRequestException");
      const content = (req.body as { content?: string }).content;
      if (!content) return error(400, "The comment content is empty.", "InvalidArgumentValueException");
      comment.content = content;
      state.edits.push(`${target.id}/${comment.id}`);
      return { status: 200, body: thread(state, target, base()).comments.find((c: { id: number }) => c.id === comment.id) };
    }),
    route("PATCH", "/{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads/{thread}", (p, req) => {
      const target = threadsOf(p).find((t) => t.id === Number(p.thread));
      if (!target) return notFound("thread");
      const status = (req.body as { status?: unknown }).status;
      if (status !== undefined) target.status = threadStatus(status);
      return { status: 200, body: thread(state, target, base()) };
    }),
  ];
}
