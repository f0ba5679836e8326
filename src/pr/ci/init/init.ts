import { randomBytes } from "node:crypto";
import { OttoError } from "../../../core/index.ts";
import { detectAzureJobs, detectWorkflows } from "./detect.ts";
import type { ConfiguredModels } from "./models.ts";
import { readPins, type Pins } from "./pins.ts";
import { describeCiInit, planCiInit, type CiForge, type RemoteForges } from "./plan.ts";
import { writeCiFiles } from "./write-files.ts";

export interface CiInitInput {
  forge: string;
  /** The repository's top level. */
  root: string;
  force: boolean;
  /** --workflow (GitHub), --job (Azure): override detection. */
  workflows: string[];
  jobs: string[];
  checkSuites: boolean;
  models: ConfiguredModels;
  currentModel?: string | undefined;
  opencodeEnv: ReadonlyMap<string, readonly string[]>;
  localProviders?: ReadonlyMap<string, string>;
  remote?: RemoteForges;
  pins?: Pins;
  /** `pr.flakes.open_issue` is on: the GitHub job gets issues: write. */
  openIssues?: boolean;
  /** `pr.flakes.rerun` is on: Azure's build identity needs "Queue builds". */
  rerun?: boolean;
}

const FORGES: Record<string, CiForge> = { github: "github", azure: "azure", ado: "azure" };

/** `/otto-pr ci init github|azure`: writes otto's CI files in the repository and says what is left to do. */
export async function ciInit(input: CiInitInput): Promise<string> {
  const forge = FORGES[input.forge];
  if (!forge)
    throw new OttoError(
      "usage",
      `Unknown CI '${input.forge}': otto writes CI files for github and azure.`,
      "Usage: /otto-pr ci init github | azure [--force]",
    );
  const pins = input.pins ?? (await readPins());
  const workflows = input.workflows.length > 0 ? input.workflows : forge === "github" ? await detectWorkflows(input.root) : [];
  const jobs = input.jobs.length > 0 ? input.jobs : forge === "azure" ? await detectAzureJobs(input.root) : [];
  const plan = planCiInit({
    forge,
    pins,
    models: input.models,
    currentModel: input.currentModel,
    opencodeEnv: input.opencodeEnv,
    workflows,
    checkSuites: input.checkSuites,
    jobs,
    ...(input.localProviders ? { localProviders: input.localProviders } : {}),
    ...(input.remote ? { remote: input.remote } : {}),
    ...(input.openIssues ? { openIssues: true } : {}),
    ...(input.rerun ? { rerun: true } : {}),
    // 80 random bits: the incoming webhook's URL is its only lock (docs/security.md).
    ...(forge === "azure" ? { webhookName: `otto-${randomBytes(10).toString("hex")}` } : {}),
  });
  await writeCiFiles(input.root, plan.files, input.force);
  return describeCiInit(plan, forge, jobs.length > 0 ? jobs : ["Build"]);
}
