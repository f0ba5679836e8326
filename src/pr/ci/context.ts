import { OttoError, docsUrl } from "../../core/index.ts";
import { assertSandbox } from "../../sandbox/index.ts";
import { backendDeps, createPrContext, type PrContext, type PrRuntime } from "../context/context.ts";
import { createRegistry } from "../context/registry.ts";
import type { ProviderName } from "../types.ts";
import { azureCollection } from "./azure-event.ts";
import { AZURE_VARS, GITHUB_VARS } from "./variables.ts";

/*
 * The PR context of a CI job: otto's config as usual, with the platform's word on where the forge
 * is (GITHUB_API_URL and GITHUB_SERVER_URL; System.CollectionUri) and whose token to use
 * (GITHUB_TOKEN through the config's env layer; System.AccessToken when no PAT is configured).
 * A job that cannot work at all (no sandbox, no token, no model) fails here, before anything is
 * read: nobody watches a CI job, so under "auto" it needs a sandbox as much as under "required".
 */

export async function ciContext(runtime: PrRuntime, directory: string, provider: ProviderName): Promise<PrContext> {
  const ctx = await createPrContext(runtime, directory);
  const { config } = ctx.loaded;
  const env = runtime.env;
  assertSandbox(config.sandbox, env, undefined, "otto's CI job (/otto-pr ci)");
  if (provider === "github") {
    const github = config.pr.providers.github;
    const api = env[GITHUB_VARS.apiUrl];
    if (api) github.api_url = api;
    const server = env[GITHUB_VARS.serverUrl];
    if (server) {
      const host = new URL(server).hostname.toLowerCase();
      if (!github.hosts.includes(host)) github.hosts = [...github.hosts, host];
    }
    // A machine account's comments start jobs unless the workflow's if: knows its login.
    if (env.OTTO_GITHUB_TOKEN_KIND === "machine" && !env.OTTO_GITHUB_BOT_LOGIN?.trim()) {
      throw new OttoError(
        "ci_no_bot_login",
        "OTTO_GITHUB_TOKEN is set (a machine account's token) but the repository variable OTTO_BOT_LOGIN is not: the workflow could not tell otto's own comments from a person's.",
        "Set the repository variable OTTO_BOT_LOGIN to the machine account's login (Settings → Secrets and variables → Actions → Variables).",
      );
    }
    if (!github.token && !env.GH_TOKEN) {
      throw new OttoError(
        "ci_no_token",
        "No GitHub token: GITHUB_TOKEN is not set in the otto job (nor GH_TOKEN, nor pr.providers.github.token).",
        `Pass it to the step: env: GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }} (with the permissions ${docsUrl("ci.md")} lists: contents and pull-requests write; checks, statuses and actions read).`,
      );
    }
  } else {
    const ado = config.pr.providers.ado;
    const collection = azureCollection(env[AZURE_VARS.collectionUri]);
    if (collection) {
      ado.base_url = collection.baseUrl;
      ado.organization = collection.organization;
    }
    const project = env[AZURE_VARS.teamProject];
    if (project) ado.project = project;
    const access = env[AZURE_VARS.accessToken];
    if (!ado.pat && access) {
      ado.pat = access;
      if (!ctx.loaded.secrets.includes(access)) ctx.loaded.secrets.push(access);
    }
    if (!ado.pat) {
      throw new OttoError(
        "ci_no_token",
        "No Azure DevOps token: SYSTEM_ACCESSTOKEN is not mapped into the otto job (nor OTTO_ADO_PAT, nor pr.providers.ado.pat).",
        "Map it in the step: env: SYSTEM_ACCESSTOKEN: $(System.AccessToken), and give the build service Contribute and Contribute to pull requests on the repository.",
      );
    }
  }
  if (!config.models.primary) {
    throw new OttoError(
      "ci_no_model",
      "models.primary is not set: a CI job has no session whose model otto could use.",
      'Set it in the repository\'s .otto/otto.jsonc or the job\'s user config: "models": { "primary": "<provider/model>" }, with the provider\'s API key in the job\'s env.',
    );
  }
  // The backends read the settings when built: built again from the settings above.
  return { ...ctx, registry: createRegistry(backendDeps(runtime, ctx.loaded)) };
}
