/** The slice of OpenCode's client the price lookup reads: `config.providers`. */
export interface ProvidersClient {
  config: {
    providers(options?: { query?: { directory?: string } }): Promise<{
      data?: { providers: Array<{ id: string; models: Record<string, { cost?: { input?: number; output?: number } }> }> };
      error?: unknown;
    }>;
  };
}

/**
 * Whether OpenCode prices a model: its `cost` (from models.dev or the user's opencode.json).
 * Without one OpenCode records cost 0 on every message, which is unknown, not free. The providers
 * are read once per lookup function (one request for all models).
 */
export function priceLookup(client: ProvidersClient, directory: string): (providerID: string, modelID: string) => Promise<boolean> {
  let providers: Promise<Map<string, boolean>> | undefined;
  const load = async (): Promise<Map<string, boolean>> => {
    const result = await client.config.providers({ query: { directory } });
    const out = new Map<string, boolean>();
    for (const provider of result.data?.providers ?? []) {
      for (const [id, model] of Object.entries(provider.models ?? {}))
        out.set(`${provider.id}/${id}`, (model.cost?.input ?? 0) > 0 || (model.cost?.output ?? 0) > 0);
    }
    return out;
  };
  return async (providerID, modelID) => {
    providers ??= load().catch((error: unknown) => {
      providers = undefined;
      throw error;
    });
    return (await providers).get(`${providerID}/${modelID}`) ?? false;
  };
}
