import { createHash } from "node:crypto";
import { startFakeHttp, type FaultPlan, type ReplyFault, type IncomingRequest, type RecordedCall, type Reply } from "../fake-http.ts";
import { graphqlProblems, isOttosCall, restProblems } from "./contract.ts";
import { refusal, type Permissions } from "./permissions.ts";
import { githubRoutes, graphql } from "./routes.ts";
import { GithubState } from "./state.ts";

export { isOttosCall } from "./contract.ts";
export { type Permissions } from "./permissions.ts";
export {
  GithubState,
  type AuthorAssociation,
  type CheckSpec,
  type FakePr,
  type FakeIssue,
  type FakeReview,
  type Permission,
  type ReviewState,
} from "./state.ts";

/*
 * A fake GitHub for tests, reached through the same setting users have (pr.providers.github.api_url):
 * REST with ETags (304s free against the rate limit), rate-limit headers, a 302 to job logs,
 * GraphQL review threads, token auth, request recording and fault injection.
 */

export interface FakeGithubOptions {
  /** The token clients must send (default "ghp_fake…"); undefined accepts anything. */
  token?: string;
  /** "/api/v3" makes it look like GitHub Enterprise Server (GraphQL at /api/graphql). */
  prefix?: "" | "/api/v3";
  /** How long an injected timeout holds a request (default 3 s). */
  hangMs?: number;
  /**
   * The kind of token: a person's (default: GET /user answers), or an installation's (a GitHub
   * App's, GitHub Actions' own): GET /user is a 403, what it writes is the bot's, and every route
   * needs one of `permissions` (a job's `permissions:`), else 403 as on GitHub.
   */
  installation?: { bot: string; permissions: Permissions };
}

export interface FakeGithub {
  /** The value for pr.providers.github.api_url. */
  apiUrl: string;
  state: GithubState;
  /** Every request (REST, GraphQL, log downloads), in order, each with whether it carried the token. */
  calls: RecordedCall[];
  token: string | undefined;
  faults(plan: FaultPlan | undefined): void;
  /** REST calls answered 304, and all REST calls, since `from` (an index into calls). */
  conditionalStats(from?: number): { total: number; notModified: number };
  blobCalls: RecordedCall[];
  /**
   * Otto's calls that do not match GitHub's descriptions (REST: OpenAPI; GraphQL: the schema's
   * shapes), requests and the fake's answers alike. close() throws when there are any.
   */
  contractProblems: string[];
  close(): Promise<void>;
}

export const FAKE_GITHUB_TOKEN = "ghp_fakeTokenForOttoTests0123456789abcd";
const RATE_LIMIT = 5000;

/** GitHub's answer to an installation token outside its permissions. */
const forbidden = (): Reply => ({
  status: 403,
  body: {
    message: "Resource not accessible by integration",
    documentation_url: "https://docs.github.com/rest",
    status: "403",
  },
});

function faultReply(kind: ReplyFault): Reply {
  if (kind === "rate_limit") {
    // https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits
    return {
      status: 403,
      headers: { "retry-after": "1", "x-ratelimit-remaining": "4000" },
      body: {
        message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        status: "403",
      },
    };
  }
  return { status: 500, body: { message: "Server Error" } };
}

