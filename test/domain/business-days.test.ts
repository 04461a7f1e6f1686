/**
 * Business days (docs/live-access.md#review): Monday–Friday UTC, the reminder after 3 business days and every further
 * one.
 */
import { expect } from 'chai';
import { addBusinessDays, DAY_MS, isBusinessDay, nextReminderDueMs } from '../../src/domain/business-days';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('business days (docs/live-access.md#review)', () => {
  it('counts Monday to Friday in UTC as business days', () => {
    // 2026-11-16 is a Monday.
    const days = [16, 17, 18, 19, 20, 21, 22].map((d) => isBusinessDay(at(`2026-11-${d}T12:00:00Z`)));
    expect(days).to.deep.equal([true, true, true, true, true, false, false]);
    expect(isBusinessDay(at('2026-11-20T23:59:59.999Z'))).to.equal(true);
    expect(isBusinessDay(at('2026-11-21T00:00:00Z'))).to.equal(false);
  });

  it('puts 3 business days after Friday evening on Wednesday evening, not Monday', () => {
    expect(iso(addBusinessDays(at('2026-11-20T18:30:00Z'), 3))).to.equal('2026-11-25T18:30:00.000Z');
  });

  it('keeps the time of day within a week', () => {
    expect(iso(addBusinessDays(at('2026-11-16T09:00:00Z'), 3))).to.equal('2026-11-19T09:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-11-18T09:00:00Z'), 3))).to.equal('2026-11-23T09:00:00.000Z');
  });

  it('counts a weekend filing from Monday 00:00: Saturday + 3 is Thursday 00:00', () => {
    expect(iso(addBusinessDays(at('2026-11-21T10:00:00Z'), 3))).to.equal('2026-11-26T00:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-11-22T23:00:00Z'), 3))).to.equal('2026-11-26T00:00:00.000Z');
  });

  it('moves one business day from Friday to Monday, and 0 days from a weekend to Monday 00:00', () => {
    expect(iso(addBusinessDays(at('2026-11-20T00:00:00Z'), 1))).to.equal('2026-11-23T00:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-11-21T15:00:00Z'), 0))).to.equal('2026-11-23T00:00:00.000Z');
    expect(iso(addBusinessDays(at('2026-11-18T15:00:00Z'), 0))).to.equal('2026-11-18T15:00:00.000Z');
  });

  it('spans several weeks: 10 business days are two calendar weeks', () => {
    const start = at('2026-11-17T08:00:00Z');
    expect(addBusinessDays(start, 10) - start).to.equal(14 * DAY_MS);
  });

  it('refuses a negative or fractional number of days', () => {
    expect(() => addBusinessDays(at('2026-11-17T08:00:00Z'), -1)).to.throw(RangeError);
    expect(() => addBusinessDays(at('2026-11-17T08:00:00Z'), 1.5)).to.throw(RangeError);
    expect(() => addBusinessDays(Number.NaN, 1)).to.throw(RangeError);
  });

  describe('nextReminderDueMs', () => {
    const filed = at('2026-11-20T18:00:00Z'); // a Friday evening

    it('schedules the first reminder 3 business days after the request entered review', () => {
      expect(iso(nextReminderDueMs(undefined, filed, filed))).to.equal('2026-11-25T18:00:00.000Z');
    });

    it('repeats every further business day, skipping the weekend', () => {
      const due: string[] = [];
      let last: number | undefined;
      for (let i = 0; i < 4; i += 1) {
        last = nextReminderDueMs(last, filed, last ?? filed);
        due.push(iso(last));
      }
      expect(due).to.deep.equal([
        '2026-11-25T18:00:00.000Z',
        '2026-11-26T18:00:00.000Z',
        '2026-11-27T18:00:00.000Z',
        '2026-11-30T18:00:00.000Z',
      ]);
    });

    it('after an outage sends one late reminder, then resumes the business-day rhythm after now', () => {
      const now = at('2026-12-02T10:00:00Z'); // Wednesday, a week after the first reminder was due
      expect(iso(nextReminderDueMs(undefined, filed, now))).to.equal('2026-11-25T18:00:00.000Z');
      expect(iso(nextReminderDueMs(at('2026-11-25T18:00:00Z'), filed, now))).to.equal('2026-12-02T18:00:00.000Z');
    });
  });
});
