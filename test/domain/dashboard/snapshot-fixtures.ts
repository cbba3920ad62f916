// Fixtures for the dashboard view tests (docs/decisions.md D14): cluster objects typed by the real
// schema types, a namespace snapshot whose graph comes from the real graph function, and the checks
// that a rendered page carries no markup from its data (hostile values stay text, no style
// attributes, no inline script or event handlers, no link to anything but the dashboard or http(s)).
import assert from 'node:assert/strict';
import { namespaceNudgeGraph } from '../../../src/cluster/nudge-graph.ts';
import type { NamespaceSnapshot } from '../../../src/domain/dashboard/inputs.ts';
import { COMPONENT_LABEL, PAC_EVENT_TYPE_KEY } from '../../../src/domain/nudge-pipelinerun.ts';
import { DISPATCH_MARKER_ANNOTATION } from '../../../src/domain/nudge/dispatch-marker.ts';
import type { ClusterChangeGroup } from '../../../src/schema/changegroup.ts';
import type { Condition } from '../../../src/schema/common.ts';
import type { ClusterComponent } from '../../../src/schema/component.ts';
import type { ClusterNudgeConfig, NudgeRelationship } from '../../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';

export const SCRIPT = '<script>alert(1)</script>';
export const IMG = '"><img src=x onerror=alert(1)>';
export const JS_URL = 'javascript:alert(1)';
/** How `html` writes SCRIPT and IMG. */
export const SCRIPT_ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;';
export const IMG_ESCAPED = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

export const NOW = Date.parse('2026-01-15T12:00:00Z');

/** `2026-01-15T10:00:00Z` plus `minutes`, as the API server writes times. */
export function at(minutes: number): string {
  return new Date(Date.parse('2026-01-15T10:00:00Z') + minutes * 60_000).toISOString().replace('.000Z', 'Z');
}

export function digest(character: string): string {
  return `sha256:${character.repeat(64)}`;
}

export function component(namespace: string, name: string, nudges: readonly string[] = []): ClusterComponent {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: nudges.length === 0 ? {} : { 'build-nudges-ref': [...nudges] },
  };
}

export function validCondition(status: Condition['status'], reason: string, message: string): Condition {
  return { type: 'Valid', status, reason, message, lastTransitionTime: at(0) };
}

export function nudgeConfig(
  namespace: string,
  nudges: readonly NudgeRelationship[],
  options: { readonly condition?: Condition; readonly generation?: number; readonly observedGeneration?: number } = {},
): ClusterNudgeConfig {
  const { condition, generation, observedGeneration } = options;
  return {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace, ...(generation === undefined ? {} : { generation }) },
    spec: { nudges: [...nudges] },
    ...(condition === undefined
      ? {}
      : {
          status: {
            conditions: [condition],
            ...(observedGeneration === undefined ? {} : { observedGeneration }),
          },
        }),
  };
}

export interface BuildOptions {
  readonly namespace: string;
  readonly component: string;
  readonly minute: number;
  readonly marker?: string;
  /** PaC's event type; `push` unless given. */
  readonly eventType?: string;
}

/** A build PipelineRun as the informer holds it. */
export function buildRun(name: string, options: BuildOptions): PipelineRun {
  const { namespace, component: owner, minute, marker, eventType } = options;
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace,
      creationTimestamp: at(minute),
      labels: { [COMPONENT_LABEL]: owner, [PAC_EVENT_TYPE_KEY]: eventType ?? 'push' },
      annotations: marker === undefined ? {} : { [DISPATCH_MARKER_ANNOTATION]: marker },
    },
    status: {
      conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }],
      results: [{ name: 'IMAGE_DIGEST', value: digest('a') }],
    },
  };
}

export function changeGroup(
  namespace: string,
  name: string,
  options: { readonly nudged?: string; readonly created?: number; readonly status?: ClusterChangeGroup['status'] } = {},
): ClusterChangeGroup {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name, namespace, creationTimestamp: at(options.created ?? 0) },
    spec: { nudgedComponent: options.nudged ?? 'bundle' },
    ...(options.status === undefined ? {} : { status: options.status }),
  };
}

export interface SnapshotParts {
  readonly components?: readonly ClusterComponent[];
  readonly nudgeConfig?: ClusterNudgeConfig;
  readonly changeGroups?: readonly ClusterChangeGroup[];
  readonly buildRuns?: readonly PipelineRun[];
}

/** A namespace snapshot as the server builds it: the graph from the one graph function. */
export function snapshot(namespace: string, parts: SnapshotParts = {}): NamespaceSnapshot {
  const components = parts.components ?? [];
  return {
    namespace,
    components,
    nudgeConfig: parts.nudgeConfig,
    graph: namespaceNudgeGraph(namespace, { components, nudgeConfig: parts.nudgeConfig }),
    changeGroups: parts.changeGroups ?? [],
    buildRuns: parts.buildRuns ?? [],
    nudgeRuns: [],
  };
}

/** The opening tags of `text` with their quoted attribute values emptied (escaped values hold no `"`). */
function tagsOf(text: string): string[] {
  return [...text.matchAll(/<[a-zA-Z][^>]*>/g)].map(([tag]) => tag.replace(/"[^"]*"/g, '""'));
}

/** The one script a page may load: the dashboard's own module, by URL, with no body. */
export const PAGE_SCRIPT = '<script type="module" src="/assets/dashboard.js"></script>';

/**
 * `text` carries no style attribute, no event-handler attribute, no script but PAGE_SCRIPT, no
 * `<style>`, and links only to dashboard paths or http(s) URLs.
 */
export function assertInert(text: string): void {
  for (const tag of tagsOf(text)) {
    assert.doesNotMatch(tag, /\sstyle\s*=/i, `style attribute in ${tag}`);
    assert.doesNotMatch(tag, /\son[a-z]+\s*=/i, `event handler in ${tag}`);
    assert.doesNotMatch(tag, /^<style/i, 'a <style> element');
  }
  assert.doesNotMatch(text.replaceAll(PAGE_SCRIPT, ''), /<script/i, 'an inline or foreign script');
  for (const [, , target] of text.matchAll(/\s(href|src|action)="([^"]*)"/g)) {
    assert.match(target ?? '', /^(\/|https?:\/\/)/, `link target ${String(target)}`);
  }
}

/** `text` shows each hostile value only escaped: as text, never as markup. */
export function assertEscaped(text: string): void {
  assert.ok(!text.includes(SCRIPT), 'the script tag appears as markup');
  assert.ok(!text.includes('<img'), 'the img tag appears as markup');
  assertInert(text);
}
