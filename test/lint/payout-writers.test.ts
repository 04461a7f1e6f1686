/**
 * One writer of a payout (docs/payouts.md#workflow, docs/payouts.md#money): only `src/db/payouts.ts` writes the
 * `payouts` table, and only the payout workflow's activities (`src/activities/payout-activities.ts`) call its writers,
 * so the API writes no payout row, every status change is a row of the payout table its workflow committed, and each
 * write carries exactly the event and journal the row declared. Read from the sources' text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const SRC = path.resolve(__dirname, '../../src');

/** The writers of src/db/payouts.ts that store a payout or change its status. */
const WRITERS = ['insertPayoutReserved', 'insertAutomaticPayout', 'writePayoutStatus'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const relative = (file: string) => path.relative(SRC, file);

describe('one writer of a payout (docs/payouts.md#workflow)', () => {
  it('writes the payouts table only in src/db/payouts.ts', () => {
    const writing = sources(SRC).filter((file) =>
      /\(\s*'payouts'\s*\)\s*(?:\.[\w]+\([^)]*\)\s*)*\.(?:insert|update|delete|del)\(/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    expect(writing.map(relative)).to.deep.equal(['db/payouts.ts']);
  });

  it("calls the payout writers only from the payout workflow's activities: the API writes no payout row", () => {
    const calling = sources(SRC).filter(
      (file) =>
        relative(file) !== 'db/payouts.ts' &&
        WRITERS.some((writer) => new RegExp(`\\b${writer}\\(`).test(fs.readFileSync(file, 'utf8'))),
    );
    expect(calling.map(relative)).to.deep.equal(['activities/payout-activities.ts']);
  });
});
