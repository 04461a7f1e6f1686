/**
 * The pure webhook rules: schedule, classification, decisions and endpoint statuses (docs/webhooks.md), URL form
 * (docs/webhooks.md#targets).
 */
import { expect } from 'chai';
import {
  activeSecrets,
  attemptNotMadeDelayMs,
  checkWebhookUrl,
  classifyAttempt,
  decideAfterAttempt,
  deliveryStatusAfter,
  endpointFailureReason,
  endpointStateAfter,
  endpointTransition,
  MAX_RETRY_AFTER_MS,
  parseRetryAfterMs,
  privateTargetsAllowed,
  receivesDeliveries,
  RETRY_DELAYS_MS,
  scheduledDelayMs,
  SECRET_ROTATION_OVERLAP_MS,
  type EndpointState,
} from '../../src/domain/webhooks';

const MIN = 60_000;
const HOUR = 60 * MIN;
const failed = (statusCode: number | null, retryAfterMs: number | null = null) => ({ statusCode, retryAfterMs });

describe('webhook rules (docs/webhooks.md)', () => {
  describe('schedule (docs/webhooks.md#retries)', () => {
    it('waits 5 min, 30 min, 2 h and 24 h after attempts 1 to 4, and nothing after the fifth', () => {
      expect(RETRY_DELAYS_MS).to.deep.equal([5 * MIN, 30 * MIN, 2 * HOUR, 24 * HOUR]);
      expect([1, 2, 3, 4, 5].map(scheduledDelayMs)).to.deep.equal([5 * MIN, 30 * MIN, 2 * HOUR, 24 * HOUR, undefined]);
    });

    it('retries a failure with the scheduled delay and fails the delivery after the fifth', () => {
      expect(decideAfterAttempt(1, failed(500))).to.deep.equal({ kind: 'retry', delayMs: 5 * MIN });
      expect(decideAfterAttempt(4, failed(null))).to.deep.equal({ kind: 'retry', delayMs: 24 * HOUR });
      expect(decideAfterAttempt(5, failed(500))).to.deep.equal({ kind: 'failed', reason: 'exhausted' });
    });
  });

  describe('classification (docs/webhooks.md#retries)', () => {
    it('counts any 2xx as success, 410 as gone and everything else as a failure', () => {
      for (const code of [200, 201, 202, 204, 299]) expect(classifyAttempt({ statusCode: code })).to.equal('succeeded');
      expect(classifyAttempt({ statusCode: 410 })).to.equal('gone');
      for (const code of [null, 100, 301, 302, 304, 400, 404, 429, 500, 503])
        expect(classifyAttempt({ statusCode: code })).to.equal('failed');
    });

    it('ends a delivery at once on 410 Gone (Standard Webhooks), even on the first attempt', () => {
      expect(decideAfterAttempt(1, failed(410))).to.deep.equal({ kind: 'failed', reason: 'gone' });
    });
  });

  describe('Retry-After', () => {
    it('parses delay-seconds and HTTP dates, and ignores what it cannot read', () => {
      const now = Date.parse('2026-11-21T10:00:00Z');
      expect(parseRetryAfterMs('120', now)).to.equal(120_000);
      expect(parseRetryAfterMs(' 0 ', now)).to.equal(0);
      expect(parseRetryAfterMs('Sat, 21 Nov 2026 11:00:00 GMT', now)).to.equal(HOUR);
      expect(parseRetryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now)).to.equal(0);
      expect(parseRetryAfterMs('soon', now)).to.equal(undefined);
      expect(parseRetryAfterMs(undefined, now)).to.equal(undefined);
    });

    it('honours a longer Retry-After on 429 and 503 only, capped at 24 h', () => {
      expect(decideAfterAttempt(1, failed(429, 2 * HOUR))).to.deep.equal({ kind: 'retry', delayMs: 2 * HOUR });
      expect(decideAfterAttempt(1, failed(503, 10 * MIN))).to.deep.equal({ kind: 'retry', delayMs: 10 * MIN });
      expect(decideAfterAttempt(2, failed(503, 10 * MIN))).to.deep.equal(
        { kind: 'retry', delayMs: 30 * MIN },
        'shorter than the schedule',
      );
      expect(decideAfterAttempt(1, failed(500, 2 * HOUR))).to.deep.equal(
        { kind: 'retry', delayMs: 5 * MIN },
        'not on a 500',
      );
      expect(decideAfterAttempt(1, failed(429, 72 * HOUR))).to.deep.equal({
        kind: 'retry',
        delayMs: MAX_RETRY_AFTER_MS,
      });
      expect(decideAfterAttempt(5, failed(429, HOUR))).to.deep.equal(
        { kind: 'failed', reason: 'exhausted' },
        'never a sixth attempt',
      );
    });
  });

  describe('statuses (docs/payments.md#events, docs/webhooks.md#retries)', () => {
    it('gives the delivery its status from the decision', () => {
      expect(deliveryStatusAfter({ kind: 'succeeded' })).to.equal('succeeded');
      expect(deliveryStatusAfter({ kind: 'retry', delayMs: 1 })).to.equal('pending');
      expect(deliveryStatusAfter({ kind: 'failed', reason: 'gone' })).to.equal('failed');
    });

    const enabled: EndpointState = { status: 'enabled', failureKind: null };
    const disabled: EndpointState = { status: 'disabled', failureKind: null };
    const exhausted: EndpointState = { status: 'failed', failureKind: 'exhausted' };
    const gone: EndpointState = { status: 'failed', failureKind: 'gone' };

    it('marks an enabled endpoint failed after the fifth failure and enables it again on a later success', () => {
      expect(endpointStateAfter(enabled, { kind: 'failed', reason: 'exhausted' })).to.deep.equal(exhausted);
      expect(endpointStateAfter(exhausted, { kind: 'failed', reason: 'exhausted' })).to.deep.equal(exhausted);
      expect(endpointStateAfter(exhausted, { kind: 'succeeded' })).to.deep.equal(enabled);
      expect(endpointStateAfter({ status: 'failed', failureKind: null }, { kind: 'succeeded' })).to.deep.equal(enabled);
      expect(endpointStateAfter(enabled, { kind: 'retry', delayMs: 1 })).to.deep.equal(enabled);
    });

    it('marks the endpoint failed (gone), not disabled, on 410; only the merchant takes it back; a merchant’s disabled is never overridden', () => {
      expect(endpointStateAfter(enabled, { kind: 'failed', reason: 'gone' })).to.deep.equal(gone);
      expect(endpointStateAfter(exhausted, { kind: 'failed', reason: 'gone' })).to.deep.equal(gone);
      expect(endpointStateAfter(gone, { kind: 'succeeded' })).to.deep.equal(gone);
      expect(endpointStateAfter(gone, { kind: 'failed', reason: 'exhausted' })).to.deep.equal(gone);
      expect(endpointStateAfter(disabled, { kind: 'failed', reason: 'gone' })).to.deep.equal(disabled);
      expect(endpointStateAfter(disabled, { kind: 'succeeded' })).to.deep.equal(disabled);
      expect(endpointStateAfter(disabled, { kind: 'failed', reason: 'exhausted' })).to.deep.equal(disabled);
    });

    it('states each decision as one compare-and-set that agrees with endpointStateAfter', () => {
      const decisions = [
        { kind: 'succeeded' },
        { kind: 'failed', reason: 'gone' },
        { kind: 'failed', reason: 'exhausted' },
        { kind: 'retry', delayMs: 1 },
      ] as const;
      expect(endpointTransition({ kind: 'succeeded' })).to.deep.equal({
        from: [{ status: 'failed', failureKind: null }, exhausted],
        to: enabled,
      });
      expect(endpointTransition({ kind: 'failed', reason: 'gone' })).to.deep.equal({
        from: [enabled, { status: 'failed', failureKind: null }, exhausted],
        to: gone,
      });
      expect(endpointTransition({ kind: 'retry', delayMs: 1 })).to.equal(undefined);
      const states: EndpointState[] = [enabled, disabled, { status: 'failed', failureKind: null }, exhausted, gone];
      for (const decision of decisions) {
        for (const state of states) {
          const transition = endpointTransition(decision);
          const moves = transition?.from.some(
            (from) => from.status === state.status && from.failureKind === state.failureKind,
          );
          expect(
            moves ? transition!.to : state,
            `${JSON.stringify(state)} after ${JSON.stringify(decision)}`,
          ).to.deep.equal(endpointStateAfter(state, decision));
        }
      }
    });

    it('names the 410 and its time, or the fifth failure, as the failed endpoint’s reason', () => {
      const attempt = { deliveryId: 'dlv_1', attemptedAt: '2026-11-23T10:00:00.000Z' };
      expect(
        endpointFailureReason(
          { kind: 'failed', reason: 'gone' },
          { ...attempt, outcome: { statusCode: 410, error: null } },
        ),
      ).to.equal('the endpoint answered 410 Gone at 2026-11-23T10:00:00.000Z');
      expect(
        endpointFailureReason(
          { kind: 'failed', reason: 'exhausted' },
          { ...attempt, outcome: { statusCode: 500, error: null } },
        ),
      ).to.equal('all 5 attempts of delivery dlv_1 failed; the last, at 2026-11-23T10:00:00.000Z, got HTTP 500');
      expect(
        endpointFailureReason(
          { kind: 'failed', reason: 'exhausted' },
          { ...attempt, outcome: { statusCode: null, error: 'connect ECONNREFUSED' } },
        ),
      ).to.match(/got no answer \(connect ECONNREFUSED\)$/);
    });

    it('delivers to enabled endpoints and to endpoints failed by exhaustion, not to disabled ones nor to those gone (410)', () => {
      expect(receivesDeliveries('enabled')).to.equal(true);
      expect(receivesDeliveries('failed', 'exhausted')).to.equal(true);
      expect(receivesDeliveries('failed', null)).to.equal(true);
      expect(receivesDeliveries('failed', 'gone')).to.equal(false);
      expect(receivesDeliveries('disabled')).to.equal(false);
    });
  });

  describe('secret rotation and attempts not made', () => {
    const at = Date.parse('2026-11-23T10:00:00.000Z');
    const rotated = {
      secret: 'whsec_new',
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: new Date(at + SECRET_ROTATION_OVERLAP_MS).toISOString(),
    };

    it('signs with the new and the replaced secret for 24 h after a rotation, then with the new one only', () => {
      expect(SECRET_ROTATION_OVERLAP_MS).to.equal(24 * HOUR);
      expect(activeSecrets(rotated, at)).to.deep.equal(['whsec_new', 'whsec_old']);
      expect(activeSecrets(rotated, at + 24 * HOUR - 1)).to.deep.equal(['whsec_new', 'whsec_old']);
      expect(activeSecrets(rotated, at + 24 * HOUR)).to.deep.equal(['whsec_new']);
      expect(
        activeSecrets({ secret: 'whsec_only', previousSecret: null, previousSecretExpiresAt: null }, at),
      ).to.deep.equal(['whsec_only']);
    });

    it('tries an attempt that could not be made again after 30 s, doubling to at most 10 min', () => {
      expect([1, 2, 3, 4, 5, 6, 50].map(attemptNotMadeDelayMs)).to.deep.equal([
        30_000,
        60_000,
        120_000,
        240_000,
        480_000,
        10 * MIN,
        10 * MIN,
      ]);
    });
  });

  describe('URL form (docs/webhooks.md#targets)', () => {
    const problem = (raw: string, environment: 'sandbox' | 'live') => {
      const result = checkWebhookUrl(raw, environment);
      return 'problem' in result ? result.problem : undefined;
    };

    it('takes https everywhere and http in sandbox only', () => {
      expect(problem('https://hooks.example.com/pay', 'live')).to.equal(undefined);
      expect(problem('http://hooks.example.com/pay', 'sandbox')).to.equal(undefined);
      expect(problem('http://hooks.example.com/pay', 'live')).to.equal('url must use https in live mode');
    });

    it('refuses what is not an absolute http(s) URL, and credentials in the URL', () => {
      expect(problem('not a url', 'sandbox')).to.equal('url must be a valid absolute URL');
      expect(problem('/relative', 'sandbox')).to.equal('url must be a valid absolute URL');
      expect(problem('ftp://files.example.com/x', 'sandbox')).to.equal('url must use http or https');
      expect(problem('file:///etc/passwd', 'sandbox')).to.equal('url must use http or https');
      expect(problem('https://user:pw@hooks.example.com/', 'live')).to.equal(
        'url must not contain a user name or password',
      );
      expect(problem(`https://example.com/${'a'.repeat(2100)}`, 'live')).to.match(/at most 2048/);
    });

    it('allows private targets in sandbox only, where configuration allows them', () => {
      expect(privateTargetsAllowed('sandbox', true)).to.equal(true);
      expect(privateTargetsAllowed('sandbox', false)).to.equal(false);
      expect(privateTargetsAllowed('live', true)).to.equal(false);
    });
  });
});
