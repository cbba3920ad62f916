// What the forge says of a triggering pull request (docs/decisions.md D11): its state, its page and,
// once merged, the commit the merge made, through the same resolver and credentials the
// executors use. Asked on every pre-merge reconcile while a trigger can still change: a forge sends
// nudger no events, so this poll is how a merge or a close is learnt.
import type { ForgeResolver } from '../../adapters/forges/resolver.ts';
import type { PullRequest } from '../../adapters/forges/types.ts';
import type { ForgeReading } from '../../domain/nudge/pre-merge-decision.ts';

export interface TriggerReader {
  read(namespace: string, repoUrl: string, number: number, signal: AbortSignal): Promise<ForgeReading>;
}

export class ForgeTriggerReader implements TriggerReader {
  readonly #resolver: ForgeResolver;

  constructor(resolver: ForgeResolver) {
    this.#resolver = resolver;
  }

  async read(namespace: string, repoUrl: string, number: number, signal: AbortSignal): Promise<ForgeReading> {
    const { provider, repo } = await this.#resolver.resolve(repoUrl, namespace, signal);
    const pullRequest: PullRequest = await provider.getPullRequest(repo, number);
    const mergeSha = pullRequest.mergeCommitSha?.toLowerCase();
    return {
      state: pullRequest.state,
      url: pullRequest.url,
      ...(pullRequest.state === 'merged' && mergeSha !== undefined ? { mergeSha } : {}),
    };
  }
}