export async function startFakeGithub(options: FakeGithubOptions = {}): Promise<FakeGithub> {
  const state = new GithubState();
  const token = "token" in options ? options.token : FAKE_GITHUB_TOKEN;
  const prefix = options.prefix ?? "";
  let used = 0;
  // Known once the servers listen; the routes read them per request.
  let serverUrl = "";
  let blobUrl = "";
  const urls = () => ({ api: `${serverUrl}${prefix}`, web: "https://github.com", blobs: blobUrl });

  /** The configured token, as GitHub takes it (`token …` or `Bearer …`); with no token configured, any Authorization header. */
  const authenticated = (headers: Record<string, string>): boolean => {
    const auth = headers.authorization ?? "";
    return token === undefined ? auth !== "" : auth === `token ${token}` || (/^bearer /i.test(auth) && auth.slice(7) === token);
  };

  // A public user's profile needs no token on GitHub (the workflow reads a bot's id so, before it has one).
  const isPublicUser = (req: IncomingRequest): boolean => req.method === "GET" && /^\/users\/[^/]+$/.test(req.path.slice(prefix.length));

  function handle(req: IncomingRequest): Reply {
    if (token !== undefined && !authenticated(req.headers) && !(isPublicUser(req) && !req.headers.authorization)) {
      return { status: 401, body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" } };
    }
    const installation = options.installation;
    if (installation) {
      const path = req.path.startsWith(prefix) ? req.path.slice(prefix.length) : req.path;
      // https://docs.github.com/en/rest/users/users#get-the-authenticated-user: not for installation tokens.
      if (req.method === "GET" && path === "/user") return forbidden();
      const missing = refusal(installation.permissions, req.method, req.path === graphqlPath ? "/graphql" : path);
      if (missing !== undefined) return forbidden();
      req = { ...req, headers: { ...req.headers, "x-fake-user": installation.bot } };
    }
    if (req.method === "POST" && req.path === graphqlPath) return graphql(state, req);
    if (!req.path.startsWith(prefix))
      return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
    const path = req.path.slice(prefix.length);
    for (const r of githubRoutes(state, urls(), prefix)) {
      const match = r.method === req.method ? r.pattern.exec(path) : null;
      if (!match) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")]));
      const reply = r.run(params, req);
      return withEtag(req, reply);
    }
    return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
  }

  /** GitHub's conditional requests: a matching If-None-Match gets 304, which does not count against the limit. */
  function withEtag(req: IncomingRequest, reply: Reply): Reply {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    const limits = (remaining: number) => ({
      "x-ratelimit-limit": String(RATE_LIMIT),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": reset,
      "x-ratelimit-used": String(used),
      "x-ratelimit-resource": "core",
    });
    if (req.method !== "GET" || reply.status !== 200) {
      used++;
      return { ...reply, headers: { ...limits(RATE_LIMIT - used), ...reply.headers } };
    }
    const etag = `W/"${createHash("sha1").update(JSON.stringify(reply.body)).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) return { status: 304, headers: { etag, ...limits(RATE_LIMIT - used) } };
    used++;
    return { ...reply, headers: { etag, ...limits(RATE_LIMIT - used), ...reply.headers } };
  }

  // Job logs live on another origin (GitHub's blob storage); the signed URL needs no token, and a
  // client that forwards one across origins is wrong.
  const blobs = await startFakeHttp({
    handle: (req) => {
      if (req.headers.authorization) return { status: 400, body: "Authorization header must not be sent to the blob store" };
      const log = state.logs.get(Number(req.path.split("/").pop()));
      return log === undefined ? { status: 404, body: "not found" } : { status: 200, body: log };
    },
    faultReply,
  });
  blobUrl = blobs.url;
  const contractProblems: string[] = [];
  const graphqlPath = prefix === "/api/v3" ? "/api/graphql" : "/graphql";
  /** Otto's calls checked as they are answered, so every test that uses the fake checks them. */
  const replied = (call: RecordedCall): void => {
    if (!isOttosCall(call)) return;
    const found = call.path === graphqlPath ? graphqlProblems(call) : restProblems(call, call.path.slice(prefix.length));
    for (const problem of found) {
      contractProblems.push(problem);
      process.stderr.write(`fake GitHub: otto's call does not match GitHub's description: ${problem}\n`);
    }
  };
  const http = await startFakeHttp({ handle, faultReply, authenticated, replied, ...(options.hangMs ? { hangMs: options.hangMs } : {}) });
  serverUrl = http.url;
  return {
    apiUrl: `${http.url}${prefix}`,
    state,
    calls: http.calls,
    token,
    faults: (plan) => http.faults(plan),
    conditionalStats(from = 0) {
      const rest = http.calls.slice(from).filter((c) => !c.path.endsWith("graphql"));
      return { total: rest.length, notModified: rest.filter((c) => c.status === 304).length };
    },
    /** Log downloads, which reach the blob store. */
    blobCalls: blobs.calls,
    contractProblems,
    close: async () => {
      await http.close();
      await blobs.close();
      if (contractProblems.length > 0)
        throw new Error(
          `fake GitHub: ${contractProblems.length} of otto's calls do not match GitHub's descriptions:\n${[...new Set(contractProblems)].join("\n")}`,
        );
    },
  };
}
