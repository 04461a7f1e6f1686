/**
 * The refund's table (src/domain/refund-table.ts, docs/payments.md#refund-states): the payment's table carries
 * exactly its effects for each refund event, and docs/payments.md#refund-states is generated from it, as the
 * payment's states are (test/domain/payment-table.test.ts).
 */
import { expect } from 'chai';
import { expectGeneratedSection } from '../helpers/generated-docs';
import { PAYMENT_TABLE } from '../../src/domain/payment-table';
import { REFUND_TABLE, refundStateTableMarkdown } from '../../src/domain/refund-table';

describe('refund table (docs/payments.md#refund-states)', () => {
  it("is carried by the payment's table: each of its rows for a refund event does the refund row's effects, and only the payment's write besides", () => {
    for (const refundRow of REFUND_TABLE) {
      const rows = PAYMENT_TABLE.filter((r) => r.event === refundRow.event);
      expect(rows, refundRow.event).to.not.have.length(0);
      for (const row of rows)
        expect(
          row.effects.filter((e) => e.do !== 'write'),
          `${row.from} ${row.event}`,
        ).to.deep.equal(refundRow.effects);
    }
  });

  it('takes each event in one status at most, and leads from pending only to its ends or back to pending', () => {
    const keys = REFUND_TABLE.map((r) => `${r.from} ${r.event}`);
    expect(new Set(keys).size).to.equal(keys.length);
    for (const row of REFUND_TABLE.filter((r) => r.from === 'pending'))
      expect([null, 'pending', 'completed', 'failed']).to.include(row.to);
  });

  it('shows the table between its markers (UPDATE_STATE_TABLE=1 rewrites it)', () => {
    expectGeneratedSection(
      'payments.md',
      'refund-state-table',
      'src/domain/refund-table.ts',
      refundStateTableMarkdown(),
    );
  });
});
