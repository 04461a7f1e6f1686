/** The depth of a JSON text, measured without recursion (docs/api.md#errors). */
import { expect } from 'chai';
import { nestsDeeperThan } from '../../src/lib/json-depth';

describe('nestsDeeperThan (docs/api.md#errors)', () => {
  it('counts nested objects and arrays, a scalar being depth 0', () => {
    expect(nestsDeeperThan('1', 0)).to.equal(false);
    expect(nestsDeeperThan('"x"', 0)).to.equal(false);
    expect(nestsDeeperThan('{}', 0)).to.equal(true);
    expect(nestsDeeperThan('{}', 1)).to.equal(false);
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 2)).to.equal(true);
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 3)).to.equal(false);
    expect(nestsDeeperThan('[[],[],[[]]]', 2)).to.equal(true);
    expect(nestsDeeperThan('[[],[],[]]', 2)).to.equal(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan('{"a":"[[[[{{{{"}', 1)).to.equal(false);
    expect(nestsDeeperThan('{"a":"\\\\"}', 1)).to.equal(false);
    expect(nestsDeeperThan('{"a":"\\"[[[["}', 1)).to.equal(false);
    expect(nestsDeeperThan('{"a\\"[":"\\\\",  "b":[[]]}', 2)).to.equal(true);
  });

  it('measures 100,000 levels in a loop, without touching the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(nestsDeeperThan(deep, 64)).to.equal(true);
    expect(nestsDeeperThan(deep, 100_000)).to.equal(false);
  });
});
