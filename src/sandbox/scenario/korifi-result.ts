// The `korifi` part of `nudger sandbox --output json` (docs/sandbox.md "Korifi scenarios"): each
// app's droplets and current droplet, the kpack builders, and the Events nudger's Korifi
// controllers told. A TypeBox schema, like the rest of the result, and its text rendering. Pure.
import Type, { type Static } from 'typebox';
import { StringEnum } from '../../schema/common.ts';
import { BUILD_STATES } from '../../schema/korifi.ts';

/** Where a droplet came from: a `stage` step (Korifi's build), or nudger's stack-update propagator. */
export const DROPLET_ORIGINS = ['staged', 'stackUpdate'] as const;

// Absent values are `null`, never missing keys, as everywhere in the result.
export const KorifiDropletResult = Type.Object(
  {
    /** The CFBuild's name: the droplet GUID. */
    guid: Type.String({ minLength: 1 }),
    /** `status.state`; null before Korifi wrote one. */
    state: Type.Union([StringEnum(BUILD_STATES), Type.Null()]),
    /** `status.droplet.registry.image`, digest-pinned. */
    image: Type.Union([Type.String(), Type.Null()]),
    /** `status.droplet.stack`. */
    stack: Type.Union([Type.String(), Type.Null()]),
    origin: StringEnum(DROPLET_ORIGINS),
    /** A failed build's `Succeeded` message (`<BuildWorkload reason>: <message>`); null otherwise. */
    failure: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type KorifiDropletResult = Static<typeof KorifiDropletResult>;

export const KorifiAppResult = Type.Object(
  {
    /** The scenario's name: `spec.displayName`. */
    name: Type.String({ minLength: 1 }),
    /** The CFApp's name. */
    guid: Type.String({ minLength: 1 }),
    /** `spec.currentDropletRef.name`; null before the first staging succeeded. */
    currentDroplet: Type.Union([Type.String(), Type.Null()]),
    /** Every CFBuild of the app, oldest first. */
    droplets: Type.Array(KorifiDropletResult),
    /** The current droplet's stack. */
    stack: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type KorifiAppResult = Static<typeof KorifiAppResult>;

export const KorifiBuilderResult = Type.Object(
  {
    kind: StringEnum(['Builder', 'ClusterBuilder'] as const),
    name: Type.String({ minLength: 1 }),
    /** A Builder's space; null for a ClusterBuilder. */
    namespace: Type.Union([Type.String(), Type.Null()]),
    labels: Type.Record(Type.String(), Type.String()),
    /** `Ready=True` for the builder's current generation. */
    ready: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type KorifiBuilderResult = Static<typeof KorifiBuilderResult>;

export const KorifiEventResult = Type.Object(
  {
    /** `<Kind>/<name>` of the object the Event is about. */
    object: Type.String({ minLength: 1 }),
    reason: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: false },
);
export type KorifiEventResult = Static<typeof KorifiEventResult>;

export const KorifiResult = Type.Object(
  {
    apps: Type.Array(KorifiAppResult),
    builders: Type.Array(KorifiBuilderResult),
    /** Events nudger told in the space, oldest first. */
    events: Type.Array(KorifiEventResult),
  },
  { additionalProperties: false },
);
export type KorifiResult = Static<typeof KorifiResult>;

/** The human summary of a Korifi scenario. */
export function korifiResultLines(result: KorifiResult): string[] {
  const lines: string[] = [];
  for (const app of result.apps) {
    const current = app.droplets.find((d) => d.guid === app.currentDroplet);
    lines.push(
      `App ${app.name}: ${String(app.droplets.length)} droplet${app.droplets.length === 1 ? '' : 's'}, current ${current === undefined ? 'none' : `${current.guid} (${current.origin}, stack ${current.stack ?? 'unknown'})`}`,
    );
    for (const droplet of app.droplets.filter((d) => d.failure !== null))
      lines.push(`  ${droplet.guid} failed: ${droplet.failure ?? ''}`);
  }
  lines.push('', 'Builders:');
  for (const builder of result.builders)
    lines.push(
      `  ${builder.kind} ${builder.namespace === null ? '' : `${builder.namespace}/`}${builder.name}: ${builder.ready ? 'ready' : 'not ready'}`,
    );
  if (result.events.length > 0) {
    lines.push('', 'Events:');
    for (const event of result.events) lines.push(`  ${event.object} ${event.reason}: ${event.message}`);
  }
  return lines;
}
