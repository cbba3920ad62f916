import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeNudgeLoop, detectNudgeLoop } from '../../../src/domain/monorepo/nudge-loop.ts';
import { nudgeLoopFindings } from '../../../src/domain/monorepo/nudge-loop-check.ts';
import { readPathChanged } from '../../../src/domain/monorepo/path-changed.ts';
import type { ComponentObject, ManifestSet, NudgeConfigObject } from '../../../src/domain/model.ts';

describe('detectNudgeLoop', () => {
  const push = readPathChanged(
    'event == "push" && ("op-a/***".pathChanged() || "config/***".pathChanged() || "*.clusterserviceversion.yaml".pathChanged())',
  );

  it('names each changed file with the globs it matches', () => {
    const verdict = detectNudgeLoop(['op-b/Dockerfile', 'config/manifests/x.clusterserviceversion.yaml'], push);
    assert.deepEqual(verdict, {
      kind: 'loop',
      matches: [
        {
          path: 'config/manifests/x.clusterserviceversion.yaml',
          globs: ['config/***', '*.clusterserviceversion.yaml'],
        },
      ],
    });
    assert.match(
      describeNudgeLoop(verdict, 'op-a-on-push'),
      /"config\/\*\*\*"\.pathChanged\(\), "\*\.clusterserviceversion\.yaml"\.pathChanged\(\) of op-a-on-push/,
    );
  });

  it('no loop when no changed file matches, or nothing changes', () => {
    assert.deepEqual(detectNudgeLoop(['bundle/Dockerfile'], push), { kind: 'none' });
    assert.deepEqual(detectNudgeLoop([], readPathChanged('!"x".pathChanged()')), { kind: 'none' });
  });

  it('a missing expression loops on any file', () => {
    assert.equal(detectNudgeLoop(['anything'], readPathChanged(undefined)).kind, 'loop');
  });

  it('an expression not understood "may loop", with the reason', () => {
    const verdict = detectNudgeLoop(['b.yaml', 'a.yaml', 'a.yaml'], readPathChanged('event == "push" &&'));
    assert.ok(verdict.kind === 'may-loop');
    assert.deepEqual(verdict.paths, ['a.yaml', 'b.yaml']);
    assert.match(
      describeNudgeLoop(verdict, 'r'),
      /may start r \(pipelinesascode\.tekton\.dev\/on-cel-expression: not a CEL expression/,
    );
  });
});

describe('nudgeLoopFindings', () => {
  const digest = 'f'.repeat(64);
  const component = (name: string): ComponentObject => ({
    ref: { kind: 'Component', namespace: 'ns', name },
    location: { file: 'c.yaml' },
    containerImage: `quay.io/acme/${name}`,
    buildNudgesRef: [],
  });
  const config: NudgeConfigObject = {
    ref: { kind: 'NudgeConfig', namespace: 'ns', name: 'nudge-config' },
    flavour: 'nudger',
    location: { file: 'n.yaml', line: 1 },
    entries: [{ index: 0, from: 'op', to: 'bundle', location: { file: 'n.yaml', line: 7 } }],
  };
  const set: Pick<ManifestSet, 'components' | 'nudgeConfigs'> = {
    components: [component('op'), component('bundle')],
    nudgeConfigs: [config],
  };
  const run = (component: string, cel: string, extra = '') =>
    `kind: PipelineRun\nmetadata:\n  name: ${component}-on-push\n  labels: {appstudio.openshift.io/component: ${component}}\n  annotations:\n    pipelinesascode.tekton.dev/on-cel-expression: '${cel}'\n${extra}`;

  const checkout = (opCel: string, files: Record<string, string>, extra = '') => ({
    name: 'repo',
    files: new Map([
      ['.tekton/op-push.yaml', run('op', opCel, extra)],
      ['.tekton/bundle-push.yaml', run('bundle', 'event == "push" && "bundle/***".pathChanged()')],
      ...Object.entries(files),
    ]),
  });

  it('warns when a file referencing the nudging image by digest matches its push globs', () => {
    const findings = nudgeLoopFindings(set, [
      checkout('event == "push" && ("op/***".pathChanged() || "bundle/***".pathChanged())', {
        'bundle/manifests/csv.yaml': `image: quay.io/acme/op@sha256:${digest}\n`,
        'bundle/other.yaml': 'no reference here\n',
      }),
    ]);
    assert.equal(findings.length, 1);
    const [finding] = findings;
    assert.ok(finding);
    assert.equal(finding.rule, 'nudge-loop');
    assert.equal(finding.severity, 'warning');
    assert.deepEqual(finding.location, { file: 'n.yaml', line: 7 });
    assert.match(
      finding.message,
      /^op nudges bundle in the same repository \(repo\): bundle\/manifests\/csv\.yaml matches "bundle\/\*\*\*"/,
    );
  });

  it('only files the fileMatch in force rewrites count (build-nudge-files of the push PipelineRun)', () => {
    const files = { 'bundle/manifests/csv.yaml': `image: quay.io/acme/op@sha256:${digest}\n` };
    const cel = 'event == "push" && "bundle/***".pathChanged()';
    const extra = "    build.appstudio.openshift.io/build-nudge-files: 'Dockerfile'\n";
    assert.deepEqual(nudgeLoopFindings(set, [checkout(cel, files, extra)]), []);
    assert.equal(nudgeLoopFindings(set, [checkout(cel, files)]).length, 1);
  });

  it('no warning when the nudged component is not in the checkout, or no referencing file matches', () => {
    const files = { 'bundle/manifests/csv.yaml': `image: quay.io/acme/op@sha256:${digest}\n` };
    const elsewhere = {
      name: 'op-only',
      files: new Map([['.tekton/op-push.yaml', run('op', '"*".pathChanged()')], ...Object.entries(files)]),
    };
    assert.deepEqual(nudgeLoopFindings(set, [elsewhere]), []);
    assert.deepEqual(nudgeLoopFindings(set, [checkout('event == "push" && "op/***".pathChanged()', files)]), []);
    assert.deepEqual(nudgeLoopFindings(set, []), []);
  });
});
