import fs from "node:fs";
import { createRequire } from "node:module";
import { z } from "zod";
import type { RecordedCall } from "../fake-http.ts";
import { matchPath, validate, type OpenApiDocument } from "../openapi-validate.ts";

/*
 * The fake GitHub checks every call otto's client makes against GitHub's own descriptions, in every
 * test that uses it: REST requests (route, path and query parameters, JSON body) and the fake's
 * answers against the OpenAPI description (@octokit/openapi, strict about unknown fields), GraphQL
 * requests and answers against zod shapes written from GitHub's GraphQL schema reference (the
 * schema's package, @octokit/graphql-schema, is not a dependency: the three operations otto sends
 * need a few fields of four types). A mismatch is a problem the fake reports when it closes.
 */

type Schema = Parameters<typeof validate>[1];
type Parameter = { $ref?: string; name: string; in: "path" | "query" | "header" | "cookie"; required?: boolean; schema?: Schema };
type Described = { $ref?: string; content?: Record<string, { schema?: Schema }> };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, Described>;
};
type Document = OpenApiDocument & {
  paths: Record<string, Record<string, Operation | undefined>>;
  components: { parameters: Record<string, Parameter>; responses: Record<string, Described> };
};

let cached: Document | undefined;

/** GitHub's REST description (api.github.com), parsed once per process (13 MB). */
export function githubDescription(): Document {
  cached ??= JSON.parse(
    fs.readFileSync(createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json"), "utf8"),
  ) as Document;
  return cached;
}

/** Calls made by otto's GitHub client (src/pr/github/octokit.ts sets this user agent). */
export const isOttosCall = (call: RecordedCall): boolean => (call.headers["user-agent"] ?? "").startsWith("opencode-otto");

const BASIC_ERROR: Schema = { $ref: "#/components/schemas/basic-error" };

function parameter(doc: Document, p: Parameter): Parameter {
  return p.$ref ? (doc.components.parameters[p.$ref.replace("#/components/parameters/", "")] ?? p) : p;
}

/** A path or query value (always a string on the wire) against its schema's type. */
function scalarProblem(doc: Document, schema: Schema | undefined, value: string, at: string): string[] {
  if (!schema) return [];
  const type = (schema as { type?: string }).type;
  if (type === "integer" && !/^-?\d+$/.test(value)) return [`${at}: ${JSON.stringify(value)} is not an integer`];
  if (type === "number" && Number.isNaN(Number(value))) return [`${at}: ${JSON.stringify(value)} is not a number`];
  if (type === "boolean" && value !== "true" && value !== "false") return [`${at}: ${JSON.stringify(value)} is not a boolean`];
  return type === "string" || type === undefined ? validate(doc, schema, value, at) : [];
}

/**
 * GitHub's error answers carry `status` (the code as a string) beside `message`; the description's
 * validation-error shapes predate it, so it is set aside before they are checked.
 */
function errorBody(call: RecordedCall): unknown {
  const body = call.response;
  if (call.status < 400 || typeof body !== "object" || body === null || (body as { status?: unknown }).status !== String(call.status))
    return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== "status"));
}

/** What is wrong with one REST call (`path` without the Enterprise prefix), or []. */
export function restProblems(call: RecordedCall, path: string, doc: Document = githubDescription()): string[] {
  const route = `${call.method} ${path}`;
  const template = matchPath(doc, path);
  const operation = template ? doc.paths[template]?.[call.method.toLowerCase()] : undefined;
  if (!template || !operation) return [`${route}: no such route in GitHub's REST description`];
  const at = `${call.method} ${template}`;
  const problems: string[] = [];
  const parameters = (operation.parameters ?? []).map((p) => parameter(doc, p));

  // Path parameters, by position in the template.
  const values = path.split("/");
  template.split("/").forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name)
      problems.push(
        ...scalarProblem(
          doc,
          parameters.find((p) => p.in === "path" && p.name === name)?.schema,
          decodeURIComponent(values[i] ?? ""),
          `${at} path ${name}`,
        ),
      );
  });
  // Query parameters: each one declared, of its type; the required ones present.
  const query = parameters.filter((p) => p.in === "query");
  for (const [name, value] of Object.entries(call.query)) {
    const declared = query.find((p) => p.name === name);
    if (!declared) problems.push(`${at}: query parameter ${name} is not in the description`);
    else problems.push(...scalarProblem(doc, declared.schema, value, `${at} query ${name}`));
  }
  for (const p of query) if (p.required && !(p.name in call.query)) problems.push(`${at}: required query parameter ${p.name} missing`);

  // The JSON body.
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  if (call.body !== undefined && !bodySchema) problems.push(`${at}: sends a body the description does not take`);
  else if (call.body === undefined && operation.requestBody?.required) problems.push(`${at}: the required body is missing`);
  else if (call.body !== undefined && bodySchema) problems.push(...validate(doc, bodySchema, call.body, "$body").map((e) => `${at}: ${e}`));

  // The fake's answer (an injected fault's body is the fault's, checked by the fake's unit test).
  if (call.fault || call.status === 0) return problems;
  // Conditional requests work on every GET, listed or not.
  if (call.status === 304 && call.method === "GET") return problems;
  let response = operation.responses?.[String(call.status)];
  while (response?.$ref) response = doc.components.responses[response.$ref.replace("#/components/responses/", "")];
  const schema = response ? response.content?.["application/json"]?.schema : call.status >= 400 ? BASIC_ERROR : undefined;
  if (!response && call.status < 400) problems.push(`${at}: answered ${call.status}, which the description does not list`);
  else if (schema) problems.push(...validate(doc, schema, errorBody(call), "$").map((e) => `${at} ${call.status}: ${e}`));
  else if (call.response !== undefined && call.response !== "")
    problems.push(`${at} ${call.status}: a body where the description has none`);
  return problems;
}

