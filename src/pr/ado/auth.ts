import type { BackendDeps } from "../backend.ts";
import { cliToken } from "../token.ts";

/** Azure DevOps' application id, the resource an Entra token must be issued for. */
// https://learn.microsoft.com/en-us/azure/devops/integrate/get-started/authentication/service-principal-managed-identity#q-can-i-use-a-service-principal-or-managed-identity-with-azure-cli
const ADO_RESOURCE = "499b84ac-1321-427f-aa17-267ca6975798";

/**
 * The Authorization header: a PAT (config or OTTO_ADO_PAT) as Basic, else an Entra token from `az` as
 * Bearer; undefined when neither is there: the requests go anonymous (a public project's reads
 * work), and an answer that needs credentials says none were found (http.ts).
 */
export async function adoAuthorization(deps: Pick<BackendDeps, "config" | "exec" | "log" | "secrets">): Promise<string | undefined> {
  const pat = deps.config.pr.providers.ado.pat;
  if (pat) return `Basic ${Buffer.from(`:${pat}`).toString("base64")}`;
  const token = await cliToken(deps, "az", [
    "account",
    "get-access-token",
    "--resource",
    ADO_RESOURCE,
    "--query",
    "accessToken",
    "--output",
    "tsv",
  ]);
  if (token) return `Bearer ${token}`;
  deps.log("no Azure DevOps credentials (pr.providers.ado.pat, OTTO_ADO_PAT or az account get-access-token): requests are anonymous");
  return undefined;
}
