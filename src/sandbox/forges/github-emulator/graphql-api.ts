// The emulator's GraphQL endpoint: every document is parsed and validated against GitHub's
// published schema (`@octokit/graphql-schema`, the introspection JSON: the SDL file of the same
// package repeats some field definitions and does not build), then executed by graphql-js with a
// root value that implements the two draft mutations, enablePullRequestAutoMerge and the
// repository query (its merge settings) against emulator state. Executing through graphql-js
// means the answer has exactly the shape the query asked for, non-null rules included.
import { readFileSync } from 'node:fs';
import {
  buildClientSchema,
  execute,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { EmulatorState, PullRequestRecord, RepositoryRecord } from './state.ts';

export interface GraphqlOutcome {
  readonly status: number;
  readonly body: object;
  /** The mutation or query field names the document selected at its root. */
  readonly fields: readonly string[];
  readonly violations: readonly string[];
}

const SUPPORTED = new Set([
  'markPullRequestReadyForReview',
  'convertPullRequestToDraft',
  'enablePullRequestAutoMerge',
  'repository',
]);
const MERGE_METHODS = ['MERGE', 'SQUASH', 'REBASE'] as const;

let shared: GraphQLSchema | undefined;

function gitHubSchema(): GraphQLSchema {
  if (shared !== undefined) return shared;
  const url = new URL('./schema.json', import.meta.resolve('@octokit/graphql-schema'));
  const parsed: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || !('__schema' in parsed)) {
    throw new Error(`${url.href} is not a GraphQL introspection result`);
  }
  shared = buildClientSchema(parsed as IntrospectionQuery);
  return shared;
}

export async function runGraphql(
  state: EmulatorState,
  webUrl: string,
  request: unknown,
  login: string,
): Promise<GraphqlOutcome> {
  const { query, variables, operationName } = readRequest(request);
  if (query === undefined) {
    return problem(400, 'A query attribute must be specified and must be a string.', []);
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    const message = error instanceof GraphQLError ? error.message : 'Parse error';
    return { status: 200, body: { errors: [{ message }] }, fields: [], violations: [`GraphQL: ${message}`] };
  }
  const schema = gitHubSchema();
  const errors = validate(schema, document);
  const fields = rootFields(document);
  if (errors.length > 0) {
    const messages = errors.map((error) => error.message);
    return {
      status: 200,
      body: { errors: messages.map((message) => ({ message })) },
      fields,
      violations: messages.map((message) => `GraphQL document does not validate: ${message}`),
    };
  }
  const unsupported = fields.filter((field) => !SUPPORTED.has(field));
  if (unsupported.length > 0) {
    return problem(200, `not emulated: ${unsupported.join(', ')}`, fields);
  }
  const openPull = (id: unknown): { repository: RepositoryRecord; pull: PullRequestRecord } => {
    const found = typeof id === 'string' ? state.byNodeId(id) : undefined;
    if (found === undefined) {
      throw new GraphQLError(`Could not resolve to a node with the global id of '${String(id)}'`, {
        extensions: { type: 'NOT_FOUND' },
      });
    }
    if (found.pull.state === 'closed') {
      throw new GraphQLError('Pull request is closed', { extensions: { type: 'UNPROCESSABLE' } });
    }
    return found;
  };
  const setDraft = (draft: boolean) => (args: { input?: { pullRequestId?: unknown; clientMutationId?: unknown } }) => {
    const found = openPull(args.input?.pullRequestId);
    found.pull.draft = draft;
    found.pull.updatedAt = state.now();
    return { clientMutationId: args.input?.clientMutationId ?? null, pullRequest: graphqlPullRequest(webUrl, found) };
  };
  // The schema has already checked mergeMethod against PullRequestMergeMethod; absent means MERGE.
  const enableAutoMerge = (args: {
    input?: { pullRequestId?: unknown; mergeMethod?: unknown; clientMutationId?: unknown };
  }) => {
    const found = openPull(args.input?.pullRequestId);
    const method = MERGE_METHODS.find((candidate) => candidate === args.input?.mergeMethod) ?? 'MERGE';
    const settings = found.repository.settings;
    // GitHub's answers when the repository's settings forbid it.
    if (!settings.autoMergeAllowed) {
      throw new GraphQLError('Pull request Auto merge is not allowed for this repository', {
        extensions: { type: 'UNPROCESSABLE' },
      });
    }
    const allowed = {
      MERGE: settings.mergeCommitAllowed,
      SQUASH: settings.squashMergeAllowed,
      REBASE: settings.rebaseMergeAllowed,
    };
    if (!allowed[method]) {
      throw new GraphQLError(`Merge method ${method.toLowerCase()} merging is not allowed on this repository`, {
        extensions: { type: 'UNPROCESSABLE' },
      });
    }
    found.pull.autoMerge = { method, enabledBy: login };
    found.pull.updatedAt = state.now();
    return { clientMutationId: args.input?.clientMutationId ?? null, pullRequest: graphqlPullRequest(webUrl, found) };
  };
  const result = await execute({
    schema,
    document,
    variableValues: variables,
    operationName,
    rootValue: {
      markPullRequestReadyForReview: setDraft(false),
      convertPullRequestToDraft: setDraft(true),
      enablePullRequestAutoMerge: enableAutoMerge,
      // The repository fields a client may select; null where the token cannot see it, as GitHub.
      repository: (args: { owner?: unknown; name?: unknown }) => {
        const repository =
          typeof args.owner === 'string' && typeof args.name === 'string'
            ? state.repository(args.owner, args.name)
            : undefined;
        if (repository === undefined) {
          throw new GraphQLError(
            `Could not resolve to a Repository with the name '${String(args.owner)}/${String(args.name)}'.`,
            { extensions: { type: 'NOT_FOUND' } },
          );
        }
        return {
          id: repository.nodeId,
          databaseId: repository.id,
          name: repository.name,
          nameWithOwner: `${repository.owner}/${repository.name}`,
          ...repository.settings,
        };
      },
    },
  });
  // GitHub puts the error type beside the message, not under `extensions`.
  const body = {
    ...(result.data === undefined ? {} : { data: result.data }),
    ...(result.errors === undefined
      ? {}
      : {
          errors: result.errors.map((error) => ({
            type: error.extensions.type,
            path: error.path,
            locations: error.locations,
            message: error.message,
          })),
        }),
  };
  return { status: 200, body, fields, violations: [] };
}

