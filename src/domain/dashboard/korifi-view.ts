// The Korifi view (issue 14, docs/decisions.md D14; D13 for what it shows): per CF space, each
// CFApp with its desired state, the droplet it runs, the builder its latest build used, readiness,
// and whether a stack update is under way (asked of the propagator's own decision, N42); then the
// space's kpack Builders and the cluster's ClusterBuilders. Pure and deterministic.
//
// What it never shows, whatever the objects hold: env values and the app's env Secret, service
// accounts and their Secrets, imagePullSecrets, condition messages (a kpack or registry message may
// quote a Secret's name). Only fields chosen here are read; nothing is rendered wholesale.
import type { BuildWorkload, CFApp, CFBuild } from '../../schema/korifi.ts';
import type { KpackBuilder, KpackClusterBuilder, KpackCondition, KpackImage } from '../../schema/kpack.ts';
import { compareStrings } from '../compare.ts';
import { BUILDER_READY_CONDITION, SUCCEEDED_CONDITION } from '../korifi/build-workload-status.ts';
import { KORIFI_APP_GUID_LABEL } from '../korifi/labels.ts';
import {
  STACK_UPDATE_APPLIED_ANNOTATION,
  STACK_UPDATE_FROM_ANNOTATION,
  appOfImage,
  decideStackUpdate,
  imageView,
  isOurBuild,
  type CFBuildView,
} from '../korifi/stack-update.ts';
import { dataTable, notShown } from './data-table.ts';
import { html, type SafeHtml } from './html.ts';
import type { KorifiSnapshot, ViewContext } from './inputs.ts';

/** Spaces listed; the rest are counted. */
export const MAX_SPACES = 100;
/** Apps listed per space, and Builders per space and ClusterBuilders; the rest are counted. */
export const MAX_ROWS = 200;

export function korifiView(spaces: readonly KorifiSnapshot[], context: ViewContext): SafeHtml {
  const sorted = [...spaces].sort((a, b) => compareStrings(a.namespace, b.namespace));
  const shown = sorted.slice(0, MAX_SPACES);
  return html`<div class="view-header">
      <h1>Korifi</h1>
      <span class="muted">${sorted.length} space${sorted.length === 1 ? '' : 's'}</span>
    </div>
    ${shown.length === 0 ? html`<p class="empty">No CF space with apps or builders.</p>` : undefined}
    ${shown.map((space) => spaceSection(space, context))} ${notShown(sorted.length - shown.length, 'space')}
    ${clusterBuildersSection(spaces)}`;
}

function nameOf(object: { readonly metadata?: { readonly name?: string } | undefined }): string {
  return object.metadata?.name ?? '';
}

function byName<T extends { readonly metadata?: { readonly name?: string } | undefined }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => compareStrings(nameOf(a), nameOf(b)));
}

// --- a space --------------------------------------------------------------------------------------

/** A space's objects looked up by name and by app, built once per render of the space. */
interface SpaceIndex {
  readonly namespace: string;
  readonly builds: ReadonlyMap<string, CFBuild>;
  readonly builders: ReadonlyMap<string, KpackBuilder>;
  readonly clusterBuilders: ReadonlyMap<string, KpackClusterBuilder>;
  /** App GUID → the kpack Image building its droplets, linked as Korifi links them (appOfImage). */
  readonly images: ReadonlyMap<string, KpackImage>;
  /** App GUID → its newest BuildWorkload: by Korifi's app-guid label, else through its CFBuild. */
  readonly workloads: ReadonlyMap<string, BuildWorkload>;
  /** App GUID → its CFBuilds, as the stack-update decision reads them. */
  readonly appBuilds: ReadonlyMap<string, readonly CFBuildView[]>;
}

function byNameMap<T extends { readonly metadata?: { readonly name?: string } | undefined }>(
  list: readonly T[],
): Map<string, T> {
  return new Map(list.map((object) => [nameOf(object), object]));
}

function isNewer(a: BuildWorkload, b: BuildWorkload): boolean {
  const order = compareStrings(a.metadata?.creationTimestamp ?? '', b.metadata?.creationTimestamp ?? '');
  return order === 0 ? compareStrings(nameOf(a), nameOf(b)) > 0 : order > 0;
}

