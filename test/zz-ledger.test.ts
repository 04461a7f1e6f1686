/**
 * Runs last (test files run in path order, and this one sorts after every folder): the whole ledger, as the rest of
 * the suite left it, keeps the invariants of docs/ledger.md#invariants: every environment and currency sums to zero,
 * every journal balances, every merchant balance equals its postings and its balance transactions, and every payment
 * and refund of the database has exactly the journals its state calls for.
 */
import { expect } from 'chai';
import { ledgerProblems } from './helpers/ledger';
import { getStack } from './helpers/stack';

describe('the whole ledger after the suite (docs/ledger.md#invariants)', function () {
  this.timeout(120_000);

  it('keeps every invariant over every journal the suite wrote', async () => {
    const { db } = await getStack();
    const merchantIds = (await db('payments').distinct('merchant_id').pluck('merchant_id')) as string[];
    const problems = await ledgerProblems(db, { merchantIds });
    expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
  });
});
