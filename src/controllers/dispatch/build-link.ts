// The build's repo-at-sha link as both executors quote it in the commit body and the pull request
// (docs/decisions.md N17): one that could break the text (not http(s), user information, quotes) is
// left out, as build-service leaves it out, and the executor says so once while it lasts: a
// Component's builds carry the same link, so telling it on every nudge told nothing new (N49).
import { quotableRepoAtShaLink } from '../../domain/nudge/repository-link.ts';
import type { ExecutorNotice, NudgeRequest } from './executor.ts';

export const BUILD_LINK_IGNORED = 'NudgeBuildLinkIgnored';

/** The link to quote (a nudge's build, or a validated batch entry's), or '' with a Warning pushed onto `notices`. */
export function quotedBuildLink(request: Pick<NudgeRequest, 'build' | 'buildRun'>, notices: ExecutorNotice[]): string {
  const { link, ignored } = quotableRepoAtShaLink(request.buildRun.metadata?.annotations ?? {});
  if (ignored !== undefined) {
    // No build name in the text: the fact (and so the Event told once) is the link's fault.
    notices.push({
      type: 'Warning',
      reason: BUILD_LINK_IGNORED,
      message: `the repository link of this Component's builds ${ignored}; nudges quote none`,
      once: true,
    });
  }
  return link;
}