function indexSpace(space: KorifiSnapshot): SpaceIndex {
  const builds = byNameMap(space.builds);
  const appNames = new Set(space.apps.map(nameOf));
  const appOfBuild = (name: string): string | undefined => builds.get(name)?.spec?.appRef.name;
  const images = new Map<string, KpackImage>();
  for (const image of byName(space.images)) {
    const link = {
      name: nameOf(image),
      ...(image.metadata?.labels === undefined ? {} : { labels: image.metadata.labels }),
      ownerReferences: ownerReferencesOf(image),
    };
    const app = appOfImage(link, (name) => appNames.has(name), appOfBuild);
    if (app !== undefined && !images.has(app)) images.set(app, image);
  }
  const workloads = new Map<string, BuildWorkload>();
  for (const workload of space.buildWorkloads) {
    const buildRef = workload.spec?.buildRef.name;
    const app =
      workload.metadata?.labels?.[KORIFI_APP_GUID_LABEL] ?? (buildRef === undefined ? undefined : appOfBuild(buildRef));
    if (app === undefined) continue;
    const current = workloads.get(app);
    if (current === undefined || isNewer(workload, current)) workloads.set(app, workload);
  }
  const appBuilds = new Map<string, CFBuildView[]>();
  for (const build of builds.values()) {
    const view = cfBuildView(build);
    if (view === undefined) continue;
    const list = appBuilds.get(view.spec.appRef.name);
    if (list === undefined) appBuilds.set(view.spec.appRef.name, [view]);
    else list.push(view);
  }
  return {
    namespace: space.namespace,
    builds,
    builders: byNameMap(space.builders),
    clusterBuilders: byNameMap(space.clusterBuilders),
    images,
    workloads,
    appBuilds,
  };
}

function spaceSection(space: KorifiSnapshot, context: ViewContext): SafeHtml {
  const apps = byName(space.apps);
  const shownApps = apps.slice(0, MAX_ROWS);
  const builders = byName(space.builders);
  const shownBuilders = builders.slice(0, MAX_ROWS);
  const index = indexSpace(space);
  return html`<section class="panel">
    <h2>Space <span class="mono">${space.namespace}</span></h2>
    ${
      apps.length === 0
        ? html`<p class="empty">No CFApps in this space.</p>`
        : dataTable(
            ['App', 'State', 'Current droplet', 'Latest build', 'Builder', 'Stack update'],
            shownApps.map((app) => appRow(index, app, context)),
          )
    }
    ${notShown(apps.length - shownApps.length, 'app')}
    <h3>Builders</h3>
    ${
      builders.length === 0
        ? html`<p class="empty">No kpack Builders in this space.</p>`
        : buildersTable('Builder', shownBuilders)
    }
    ${notShown(builders.length - shownBuilders.length, 'Builder')}
  </section>`;
}

function appRow(index: SpaceIndex, app: CFApp, context: ViewContext): SafeHtml {
  const guid = nameOf(app);
  const spec = app.spec;
  const actual = app.status?.actualState;
  const image = index.images.get(guid);
  return html`<tr>
    <td>${spec?.displayName ?? '—'}<br /><span class="mono muted">${guid}</span></td>
    <td>
      ${spec?.desiredState ?? '—'}${
        actual === undefined || actual === spec?.desiredState
          ? undefined
          : html`<br /><span class="muted">actual ${actual}</span>`
      }
    </td>
    <td>${dropletCell(index, app)}</td>
    <td>${latestBuildCell(index.workloads.get(guid))}</td>
    <td>${builderCell(index, image)}</td>
    <td>${stackUpdateCell(index, app, image, context)}</td>
  </tr>`;
}

/** The CFBuild the app runs: its droplet image and stack (never its imagePullSecrets). */
function dropletCell(index: SpaceIndex, app: CFApp): SafeHtml {
  const ref = app.spec?.currentDropletRef?.name;
  if (ref === undefined || ref === '') return html`<span class="muted">none (not staged)</span>`;
  const build = index.builds.get(ref);
  if (build === undefined) {
    return html`<span class="mono">${ref}</span><br /><span class="badge badge-bad">CFBuild not found</span>`;
  }
  const droplet = build.status?.droplet;
  const state = build.status?.state;
  return html`<span class="mono">${ref}</span>
    ${state === undefined || state === 'STAGED' ? undefined : html`<span class="badge badge-warn">${state}</span>`}
    ${
      droplet === undefined
        ? html`<br /><span class="muted">no droplet</span>`
        : html`<br />${imageRef(droplet.registry.image)}${
              droplet.stack === undefined ? undefined : html`<br /><span class="muted">stack ${droplet.stack}</span>`
            }`
    }`;
}

/** The app's newest BuildWorkload, by creation time (then name). */
function latestBuildCell(workload: BuildWorkload | undefined): SafeHtml {
  if (workload === undefined) return html`<span class="muted">none</span>`;
  const conditions = workload.status?.conditions;
  const builderReady = conditions?.find((c) => c.type === BUILDER_READY_CONDITION);
  return html`<span class="mono">${nameOf(workload)}</span><br />
    <span class="muted">by</span> <span class="mono">${workload.spec?.builderName ?? '—'}</span><br />
    ${conditionBadge(
      SUCCEEDED_CONDITION,
      conditions?.find((c) => c.type === SUCCEEDED_CONDITION),
    )}${builderReady === undefined ? undefined : html` ${conditionBadge(BUILDER_READY_CONDITION, builderReady)}`}`;
}

