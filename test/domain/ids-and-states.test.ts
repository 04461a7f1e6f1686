import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { base62FromDigest, isWellFormedId, randomBase62 } from '../../src/domain/ids';
import { eventForStatus, nextPollDelayMs, pollDelayAfter } from '../../src/domain/payment';
import { behaviourForCard, behaviourForNumber } from '../../src/domain/sandbox';
import { deriveId, newId } from '../../src/lib/ids';

describe('domain/ids (docs/api.md#secret-keys, docs/payments.md#payment-record)', () => {
  it('makes pay_ + 24 base62 characters, all distinct', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('pay_')));
    expect(ids.size).to.equal(1000);
    for (const id of ids) expect(isWellFormedId(id, 'pay_'), id).to.equal(true);
  });

  it('draws base62 characters from random bytes, skipping bytes that would bias them', () => {
    expect(randomBase62(40, randomBytes)).to.match(/^[0-9A-Za-z]{40}$/);
    expect(randomBase62(3, () => Uint8Array.from([255, 0, 61, 62, 250]))).to.equal('0z0');
  });

  it('derives the same event id from the same seed and different ids from different seeds (docs/payments.md#events)', () => {
    expect(deriveId('evt_', 'payment:pay_1:payment.created')).to.equal(
      deriveId('evt_', 'payment:pay_1:payment.created'),
    );
    expect(deriveId('evt_', 'payment:pay_1:payment.created')).not.to.equal(
      deriveId('evt_', 'payment:pay_1:payment.completed'),
    );
    expect(base62FromDigest(Uint8Array.from([0, 0, 0, 1]), 3)).to.equal('001');
  });
});

describe('domain/payment states (docs/payments.md#states) and polling (docs/payments.md#workflow)', () => {
  it('emits an event for the final statuses only', () => {
    expect(eventForStatus('completed')).to.equal('payment.completed');
    expect(eventForStatus('failed')).to.equal('payment.failed');
    expect(eventForStatus('cancelled')).to.equal('payment.cancelled');
    expect(eventForStatus('processing')).to.equal(undefined);
  });

  it('polls after 2 s, doubling to at most 60 s', () => {
    const delays: number[] = [];
    let delay: number | undefined;
    for (let i = 0; i < 8; i += 1) delays.push((delay = nextPollDelayMs(delay)));
    expect(delays).to.deep.equal([2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  });

  it('finds the poll delay a number of polls further on the schedule (the retries of pollProviderPayment)', () => {
    expect(pollDelayAfter(2000, 0)).to.equal(2000);
    expect(pollDelayAfter(2000, 1)).to.equal(4000);
    expect(pollDelayAfter(2000, 4)).to.equal(32000);
    expect(pollDelayAfter(2000, 5)).to.equal(60000);
    expect(pollDelayAfter(4000, 1_000)).to.equal(60000);
  });
});

describe('domain/sandbox test inputs (docs/payments.md#sandbox-scenarios)', () => {
  it('decides by the last four digits', () => {
    expect(behaviourForNumber('+250788000001').kind).to.equal('instant_success');
    expect(behaviourForNumber('+250788000002')).to.include({ kind: 'decline', failureCode: 'declined' });
    expect(behaviourForNumber('+250788000003').kind).to.equal('no_answer');
    expect(behaviourForNumber('+250788123456').kind).to.equal('approve_after_delay');
  });

  it('knows the three test cards', () => {
    expect(behaviourForCard('4242424242424242').kind).to.equal('instant_success');
    expect(behaviourForCard('4000000000000002')).to.include({ failureCode: 'card_declined' });
    expect(behaviourForCard('4000000000009995')).to.include({ failureCode: 'insufficient_funds' });
  });
});
