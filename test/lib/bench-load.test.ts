/** How the benchmark counts a closed loop's rate (bench/lib/load.ts): both sides of a throughput figure alike. */
import { expect } from 'chai';
import { runClosedLoop, steadyRate } from '../../bench/lib/load';

/**
 * When the answers of `connections` closed loops with latency `latencyMs` each come, until `durationMs` (the first
 * after one latency).
 */
function answersOfClosedLoop(connections: number, latencyMs: number, durationMs: number): number[] {
  const answers: number[] = [];
  for (let connection = 0; connection < connections; connection += 1) {
    // The loops do not answer in step: each is offset by a share of the latency.
    for (let at = latencyMs * (1 + connection / connections); at < durationMs; at += latencyMs) answers.push(at);
  }
  return answers;
}

describe('bench: the rate of a closed loop (bench/lib/load.ts)', () => {
  it('counts both a fast and a slow side at connections ÷ latency, where counting from the start undercounts the slow one', () => {
    for (const latencyMs of [640, 1_100]) {
      const answers = answersOfClosedLoop(32, latencyMs, 8_000);
      const expected = 32 / (latencyMs / 1000);
      expect(steadyRate(answers, 8_000)).to.be.closeTo(expected, expected * 0.05);
    }
    const slowFromStart = answersOfClosedLoop(32, 1_100, 8_000).length / 8;
    expect(slowFromStart).to.be.below((32 / 1.1) * 0.9);
  });

  it("gives the loop's answer times with its successes, failures left out", async () => {
    const run = await runClosedLoop(2, { count: 6 }, async (index) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (index === 3) throw new Error('refused');
    });
    expect(run.ok).to.equal(5);
    expect(run.failed).to.equal(1);
    expect(run.completedAtMs).to.have.length(5);
    expect(
      run.completedAtMs.every(
        (at, i) => at > 0 && at <= run.elapsedMs && (i === 0 || at >= (run.completedAtMs[i - 1] as number)),
      ),
    ).to.equal(true);
  });
});