/** A condition's type, status and reason; never its message. */
function conditionBadge(
  type: string,
  condition: { readonly status: string; readonly reason?: string | undefined } | undefined,
): SafeHtml {
  if (condition === undefined) return html`<span class="badge badge-muted">${type}: not yet</span>`;
  const colour = condition.status === 'True' ? 'badge-ok' : condition.status === 'False' ? 'badge-bad' : 'badge-warn';
  const reason = condition.reason === undefined || condition.reason === '' ? '' : ` (${condition.reason})`;
  return html`<span class="badge ${colour}">${type} ${condition.status}${reason}</span>`;
}

/** `metadata.ownerReferences` (the schema passes it through untyped): kind and name of each. */
function ownerReferencesOf(image: KpackImage): { readonly kind?: string; readonly name?: string }[] {
  const metadata: Readonly<Record<string, unknown>> = image.metadata ?? {};
  const refs = metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.flatMap((ref: unknown) => {
    if (typeof ref !== 'object' || ref === null) return [];
    const { kind, name } = ref as { readonly kind?: unknown; readonly name?: unknown };
    return typeof kind === 'string' && typeof name === 'string' ? [{ kind, name }] : [];
  });
}

type AnyBuilder = KpackBuilder | KpackClusterBuilder;

/** The builder the app's kpack Image names, and whether it is ready (kpack's rule: Ready True, generation observed). */
function builderCell(index: SpaceIndex, image: KpackImage | undefined): SafeHtml {
  if (image === undefined) return html`<span class="muted">no kpack Image</span>`;
  const ref = image.spec?.builder;
  if (ref?.name === undefined) {
    return html`<span class="mono">${nameOf(image)}</span><br /><span class="muted">names no builder</span>`;
  }
  const kind = ref.kind ?? 'ClusterBuilder';
  const builder: AnyBuilder | undefined =
    kind === 'ClusterBuilder'
      ? index.clusterBuilders.get(ref.name)
      : ref.namespace === undefined || ref.namespace === index.namespace
        ? index.builders.get(ref.name)
        : undefined;
  return html`${kind} <span class="mono">${ref.name}</span><br />
    ${builder === undefined ? html`<span class="badge badge-bad">not found</span>` : readinessBadge(builder)}`;
}

/** `Ready` of a kpack Builder or ClusterBuilder, counted only once kpack observed its generation. */
function readinessBadge(builder: AnyBuilder): SafeHtml {
  const ready = builder.status?.conditions?.find((c: KpackCondition) => c.type === 'Ready');
  const generation = builder.metadata?.generation;
  const observed = builder.status?.observedGeneration;
  if (ready?.status === 'True' && generation !== undefined && observed !== generation) {
    return html`<span class="badge badge-warn">Ready: generation ${generation} not observed yet</span>`;
  }
  return conditionBadge('Ready', ready);
}

/** A CFBuild as the propagator's decision reads it; undefined without the app and package it names. */
function cfBuildView(build: CFBuild): CFBuildView | undefined {
  const name = nameOf(build);
  const spec = build.spec;
  const app = spec?.appRef.name;
  const pkg = spec?.packageRef.name;
  if (spec === undefined || app === undefined || pkg === undefined || name === '') return undefined;
  const { labels, annotations, generation } = build.metadata ?? {};
  const { state, droplet } = build.status ?? {};
  return {
    name,
    ...(generation === undefined ? {} : { generation }),
    ...(labels === undefined ? {} : { labels }),
    ...(annotations === undefined ? {} : { annotations }),
    spec: { ...spec, appRef: { name: app }, packageRef: { name: pkg } },
    ...(state === undefined ? {} : { state }),
    ...(droplet === undefined ? {} : { droplet }),
  };
}

/**
 * Whether a stack update is under way, from the propagator's own decision (N42) on the cached
 * objects: `propagate` is one not finished yet; an ignored one is shown when it says something to
 * a human (reverted, blocked, a rebuild not rolled out); else the last one applied, if the app runs it.
 */