/** The PullRequest fields a client may select; unselected ones are ignored by graphql-js. */
function graphqlPullRequest(
  webUrl: string,
  { repository, pull }: { repository: RepositoryRecord; pull: PullRequestRecord },
): Record<string, unknown> {
  return {
    id: pull.nodeId,
    databaseId: pull.id,
    number: pull.number,
    title: pull.title,
    body: pull.body ?? '',
    isDraft: pull.draft,
    merged: pull.merged,
    state: pull.merged ? 'MERGED' : pull.state === 'open' ? 'OPEN' : 'CLOSED',
    url: `${webUrl}/${repository.owner}/${repository.name}/pull/${String(pull.number)}`,
    headRefName: pull.headRef,
    baseRefName: pull.baseRef,
    autoMergeRequest:
      pull.autoMerge === null ? null : { mergeMethod: pull.autoMerge.method, enabledAt: pull.updatedAt },
  };
}

function readRequest(request: unknown): {
  query: string | undefined;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
} {
  if (typeof request !== 'object' || request === null)
    return { query: undefined, variables: undefined, operationName: undefined };
  const record = request as Record<string, unknown>;
  const variables = record.variables;
  return {
    query: typeof record.query === 'string' ? record.query : undefined,
    variables:
      typeof variables === 'object' && variables !== null && !Array.isArray(variables)
        ? (variables as Record<string, unknown>)
        : undefined,
    operationName: typeof record.operationName === 'string' ? record.operationName : undefined,
  };
}

function rootFields(document: DocumentNode): string[] {
  const fields: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const selection of definition.selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection.name.value);
    }
  }
  return fields;
}

function problem(status: number, message: string, fields: readonly string[]): GraphqlOutcome {
  return { status, body: { errors: [{ message }] }, fields, violations: [`GraphQL: ${message}`] };
}
