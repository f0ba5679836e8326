import type { OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk";
import { afterEach } from "vitest";
import {
  FAKE_ADO_PAT,
  FAKE_GITHUB_TOKEN,
  startFakeAdo,
  startFakeGithub,
  startFakeHttp,
  type FakeAdo,
  type FakeGithub,
  type FakeAdoOptions,
  type FakeGithubOptions,
  type FakeHttp,
} from "../../support/index.ts";

/** Fake GitHub, fake Azure DevOps and a webhook receiver for one test, closed after it. */
export interface Forges {
  gh: FakeGithub;
  ado: FakeAdo;
  hooks: FakeHttp;
  /** otto.jsonc (user) pointing otto at the fakes, as a user would point it at GitHub Enterprise or Azure DevOps Server. */
  ottoConfig(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Credentials, the way users pass them. */
  env: Record<string, string>;
}

export function useForges(options: { github?: FakeGithubOptions; ado?: FakeAdoOptions } = {}): () => Promise<Forges> {
  const open: Forges[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) {
      await f.gh.close();
      await f.ado.close();
      await f.hooks.close();
    }
  });
  return async () => {
    const gh = await startFakeGithub({ hangMs: 2_500, ...options.github });
    const ado = await startFakeAdo({ hangMs: 2_500, ...options.ado });
    const hooks = await startFakeHttp({ handle: () => ({ status: 202 }), faultReply: () => ({ status: 500 }) });
    const forges: Forges = {
      gh,
      ado,
      hooks,
      ottoConfig: (extra = {}) => ({
        pr: {
          request_timeout: "1s",
          // The fake GitHub has no secondary rate limits, as a GitHub Enterprise Server by default:
          // without the pauses GitHub.com asks for. pr-comments' GitHub test keeps them and checks them.
          providers: {
            github: { api_url: gh.apiUrl, pause_writes: false },
            ado: { base_url: ado.baseUrl, organization: "contoso", project: "payments" },
          },
        },
        notify: { webhooks: [{ type: "json", url: `${hooks.url}/hook?sig=webhook-signature-42` }], toast: true },
        ...extra,
      }),
      env: { GITHUB_TOKEN: FAKE_GITHUB_TOKEN, OTTO_ADO_PAT: FAKE_ADO_PAT },
    };
    open.push(forges);
    return forges;
  };
}

/** Runs `/<command> <args>` in a new session of a served OpenCode and returns the output of its tool. */
export async function ottoCommand(client: OpencodeClient, command: string, args: string): Promise<string> {
  const session = (await client.session.create({ body: { title: `${command} ${args}` }, throwOnError: true })).data;
  await client.session.command({ path: { id: session.id }, body: { command, arguments: args }, throwOnError: true });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  const name = command.startsWith("otto-") ? command.replace(/-/g, "_") : `otto_${command.replace(/-/g, "_")}`;
  const tool = messages.flatMap((m) => m.parts).find((p: Part): p is ToolPart => p.type === "tool" && p.tool === name);
  if (!tool || tool.state.status !== "completed")
    throw new Error(`${name} did not complete for '${args}': ${JSON.stringify(tool?.state ?? messages.map((m) => m.parts))}`);
  return tool.state.output;
}

/** Runs `/otto-pr <args>` in a new session of a served OpenCode and returns the tool's output. */
export const ottoPr = (client: OpencodeClient, args: string): Promise<string> => ottoCommand(client, "otto-pr", args);
