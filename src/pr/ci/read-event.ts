import { OttoError, docsUrl } from "../../core/index.ts";
import { readAzureEvent } from "./azure-event.ts";
import type { CiEvent } from "./event.ts";
import { readGithubEvent } from "./github-event.ts";
import { AZURE_VARS, GITHUB_VARS } from "./variables.ts";

export type CiPlatform = "github" | "azure";

type Env = Readonly<Record<string, string | undefined>>;

/** Which CI the job runs in, by the variables each sets, and its event. */
export async function readCiEvent(
  env: Env,
  readFile: (file: string) => Promise<string>,
): Promise<{ platform: CiPlatform; event: CiEvent }> {
  if (env[GITHUB_VARS.eventName] || env[GITHUB_VARS.actions] === "true")
    return { platform: "github", event: await readGithubEvent(env, readFile) };
  if (env[AZURE_VARS.event] || env[AZURE_VARS.collectionUri]) return { platform: "azure", event: readAzureEvent(env) };
  throw new OttoError(
    "ci_no_event",
    `No CI event: neither GitHub Actions' ${GITHUB_VARS.eventName} nor otto's ${AZURE_VARS.event} (Azure Pipelines) is set.`,
    `Run /otto-pr ci as a step of a GitHub Actions workflow or an Azure Pipelines job (${docsUrl("ci.md")}).`,
  );
}
