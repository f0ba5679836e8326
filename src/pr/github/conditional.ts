import type { ResponseCache } from "../backend.ts";
import type { GithubClient } from "./octokit.ts";

/*
 * Conditional requests: a GET sends the ETag of the last answer, and GitHub answers 304 (free
 * against the rate limit) when nothing changed. @octokit/request raises a 304 as a RequestError,
 * so it is caught here and the cached value returned.
 * https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate
 */

export interface Fetched<T> {
  value: T;
  /** False when GitHub answered 304 and the cached value was used. */
  changed: boolean;
}

type Params = Record<string, string | number>;

function isNotModified(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { status?: unknown }).status === 304;
}

/** Pages after the first one, following the Link header's rel="next", up to `maxPages` in all (the first one included). */
async function restPages(
  client: GithubClient,
  link: string | undefined,
  maxPages = Number.POSITIVE_INFINITY,
  onCapped?: () => void,
): Promise<unknown[]> {
  const out: unknown[] = [];
  let next = link && /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  for (let page = 2; next; page++) {
    if (page > maxPages) {
      onCapped?.();
      break;
    }
    const response = await client.request(`GET ${next}`);
    out.push(...(Array.isArray(response.data) ? (response.data as unknown[]) : []));
    next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.link ?? "")?.[1];
  }
  return out;
}

/** Every page of a list `route` (the first request, then the Link header's `next`), without a cache. */
export async function getAllPages(client: GithubClient, route: string, params: Params): Promise<unknown[]> {
  const response = await client.request(route, { ...params, per_page: 100 });
  const first = Array.isArray(response.data) ? (response.data as unknown[]) : [];
  return [...first, ...(await restPages(client, response.headers.link))];
}

/**
 * GET `route` with If-None-Match from `cache`; `map` turns the body into what is cached and
 * returned. The mapped value is cached, not the payload: when a `map` changes what it returns,
 * bump CACHE_VERSION (src/pr/store/store.ts) or a 304 keeps serving the old shape.
 */
export async function conditionalGet<T>(
  client: GithubClient,
  cache: ResponseCache | undefined,
  route: string,
  params: Params,
  map: (data: unknown) => T,
  options: {
    paginate?: boolean;
    /** With paginate: pages read at most (the first included); `onCapped` is told when more were left. */
    maxPages?: number;
    onCapped?: () => void;
    signal?: AbortSignal;
  } = {},
): Promise<Fetched<T>> {
  const key = `${route} ${JSON.stringify(params)}`;
  const cached = cache?.get(key);
  try {
    const response = await client.request(route, {
      ...params,
      headers: cached ? { "if-none-match": cached.etag } : {},
      ...(options.signal ? { request: { signal: options.signal } } : {}),
    });
    let data: unknown = response.data;
    if (options.paginate && Array.isArray(data))
      data = [...(data as unknown[]), ...(await restPages(client, response.headers.link, options.maxPages, options.onCapped))];
    const value = map(data);
    if (cache && response.headers.etag) cache.set(key, { etag: response.headers.etag, value });
    return { value, changed: true };
  } catch (error) {
    if (cached && isNotModified(error)) return { value: cached.value as T, changed: false };
    throw error;
  }
}
