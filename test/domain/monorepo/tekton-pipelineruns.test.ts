import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentPipelineRuns, readTektonDirectory } from '../../../src/domain/monorepo/tekton-pipelineruns.ts';

function pipelineRun(name: string, annotations: Record<string, string>, component?: string): string {
  const lines = ['apiVersion: tekton.dev/v1', 'kind: PipelineRun', 'metadata:', `  name: ${name}`, '  annotations:'];
  for (const [key, value] of Object.entries(annotations)) lines.push(`    ${key}: ${JSON.stringify(value)}`);
  if (component !== undefined) lines.push('  labels:', `    appstudio.openshift.io/component: ${component}`);
  return `${lines.join('\n')}\n`;
}

const CEL = 'pipelinesascode.tekton.dev/on-cel-expression';

describe('componentPipelineRuns', () => {
  it('finds a Component by its label, whatever the file is called, and reads its expression', () => {
    const files = new Map([
      ['.tekton/renamed.yaml', pipelineRun('a-push', { [CEL]: 'event == "push" && "a/***".pathChanged()' }, 'a')],
      [
        '.tekton/a-pull-request.yaml',
        pipelineRun('a-pr', { [CEL]: 'event == "pull_request" && "a/***".pathChanged()' }, 'a'),
      ],
      // named like b's, labelled a's other Component: the label decides
      ['.tekton/b-push.yaml', pipelineRun('c-push', { [CEL]: 'event == "push"' }, 'c')],
    ]);
    const push = componentPipelineRuns(files, 'a', 'push');
    assert.deepEqual(
      push.pipelineRuns.map((r) => [r.file, r.name, r.matchedBy, r.pathChanged.globs]),
      [['.tekton/renamed.yaml', 'a-push', 'label', ['a/***']]],
    );
    assert.deepEqual(
      componentPipelineRuns(files, 'a', 'pull_request').pipelineRuns.map((r) => r.name),
      ['a-pr'],
    );
    assert.deepEqual(componentPipelineRuns(files, 'b', 'push').pipelineRuns, []);
  });

  it('falls back to <component>-push.yaml / -pull-request.yaml for an unlabelled PipelineRun', () => {
    const files = new Map([
      ['.tekton/b-push.yaml', pipelineRun('b-on-push', {})],
      ['.tekton/b-pull-request.yml', pipelineRun('b-on-pr', {})],
      ['.tekton/bb-push.yaml', pipelineRun('bb-on-push', {})],
    ]);
    const push = componentPipelineRuns(files, 'b', 'push').pipelineRuns;
    assert.deepEqual(
      push.map((r) => [r.name, r.matchedBy, r.pathChanged]),
      [['b-on-push', 'file-name', { globs: ['*'], understood: true }]],
    );
    assert.deepEqual(
      componentPipelineRuns(files, 'b', 'pull_request').pipelineRuns.map((r) => r.name),
      ['b-on-pr'],
    );
  });

  it('takes the event from the expression, else from on-event, else from the file name', () => {
    const files = new Map([
      ['.tekton/x-1.yaml', pipelineRun('cel-push', { [CEL]: '"push" == event && "x".pathChanged()' }, 'x')],
      [
        '.tekton/x-2.yaml',
        pipelineRun('on-event-both', { 'pipelinesascode.tekton.dev/on-event': '[pull_request, push]' }, 'x'),
      ],
      ['.tekton/x-push.yaml', pipelineRun('suffix', { 'pipelinesascode.tekton.dev/on-target-branch': '[main]' }, 'x')],
    ]);
    assert.deepEqual(
      componentPipelineRuns(files, 'x', 'push').pipelineRuns.map((r) => [r.name, r.onTargetBranch]),
      [
        ['cel-push', undefined],
        ['on-event-both', undefined],
        ['suffix', '[main]'],
      ],
    );
    assert.deepEqual(
      componentPipelineRuns(files, 'x', 'pull_request').pipelineRuns.map((r) => r.name),
      ['on-event-both'],
    );
  });

  it('reads build-nudge-files and every PipelineRun of a multi-document file; other kinds are ignored', () => {
    const text = `${pipelineRun('web-push', { [CEL]: 'event == "push"', 'build.appstudio.openshift.io/build-nudge-files': 'deploy/.*' }, 'web')}---\nkind: ConfigMap\nmetadata: {name: z}\n`;
    const [run] = componentPipelineRuns(new Map([['.tekton/all.yaml', text]]), 'web', 'push').pipelineRuns;
    assert.equal(run?.buildNudgeFiles, 'deploy/.*');
    assert.deepEqual(run.pathChanged.globs, ['*']);
  });

  it('reports a file that is not YAML and reads the others; non-YAML names are not read', () => {
    const files = new Map([
      ['.tekton/broken.yaml', 'metadata: [unclosed\n'],
      ['.tekton/notes.txt', 'kind: PipelineRun'],
      ['.tekton/z-push.yaml', pipelineRun('z', {}, 'z')],
    ]);
    const directory = readTektonDirectory(files);
    assert.deepEqual(
      directory.problems.map((p) => p.file),
      ['.tekton/broken.yaml'],
    );
    assert.equal(componentPipelineRuns(directory, 'z', 'push').pipelineRuns.length, 1);
  });
});
