/** The pure webhook rules: schedule, classification, decisions and endpoint statuses (D25–D27), URL form (D26). */
import { expect } from 'chai';
import {
  checkWebhookUrl,
  classifyAttempt,
  decideAfterAttempt,
  deliveryStatusAfter,
  endpointStatusAfter,
  endpointTransition,
  MAX_RETRY_AFTER_MS,
  parseRetryAfterMs,
  privateTargetsAllowed,
  receivesDeliveries,
  RETRY_DELAYS_MS,
  scheduledDelayMs,
} from '../../src/domain/webhooks';

const MIN = 60_000;
const HOUR = 60 * MIN;
const failed = (statusCode: number | null, retryAfterMs: number | null = null) => ({ statusCode, retryAfterMs });

describe('webhook rules (D25–D27)', () => {
  describe('schedule (D27)', () => {
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

  describe('classification (D27)', () => {
    it('counts any 2xx as success, 410 as gone and everything else as a failure', () => {
      for (const code of [200, 201, 202, 204, 299]) expect(classifyAttempt({ statusCode: code })).to.equal('succeeded');
      expect(classifyAttempt({ statusCode: 410 })).to.equal('gone');
      for (const code of [null, 100, 301, 302, 304, 400, 404, 429, 500, 503]) expect(classifyAttempt({ statusCode: code })).to.equal('failed');
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
      expect(decideAfterAttempt(2, failed(503, 10 * MIN))).to.deep.equal({ kind: 'retry', delayMs: 30 * MIN }, 'shorter than the schedule');
      expect(decideAfterAttempt(1, failed(500, 2 * HOUR))).to.deep.equal({ kind: 'retry', delayMs: 5 * MIN }, 'not on a 500');
      expect(decideAfterAttempt(1, failed(429, 72 * HOUR))).to.deep.equal({ kind: 'retry', delayMs: MAX_RETRY_AFTER_MS });
      expect(decideAfterAttempt(5, failed(429, HOUR))).to.deep.equal({ kind: 'failed', reason: 'exhausted' }, 'never a sixth attempt');
    });
  });

  describe('statuses (D22, D27)', () => {
    it('gives the delivery its status from the decision', () => {
      expect(deliveryStatusAfter({ kind: 'succeeded' })).to.equal('succeeded');
      expect(deliveryStatusAfter({ kind: 'retry', delayMs: 1 })).to.equal('pending');
      expect(deliveryStatusAfter({ kind: 'failed', reason: 'gone' })).to.equal('failed');
    });

    it('marks an enabled endpoint failed after the fifth failure and enables it again on a later success', () => {
      expect(endpointStatusAfter('enabled', { kind: 'failed', reason: 'exhausted' })).to.equal('failed');
      expect(endpointStatusAfter('failed', { kind: 'failed', reason: 'exhausted' })).to.equal('failed');
      expect(endpointStatusAfter('failed', { kind: 'succeeded' })).to.equal('enabled');
      expect(endpointStatusAfter('enabled', { kind: 'retry', delayMs: 1 })).to.equal('enabled');
    });

    it('disables the endpoint on 410 and never overrides a merchant’s disabled', () => {
      expect(endpointStatusAfter('enabled', { kind: 'failed', reason: 'gone' })).to.equal('disabled');
      expect(endpointStatusAfter('failed', { kind: 'failed', reason: 'gone' })).to.equal('disabled');
      expect(endpointStatusAfter('disabled', { kind: 'succeeded' })).to.equal('disabled');
      expect(endpointStatusAfter('disabled', { kind: 'failed', reason: 'exhausted' })).to.equal('disabled');
    });

    it('states each decision as one compare-and-set that agrees with endpointStatusAfter', () => {
      const decisions = [{ kind: 'succeeded' }, { kind: 'failed', reason: 'gone' }, { kind: 'failed', reason: 'exhausted' }, { kind: 'retry', delayMs: 1 }] as const;
      expect(endpointTransition({ kind: 'succeeded' })).to.deep.equal({ from: ['failed'], to: 'enabled' });
      expect(endpointTransition({ kind: 'failed', reason: 'gone' })).to.deep.equal({ from: ['enabled', 'failed'], to: 'disabled' });
      expect(endpointTransition({ kind: 'retry', delayMs: 1 })).to.equal(undefined);
      for (const decision of decisions) {
        for (const status of ['enabled', 'disabled', 'failed'] as const) {
          const transition = endpointTransition(decision);
          const viaTransition = transition?.from.includes(status) ? transition.to : status;
          expect(viaTransition, `${status} after ${JSON.stringify(decision)}`).to.equal(endpointStatusAfter(status, decision));
        }
      }
    });

    it('delivers to enabled and failed endpoints, not to disabled ones', () => {
      expect(['enabled', 'failed', 'disabled'].map((s) => receivesDeliveries(s as never))).to.deep.equal([true, true, false]);
    });
  });

  describe('URL form (D26)', () => {
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
      expect(problem('https://user:pw@hooks.example.com/', 'live')).to.equal('url must not contain a user name or password');
      expect(problem(`https://example.com/${'a'.repeat(2100)}`, 'live')).to.match(/at most 2048/);
    });

    it('allows private targets in sandbox only, where configuration allows them', () => {
      expect(privateTargetsAllowed('sandbox', true)).to.equal(true);
      expect(privateTargetsAllowed('sandbox', false)).to.equal(false);
      expect(privateTargetsAllowed('live', true)).to.equal(false);
    });
  });
});
