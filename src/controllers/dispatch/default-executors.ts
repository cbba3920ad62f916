// The executors a manager runs when its settings name none: both, over the same forges and
// credentials as the ChangeGroup controller (the public hosts plus `--<kind>-host`, tokens from the
// cluster's GitHub App or the tenant's SCM Secrets, or the resolver the settings give), so a tenant configures credentials once
// for ChangeGroup and nudge pull requests alike (docs/decisions.md D9).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicForgeHosts } from '../../adapters/forges/registry.ts';
import type { ForgeResolver } from '../../adapters/forges/resolver.ts';
import { GitWorkspaces } from '../../adapters/git/workspace.ts';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { hostedForgeResolver, type ChangeGroupControllerOptions } from '../changegroup/controller.ts';
import { DirectNudgeExecutor } from './direct/direct-executor.ts';
import type { ControllerSettings } from '../settings.ts';
import type { NudgeExecutors } from './executor.ts';
import { ForgeResolverAccess } from './renovate/forge-access.ts';
import { RenovateExecutor } from './renovate/renovate-executor.ts';

/** The hosts nudges reach: the public forges plus `--<kind>-host`, as for ChangeGroups. */
function nudgeForgeHosts(forges: ChangeGroupControllerOptions): ReturnType<typeof publicForgeHosts> {
  const hosts = publicForgeHosts();
  for (const [host, forge] of forges.forgeHosts ?? []) hosts.set(host, forge);
  return hosts;
}

/**
 * The executors over `resolver` (default: the settings' own, else one over the ChangeGroup
 * controller's hosts and credentials).
 */
export function defaultExecutors(
  client: ObjectClient,
  forges: ChangeGroupControllerOptions = {},
  resolver?: ForgeResolver,
): NudgeExecutors {
  const hosts = nudgeForgeHosts(forges);
  const forgeResolver = resolver ?? forges.forgeResolver ?? hostedForgeResolver(client, hosts, forges);
  // Beside the ChangeGroup controller's cache, not in it: each GitWorkspaces serialises the work
  // on its own repositories, and two of them must never share a bare repository.
  const cacheDir = `${forges.gitCacheDir ?? join(tmpdir(), 'nudger-git')}-nudges`;
  return {
    direct: new DirectNudgeExecutor({ resolver: forgeResolver, workspaces: new GitWorkspaces({ cacheDir }) }),
    renovate: new RenovateExecutor({ client, forgeAccess: new ForgeResolverAccess(forgeResolver, { hosts }) }),
  };
}

const shared = new WeakMap<ControllerSettings, NudgeExecutors>();
const sharedResolvers = new WeakMap<ControllerSettings, ForgeResolver>();

/**
 * The resolver of a manager's nudges, one per settings object: its executors fire through it and
 * the pre-merge controller reads triggering pull requests with it (docs/decisions.md D11), so they
 * share one token cache. The settings' own, else one over the ChangeGroup controller's hosts.
 */
export function managerForgeResolver(client: ObjectClient, settings: ControllerSettings): ForgeResolver {
  let resolver = settings.changeGroups?.forgeResolver ?? sharedResolvers.get(settings);
  if (resolver === undefined) {
    const forges = settings.changeGroups ?? {};
    resolver = hostedForgeResolver(client, nudgeForgeHosts(forges), forges);
    sharedResolvers.set(settings, resolver);
  }
  return resolver;
}

/**
 * The executors of a manager, one set per settings object: the dispatcher and the paths that hand
 * held nudges back (src/controllers/redispatch.ts) fire through the same instances, which share
 * their per-branch locks and token caches. Undefined when dispatch is off (`--nudge-dispatch=false`).
 */
export function managerExecutors(client: ObjectClient, settings: ControllerSettings): NudgeExecutors | undefined {
  const dispatch = settings.dispatch;
  if (dispatch?.enabled !== true) return undefined;
  if (dispatch.executors !== undefined) return dispatch.executors;
  let executors = shared.get(settings);
  if (executors === undefined) {
    executors = defaultExecutors(client, settings.changeGroups, managerForgeResolver(client, settings));
    shared.set(settings, executors);
  }
  return executors;
}
