/** When a seed's run starts (docs/simulation.md#reproducibility): the seed's time of day, not the host's. */
import { expect } from 'chai';
import { seedStartMs } from '../../sim/run';

const DAY_MS = 86_400_000;

describe("a simulated run's start", () => {
  it('falls on the next day between 01:30 and 01:59 UTC, whatever hour the server starts at', () => {
    const midnight = Date.UTC(2026, 10, 30);
    for (const seed of [1, 2, 6, 12, 99])
      for (const hostMs of [midnight, midnight + 1_000, midnight + 3 * 3_600_000, midnight + DAY_MS - 1]) {
        const start = seedStartMs(seed, hostMs);
        expect(start - (midnight + DAY_MS), `seed ${seed} at ${new Date(hostMs).toISOString()}`).to.be.within(
          90 * 60_000,
          119 * 60_000,
        );
        expect(start % 60_000).to.equal(0);
      }
  });

  it('is the same time of day for a seed started at different hours, and differs between seeds', () => {
    const midnight = Date.UTC(2026, 10, 30);
    expect(seedStartMs(7, midnight + 60_000) % DAY_MS).to.equal(seedStartMs(7, midnight + 20 * 3_600_000) % DAY_MS);
    const times = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => seedStartMs(seed, midnight) % DAY_MS));
    expect(times.size).to.be.greaterThan(1);
  });
});
