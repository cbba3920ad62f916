// `--controllers` (docs/decisions.md N39): konflux, korifi, all, or a comma list; anything else is
// refused naming what is wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ControllerGroupsError,
  DEFAULT_CONTROLLER_GROUPS,
  parseControllerGroups,
} from '../../src/runtime/controller-groups.ts';

describe('parseControllerGroups', () => {
  it('reads one group, all, and comma lists (spaces allowed), each group once, in a fixed order', () => {
    assert.deepEqual(parseControllerGroups('konflux'), ['konflux']);
    assert.deepEqual(parseControllerGroups('korifi'), ['korifi']);
    assert.deepEqual(parseControllerGroups('all'), ['konflux', 'korifi']);
    assert.deepEqual(parseControllerGroups('korifi,konflux'), ['konflux', 'korifi']);
    assert.deepEqual(parseControllerGroups(' korifi , korifi '), ['korifi']);
    assert.deepEqual(parseControllerGroups('all,korifi'), ['konflux', 'korifi']);
  });

  it('defaults to the Konflux controllers only', () => {
    assert.deepEqual(DEFAULT_CONTROLLER_GROUPS, ['konflux']);
  });

  it('refuses unknown, misspelt, upper-case and empty names, naming the one that is wrong', () => {
    const cases: [string, RegExp][] = [
      ['kpack', /^"kpack" is not a controller group \(one or more of konflux, korifi, comma-separated, or all\)$/],
      ['konflux,korfi', /^"korfi" is not a controller group/],
      ['KORIFI', /^"KORIFI" is not a controller group/],
      ['', /^an empty name is not a controller group/],
      ['konflux,', /^an empty name is not a controller group/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => parseControllerGroups(value),
        (error: unknown) => {
          assert.ok(error instanceof ControllerGroupsError, value);
          assert.equal(error.value, value);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });
});
