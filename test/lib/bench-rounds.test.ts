/**
 * How the benchmark's rounds sample each side's cost (bench/lib/rounds.ts): a side opens with the sample that closed
 * the side before when nothing ran between them, and with a fresh sample when a figure's `beforeSide` or `afterSide`
 * did work there, so that work is counted in neither side.
 */
import { expect } from 'chai';
import type { Sample } from '../../bench/lib/diagnostics';
import { runRounds, type Figure } from '../../bench/lib/rounds';

/** A sample source whose `cpu.bench` counts the samples taken, and the events of the figure in the order they ran. */
function recorder() {
  const events: string[] = [];
  let taken = 0;
  const sample = async (): Promise<Sample> => {
    taken += 1;
    events.push(`sample ${taken}`);
    return { cpu: { bench: taken }, temporal: {}, sql: {}, postgres: {} };
  };
  return { events, sample };
}

/** A figure of one metric whose sides record that they ran. */
function figure(events: string[], hooks: Pick<Figure, 'beforeSide' | 'afterSide' | 'baselineFirst'> = {}): Figure {
  return {
    id: 'x',
    title: 'test',
    service: 'service',
    baseline: 'baseline',
    metrics: [{ key: 'value', label: 'value', unit: '' }],
    measureService: async () => {
      events.push('service');
      return { value: 2, items: 1 };
    },
    measureBaseline: async () => {
      events.push('baseline');
      return { value: 1, items: 1 };
    },
    ...hooks,
  };
}

/** The events of one round of a figure whose `hook` records that it ran. */
async function oneRoundWith(hook: 'beforeSide' | 'afterSide'): Promise<string[]> {
  const { events, sample } = recorder();
  const record = async (side: string) => {
    events.push(`${hook} ${side}`);
    return 'recorded';
  };
  await runRounds(figure(events, { [hook]: record }), 1, () => undefined, sample);
  return events;
}

describe('bench: the samples around each side of a figure (bench/lib/rounds.ts)', () => {
  it('opens a side with the sample that closed the one before when nothing ran between them', async () => {
    const { events, sample } = recorder();
    const result = await runRounds(figure(events), 2, () => undefined, sample);
    expect(events).to.deep.equal([
      'sample 1',
      'service',
      'sample 2',
      'baseline',
      'sample 3',
      'baseline',
      'sample 4',
      'service',
      'sample 5',
    ]);
    // Each side's cost spans its own measurement: from the sample before it to the one after.
    expect(
      result.rounds.map((round) => [round.cost.service.cpuSeconds.bench, round.cost.baseline.cpuSeconds.bench]),
    ).to.deep.equal([
      [1, 1],
      [1, 1],
    ]);
  });

  it('takes a fresh sample after a side whose figure does work after it, and after work before a side', async () => {
    expect(await oneRoundWith('afterSide')).to.deep.equal([
      'sample 1',
      'service',
      'sample 2',
      'afterSide service',
      'sample 3',
      'baseline',
      'sample 4',
      'afterSide baseline',
    ]);
    expect(await oneRoundWith('beforeSide')).to.deep.equal([
      'beforeSide service',
      'sample 1',
      'service',
      'sample 2',
      'beforeSide baseline',
      'sample 3',
      'baseline',
      'sample 4',
    ]);
  });

  it('measures the baseline first in odd rounds and the service first in even ones when the figure asks', async () => {
    const { events, sample } = recorder();
    const result = await runRounds(figure(events, { baselineFirst: true }), 2, () => undefined, sample);
    expect(events.filter((event) => !event.startsWith('sample'))).to.deep.equal([
      'baseline',
      'service',
      'service',
      'baseline',
    ]);
    expect(result.rounds.map((round) => round.order)).to.deep.equal([
      ['baseline', 'service'],
      ['service', 'baseline'],
    ]);
  });
});
