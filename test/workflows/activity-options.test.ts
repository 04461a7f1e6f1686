/**
 * Every activity retry policy has a bound (docs/limits.md#retries): each options constant
 * of `src/workflows/activity-options.ts` ends by `maximumAttempts` or a schedule-to-close time-out,
 * the bounds fit the promises (initiation and polls run until the payment's expiry, read-model
 * writes for days), and every `proxyActivities` / `proxyLocalActivities` call of a workflow file is
 * given such options.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ActivityOptions } from '@temporalio/workflow';
import { FAILURE_TYPES } from '../../src/workflows/activity-contracts';
import * as options from '../../src/workflows/activity-options';

const WORKFLOWS_DIR = path.resolve(__dirname, '../../src/workflows');

/** Milliseconds of a Temporal duration (number of ms, or '10 seconds', '2 minutes', '7 days'). */
function ms(duration: ActivityOptions['scheduleToCloseTimeout']): number {
  if (duration === undefined) return 0;
  if (typeof duration === 'number') return duration;
  const match = /^(\d+) (millisecond|second|minute|hour|day)s?$/.exec(String(duration));
  if (!match) throw new Error(`unexpected duration ${String(duration)}`);
  const unit = { millisecond: 1, second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }[
    match[2] as 'second'
  ];
  return Number(match[1]) * unit;
}

function isBounded(activityOptions: ActivityOptions): boolean {
  return ms(activityOptions.scheduleToCloseTimeout) > 0 || (activityOptions.retry?.maximumAttempts ?? 0) > 0;
}

/** The exported options of the module, the functions called with a payment 10 minutes from its expiry. */
function exportedOptions(): [string, ActivityOptions][] {
  return Object.entries(options).flatMap(([name, value]): [string, ActivityOptions][] => {
    if (typeof value === 'function')
      return [
        [
          name,
          (value as (...args: number[]) => ActivityOptions)(...(name === 'pollOptions' ? [2_000, 600_000] : [600_000])),
        ],
      ];
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      ('startToCloseTimeout' in value || 'scheduleToCloseTimeout' in value)
    )
      return [[name, value as ActivityOptions]];
    return [];
  });
}

describe('activity options: every retry is bounded (docs/limits.md#retries)', () => {
  it('bounds every options constant of the module by attempts or a schedule-to-close time-out', () => {
    const all = exportedOptions();
    expect(all.map(([name]) => name)).to.include.members([
      'RECORD_OPTIONS',
      'initiationOptions',
      'PROVIDER_OPTIONS',
      'REFUND_OPTIONS',
      'pollOptions',
      'REVIEW_RECORD_OPTIONS',
      'REVIEW_MAIL_OPTIONS',
      'DELIVERY_RECORD_OPTIONS',
    ]);
    for (const [name, value] of all) expect(isBounded(value), name).to.equal(true);
  });

  it('retries initiation and polls until the payment expires, never less, and read-model writes for days', () => {
    expect(ms(options.initiationOptions(72 * 3_600_000).scheduleToCloseTimeout)).to.equal(72 * 3_600_000);
    expect(ms(options.initiationOptions(1_000).scheduleToCloseTimeout)).to.equal(options.INITIATION_MIN_GIVE_UP_MS);
    expect(ms(options.pollOptions(2_000, 24 * 3_600_000).scheduleToCloseTimeout)).to.equal(24 * 3_600_000);
    expect(ms(options.RECORD_OPTIONS.scheduleToCloseTimeout)).to.be.at.least(7 * 86_400_000);
    expect(ms(options.REVIEW_RECORD_OPTIONS.scheduleToCloseTimeout)).to.be.at.least(7 * 86_400_000);
    for (const [name, value] of exportedOptions())
      expect(value.retry?.nonRetryableErrorTypes, name).to.include(FAILURE_TYPES.dataError);
  });

  it('gives every proxyActivities and proxyLocalActivities call of the workflows bounded options', () => {
    const exported = new Map(exportedOptions());
    const calls: string[] = [];
    for (const file of fs.readdirSync(WORKFLOWS_DIR).filter((name) => name.endsWith('.ts'))) {
      const source = fs.readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8');
      for (const match of source.matchAll(/proxy(?:Local)?Activities<[^>]*>\(\s*([A-Za-z_]\w*)/g)) {
        const name = match[1] as string;
        calls.push(`${file}: ${name}`);
        if (exported.has(name)) continue;
        // Options declared in the workflow file itself: their literal must carry a bound.
        const declared = new RegExp(`const ${name}: ActivityOptions = \\{([\\s\\S]*?)\\n\\};`).exec(source);
        expect(declared, `${file}: ${name} is neither from activity-options nor declared in the file`).to.not.equal(
          null,
        );
        expect(
          /scheduleToCloseTimeout|maximumAttempts: [1-9]/.test(declared?.[1] ?? ''),
          `${file}: ${name} has no bound`,
        ).to.equal(true);
      }
    }
    expect(calls.length).to.be.at.least(6);
  });
});