/*
 * GraphQL, from https://docs.github.com/en/graphql/reference: PullRequestReviewThread (id: ID!,
 * isResolved: Boolean!, comments: PullRequestReviewCommentConnection!), PullRequestReviewComment
 * (databaseId: Int), PageInfo (hasNextPage: Boolean!, endCursor: String), Repository.pullRequest
 * (nullable), ResolveReviewThreadPayload / UnresolveReviewThreadPayload (thread: nullable). Errors:
 * the GraphQL response format (message, optional type, path, locations), data null or partial.
 */
const pageInfo = z.strictObject({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const thread = z.strictObject({ id: z.string(), isResolved: z.boolean() });
const reviewThreads = z.strictObject({
  pageInfo,
  nodes: z.array(
    thread.extend({ comments: z.strictObject({ nodes: z.array(z.strictObject({ databaseId: z.number().int().nullable() })) }) }),
  ),
});
const gqlError = z.object({
  message: z.string(),
  type: z.string().optional(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  locations: z.array(z.object({ line: z.number(), column: z.number() })).optional(),
});
const withErrors = <T extends z.ZodType>(data: T) =>
  z.union([z.strictObject({ data }), z.strictObject({ data: data.nullable().optional(), errors: z.array(gqlError).min(1) })]);

const OPERATIONS = {
  otto_review_threads: {
    variables: z.strictObject({ owner: z.string(), name: z.string(), number: z.number().int(), cursor: z.string().nullable().optional() }),
    answer: withErrors(
      z.strictObject({ repository: z.strictObject({ pullRequest: z.strictObject({ reviewThreads }).nullable() }).nullable() }),
    ),
  },
  otto_resolve_thread: {
    variables: z.strictObject({ threadId: z.string() }),
    answer: withErrors(z.strictObject({ resolveReviewThread: z.strictObject({ thread: thread.nullable() }).nullable() })),
  },
  otto_unresolve_thread: {
    variables: z.strictObject({ threadId: z.string() }),
    answer: withErrors(z.strictObject({ unresolveReviewThread: z.strictObject({ thread: thread.nullable() }).nullable() })),
  },
} as const;

const issues = (error: z.ZodError, where: string): string[] => error.issues.map((i) => `${where} ${i.path.join(".") || "$"}: ${i.message}`);

/** What is wrong with one GraphQL call otto made, or []. */
export function graphqlProblems(call: RecordedCall): string[] {
  const body = z
    .strictObject({ query: z.string(), variables: z.record(z.string(), z.unknown()).optional(), operationName: z.string().optional() })
    .safeParse(call.body);
  if (!body.success) return issues(body.error, "POST graphql request");
  const name = /^\s*(?:query|mutation)\s+(\w+)/.exec(body.data.query)?.[1] ?? "";
  const operation = (OPERATIONS as Record<string, (typeof OPERATIONS)[keyof typeof OPERATIONS]>)[name];
  if (!operation)
    return [
      `POST graphql: operation ${name || "(anonymous)"} is not one otto sends; add its shape to test/support/fake-github/contract.ts`,
    ];
  const problems: string[] = [];
  const variables = operation.variables.safeParse(body.data.variables ?? {});
  if (!variables.success) problems.push(...issues(variables.error, `graphql ${name} variables`));
  if (call.fault || call.status === 0) return problems;
  if (call.status >= 400) {
    // Bad credentials or a rate limit: REST's error body.
    const error = z.object({ message: z.string(), documentation_url: z.string().optional() }).safeParse(call.response);
    return error.success ? problems : [...problems, ...issues(error.error, `graphql ${name} ${call.status} answer`)];
  }
  if (call.status !== 200)
    problems.push(`graphql ${name}: answered ${call.status}; GitHub answers GraphQL with 200 and errors in the body`);
  const answer = operation.answer.safeParse(call.response);
  if (!answer.success) problems.push(...issues(answer.error, `graphql ${name} answer`));
  return problems;
}
