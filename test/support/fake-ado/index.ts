import { startFakeHttp, type FaultPlan, type ReplyFault, type IncomingRequest, type RecordedCall, type Reply } from "../fake-http.ts";
import { refusal, type AdoGrants } from "./grants.ts";
import { adoRoutes } from "./routes.ts";
import { AdoState } from "./state.ts";

export { BUILD_SERVICE_DEFAULTS, type AdoGrants, type AdoPermission } from "./grants.ts";
export { AdoState, type CheckSpec as AdoCheckSpec, type FakeAdoPr } from "./state.ts";

/*
 * A fake Azure DevOps for tests, reached through pr.providers.ado.base_url: PAT (Basic) or
 * Bearer auth, api-version checks (preview where the service wants it), 203 sign-in pages,
 * 429 with Retry-After, request recording and fault injection.
 */

export const FAKE_ADO_PAT = "fakeadopat0123456789abcdefghijklmnopqrstuvwxyz01";

export interface FakeAdoOptions {
  pat?: string;
  /** An Entra token (Bearer) accepted as well, for `az account get-access-token`. */
  bearer?: string;
  hangMs?: number;
  /**
   * How a wrong PAT is answered: 401 (default), or 203 with the HTML sign-in page, which is what
   * Azure DevOps Services serves for a PAT it does not know.
   */
  badCredentials?: 401 | 203;
  /**
   * The token is a pipeline's build identity (System.AccessToken) with these grants: every route
   * needs one, else 401/403 as Azure DevOps answers (grants.ts). Unset: a person's PAT that may do anything.
   */
  identity?: AdoGrants;
}

export interface FakeAdo {
  /** The value for pr.providers.ado.base_url. */
  baseUrl: string;
  state: AdoState;
  calls: RecordedCall[];
  faults(plan: FaultPlan | undefined): void;
  close(): Promise<void>;
}

function faultReply(kind: ReplyFault): Reply {
  if (kind === "rate_limit") {
    // https://learn.microsoft.com/en-us/azure/devops/integrate/concepts/rate-limits#api-client-experience
    return {
      status: 429,
      headers: { "retry-after": "1", "x-ratelimit-resource": "Core", "x-ratelimit-delay": "0.5" },
      body: { message: "Request was blocked due to exceeding usage of resource 'Core'." },
    };
  }
  return { status: 500, body: { message: "VS402490: An unexpected error occurred." } };
}

// The body Azure DevOps serves for an anonymous API call: the sign-in page, with status 203.
const SIGN_IN = "<!DOCTYPE html><html><head><title>Azure DevOps Services | Sign In</title></head><body></body></html>";

export async function startFakeAdo(options: FakeAdoOptions = {}): Promise<FakeAdo> {
  const state = new AdoState();
  const pat = options.pat ?? FAKE_ADO_PAT;
  // Known once the server listens; the routes read it per request.
  let serverUrl = "";
  const orgBase = () => `${serverUrl}/${state.org}`;
  const routes = adoRoutes(state, orgBase);

  function handle(req: IncomingRequest): Reply {
    const auth = req.headers.authorization ?? "";
    if (auth === "") return { status: 203, headers: { "content-type": "text/html; charset=utf-8" }, body: SIGN_IN };
    const okBasic = auth === `Basic ${Buffer.from(`:${pat}`).toString("base64")}`;
    const okBearer = options.bearer !== undefined && auth === `Bearer ${options.bearer}`;
    if (!okBasic && !okBearer && options.badCredentials === 203)
      return { status: 203, headers: { "content-type": "text/html; charset=utf-8" }, body: SIGN_IN };
    if (!okBasic && !okBearer)
      return { status: 401, headers: { "www-authenticate": "Bearer authorization_uri=https://login.microsoftonline.com/" }, body: "" };
    const prefix = `/${state.org}`;
    if (!req.path.toLowerCase().startsWith(`${prefix.toLowerCase()}/`))
      return { status: 404, body: { message: `TF400813: organization not found` } };
    const path = decodeURIComponent(req.path.slice(prefix.length));
    for (const r of routes) {
      const match = r.method === req.method ? r.pattern.exec(path) : null;
      if (!match) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, match[i + 1] ?? ""]));
      const refused = options.identity && refusal(options.identity, state.me.uniqueName, req.method, path, params.project);
      if (refused) return refused;
      if (params.project !== undefined && params.project.toLowerCase() !== state.project.name && params.project !== state.project.id) {
        return { status: 404, body: { message: `TF200016: The following project does not exist: ${params.project}.` } };
      }
      const version = req.query.get("api-version");
      if (!version)
        return {
          status: 400,
          body: { message: `No api-version was supplied for the "${req.method}" request.`, typeKey: "VssVersionNotSpecifiedException" },
        };
      if (r.preview && !version.includes("-preview")) {
        return {
          status: 400,
          body: {
            message: `The requested version "${version}" of the resource is under preview. The -preview flag must be supplied in the api-version for such requests.`,
            typeKey: "VssInvalidPreviewVersionException",
          },
        };
      }
      return r.run(params, req);
    }
    return { status: 404, body: { message: "The controller for path was not found." } };
  }

  const http = await startFakeHttp({ handle, faultReply, ...(options.hangMs ? { hangMs: options.hangMs } : {}) });
  serverUrl = http.url;
  return { baseUrl: http.url, state, calls: http.calls, faults: (plan) => http.faults(plan), close: () => http.close() };
}
