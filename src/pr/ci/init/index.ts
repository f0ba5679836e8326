/** `/otto-pr ci init`: otto's CI files for GitHub Actions and Azure Pipelines (docs/ci.md). */
export { ciInit, type CiInitInput } from "./init.ts";
export { planCiInit, describeCiInit, type CiForge, type CiInitPlan, type CiInitPlanInput, type RemoteForges } from "./plan.ts";
export {
  renderGithubWorkflow,
  ACTIONS,
  BOT_LOGIN,
  TOKEN_KIND,
  JOB_PERMISSIONS,
  jobPermissions,
  GITHUB_IDENTITY_LINES,
  TRUSTED_ASSOCIATIONS,
  TIMEOUT_MINUTES,
  type GithubWorkflowInput,
} from "./github-workflow.ts";
export {
  renderAzureJob,
  renderAzureComments,
  AZURE_JOB_FILE,
  AZURE_COMMENTS_FILE,
  AZURE_TIMEOUT_MINUTES,
  AZURE_BUILD_SERVICE_PERMISSIONS,
  AZURE_IDENTITY_LINES,
} from "./azure-pipeline.ts";
export { GITHUB_WORKFLOW_FILE, detectWorkflows, detectAzureJobs, workflowName, azureJobs } from "./detect.ts";
export { parsePins, readPins, type Pins } from "./pins.ts";
export { providerSecrets, secretNames, type ProviderSecrets } from "./secrets.ts";
export { planModels, isLocalUrl, assertReachable, type ConfiguredModels } from "./models.ts";
export { readCiSetup, type CiInitRuntime, type CiSetup } from "./read-setup.ts";
