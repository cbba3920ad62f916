// GitLab's official OpenAPI description, merge-request subset (openapi/, CC BY-SA 4.0, vendored
// unmodified with its README), as the contract the GitLab emulator is held to: every request is
// matched to a documented operation and its parameters and JSON body checked, and so is every
// response. Where that description says nothing nudger can check against, the emulator uses the
// hand-written schemas of hand-written.ts instead, each named there with why (docs/decisions.md
// N32); the official document itself is never widened.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import {
  OpenApiContract,
  toJsonSchemaDialect,
  type Json,
  type MatchedOperation,
} from '../github-emulator/openapi-contract.ts';
import { GITLAB_ERROR_BODY, GITLAB_GENERIC_ERROR_STATUSES } from './hand-written.ts';

export type { MatchedOperation } from '../github-emulator/openapi-contract.ts';

// Read from the source tree in both layouts: this module runs as src/sandbox/forges/gitlab-emulator/
// (tests, node on src) and as dist/sandbox/forges/gitlab-emulator/ (the built CLI), the same depth
// below the package root; tsc copies no YAML into dist/, so package.json "files" ships this folder
// of src/ instead (docs/decisions.md N37).
const SPEC = new URL(
  '../../../../src/sandbox/forges/gitlab-emulator/openapi/openapi-v3-merge-requests.yaml',
  import.meta.url,
);

export class GitLabContract {
  readonly official: OpenApiContract;
  readonly #errorBody: ValidateFunction;

  constructor(document: Json) {
    this.official = new OpenApiContract(toJsonSchemaDialect(document) as Record<string, Json>);
    this.#errorBody = new Ajv({ strict: false, allErrors: true }).compile(GITLAB_ERROR_BODY);
  }

  match(method: string, pathname: string): MatchedOperation | undefined {
    return this.official.match(method, pathname);
  }

  checkRequest(operation: MatchedOperation, query: URLSearchParams, body: unknown): string[] {
    return [...this.official.checkParameters(operation, query), ...this.official.checkRequestBody(operation, body)];
  }

  /**
   * Success answers against the official schemas. Error answers: the official description lists
   * error statuses per operation but no body for any of them, so their status must be documented
   * for the operation (or be one GitLab answers anywhere) and their body is checked against the
   * hand-written GITLAB_ERROR_BODY.
   */
  checkResponse(operation: MatchedOperation, status: number, body: unknown): string[] {
    if (status < 400) return this.official.checkResponse(operation, status, body);
    const documented = this.official.checkResponse(operation, status, undefined).length === 0;
    const problems: string[] = [];
    if (!documented && !GITLAB_GENERIC_ERROR_STATUSES.includes(status)) {
      problems.push(`${operation.operationId} does not document status ${String(status)}`);
    }
    if (!this.#errorBody(body)) {
      problems.push(
        `${operation.operationId} ${String(status)} error body (hand-written schema): ${JSON.stringify(this.#errorBody.errors?.[0] ?? {})}`,
      );
    }
    return problems;
  }
}

let shared: GitLabContract | undefined;

/** The contract, read and compiled on first use and then shared by every emulator of a process. */
export function gitLabContract(): GitLabContract {
  if (shared !== undefined) return shared;
  const document = parse(readFileSync(SPEC, 'utf8')) as Json;
  shared = new GitLabContract(document);
  return shared;
}