function stackUpdateCell(index: SpaceIndex, app: CFApp, image: KpackImage | undefined, context: ViewContext): SafeHtml {
  const guid = nameOf(app);
  const current = app.spec?.currentDropletRef?.name;
  const switchedTo = app.metadata?.annotations?.[STACK_UPDATE_APPLIED_ANNOTATION];
  const builds = index.appBuilds.get(guid) ?? [];
  const applied = appliedStackUpdate(builds, current, switchedTo);
  if (image === undefined) return applied ?? html`<span class="muted">—</span>`;
  const decision = decideStackUpdate({
    image: imageView(image),
    app: {
      namespace: index.namespace,
      name: guid,
      ...(current === undefined ? {} : { currentDropletRef: current }),
      ...(switchedTo === undefined ? {} : { lastSwitchedTo: switchedTo }),
    },
    builds,
    now: new Date(context.now).toISOString(),
  });
  const { outcome } = decision;
  if (outcome.kind === 'propagate') {
    return html`<span class="badge badge-info">in flight</span><br />
      <span class="mono">${outcome.from}</span> → <span class="mono">${outcome.droplet}</span>`;
  }
  switch (outcome.why) {
    case 'reverted':
      return html`<span class="badge badge-muted">reverted by a user</span><br />
        <span class="muted">nudger switched the app to</span> <span class="mono">${switchedTo ?? ''}</span>`;
    case 'name-taken':
      return html`<span class="badge badge-bad">blocked</span><br />
        <span class="muted">the new droplet's CFBuild name is taken by one nudger did not make</span>`;
    case 'unreadable':
      return html`<span class="badge badge-bad">blocked</span><br />
        <span class="muted">nudger's CFBuild does not read as a droplet</span>`;
    case 'not-stack-only':
      return html`<span class="badge badge-muted">rebuild not rolled out</span><br />
        <span class="muted">kpack reasons ${outcome.reasons.join(',') || 'none'}: restage the app to use it</span>`;
    default:
      return applied ?? html`<span class="muted">none</span>`;
  }
}

/** The stack update the app runs now, when nudger made its droplet and switched the app to it. */
function appliedStackUpdate(
  builds: readonly CFBuildView[],
  current: string | undefined,
  switchedTo: string | undefined,
): SafeHtml | undefined {
  if (current === undefined || switchedTo !== current) return undefined;
  const build = builds.find((b) => b.name === current);
  if (build === undefined || !isOurBuild(build)) return undefined;
  const from = build.annotations?.[STACK_UPDATE_FROM_ANNOTATION];
  const stack = build.droplet?.stack;
  return html`<span class="badge badge-ok">stack updated</span>${
      stack === undefined ? undefined : html` <span class="muted">to</span> ${stack}`
    }${
      from === undefined
        ? undefined
        : html`<br /><span class="muted">from droplet</span> <span class="mono">${from}</span>`
    }`;
}

/** An image reference with its digest shortened to 12 hex digits; the whole reference in the title. */
function imageRef(ref: string): SafeHtml {
  const match = /^(.*@sha256:)([0-9a-f]{64})$/.exec(ref);
  const shown = match === null ? ref : `${match[1] ?? ''}${(match[2] ?? '').slice(0, 12)}…`;
  return html`<span class="digest" title="${ref}">${shown}</span>`;
}

// --- builders -------------------------------------------------------------------------------------

/** Name, kind, readiness, stack and latest image; never the service account or its Secrets. */
function buildersTable(kind: 'Builder' | 'ClusterBuilder', builders: readonly AnyBuilder[]): SafeHtml {
  return dataTable(
    ['Name', 'Kind', 'Ready', 'Stack', 'Latest image'],
    builders.map((builder) => {
      const image = builder.status?.latestImage;
      return html`<tr>
        <td class="mono">${nameOf(builder)}</td>
        <td>${kind}</td>
        <td>${readinessBadge(builder)}</td>
        <td>${builder.status?.stack?.id ?? builder.spec?.stack?.name ?? '—'}</td>
        <td>${image === undefined ? html`<span class="muted">none yet</span>` : imageRef(image)}</td>
      </tr>`;
    }),
  );
}

/** The cluster's ClusterBuilders (each space's snapshot carries the same list), once. */
function clusterBuildersSection(spaces: readonly KorifiSnapshot[]): SafeHtml {
  const byNameMap = new Map<string, KpackClusterBuilder>();
  for (const space of spaces) {
    for (const builder of space.clusterBuilders) {
      if (!byNameMap.has(nameOf(builder))) byNameMap.set(nameOf(builder), builder);
    }
  }
  const all = byName([...byNameMap.values()]);
  const shown = all.slice(0, MAX_ROWS);
  return html`<section class="panel">
    <h2>ClusterBuilders</h2>
    ${all.length === 0 ? html`<p class="empty">No kpack ClusterBuilders.</p>` : buildersTable('ClusterBuilder', shown)}
    ${notShown(all.length - shown.length, 'ClusterBuilder')}
  </section>`;
}
