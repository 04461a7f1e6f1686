/**
 * The process logger (docs/operations.md#logs, src/logger.ts): JSON lines with ISO times and the log context's ids,
 * secrets and phone numbers masked wherever they sit, the Temporal SDK's lines mapped onto ours
 * with their own emission time, and knex's warnings through the same logger.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createDb } from '../../src/db/knex';
import { createLogger, maskSensitiveText, redactLogValue, temporalLogger, withLogContext } from '../../src/logger';
import { freePort } from '../../scripts/lib/ports';

/** A logger at `level` writing into an array of parsed lines. */
function capturingLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(String(chunk));
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('test', level, sink), lines, raw };
}

const SECRET_KEY = 'sk_sandbox_AbCdEfGhIjKlMnOpQrStUvWxYz012345';

describe('the JSON logger (docs/operations.md#logs)', () => {
  it('masks phone numbers, secret keys, bearer tokens and JWTs in text, and leaves ids, times and amounts alone', () => {
    expect(maskSensitiveText('customer +250788123456 paid')).to.equal('customer +250*******56 paid');
    expect(maskSensitiveText('call +256 700 123 456 or 0788123456')).to.equal('call +256*******56 or 07******56');
    expect(maskSensitiveText(`key ${SECRET_KEY}`)).to.equal('key sk_…2345');
    expect(maskSensitiveText('Authorization: Bearer abc.def')).to.equal('Authorization: Bearer [redacted]');
    expect(maskSensitiveText('token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfMSJ9.c2lnbmF0dXJl')).to.equal('token [jwt]');
    const untouched =
      'pay_p0sQkd18Q2x0qPbK 2026-11-23T10:00:00.000Z 3f2a1b4c-1234-5678-9abc-123456789012 1500.00 RWF 12345678';
    expect(maskSensitiveText(untouched)).to.equal(untouched);
  });

  it('replaces values under credential keys, at any depth, and masks errors', () => {
    const safe = redactLogValue({
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'x-api-key': SECRET_KEY, cookie: 'sid=1' },
      body: { password: 'hunter2hunter2', client_secret: 'pi_1_secret_2', phone_number: '+250788123456', amount: 1500 },
      error: new Error('refused +250788123456'),
      request_id: 'req-123456789012',
    }) as Record<string, any>;
    expect(safe.headers).to.deep.equal({
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      cookie: '[redacted]',
    });
    expect(safe.body).to.deep.equal({
      password: '[redacted]',
      client_secret: '[redacted]',
      phone_number: '+250*******56',
      amount: 1500,
    });
    expect(safe.error).to.include({ type: 'Error', message: 'refused +250*******56' });
    expect(safe.request_id).to.equal('req-123456789012');
  });

  it("writes ISO times, level names and the log context's ids, and masks messages and errors", async () => {
    const { logger, lines, raw } = capturingLogger();
    await withLogContext(
      { request_id: 'req-1', merchant_id: 'mer_1' },
      async () => {
        await Promise.resolve();
        logger.info({ payment: { customerPhone: '+250788123456' } }, `paid by +250788123456 with ${SECRET_KEY}`);
        logger.error(new Error('lost +250788123456'));
      },
      () => ({ payment_id: 'pay_1' }),
    );
    logger.warn('outside');
    expect(lines[0]).to.include({
      level: 'info',
      request_id: 'req-1',
      merchant_id: 'mer_1',
      payment_id: 'pay_1',
      msg: 'paid by +250*******56 with sk_…2345',
    });
    expect(lines[0]?.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines[1]).to.include({ level: 'error', msg: 'lost +250*******56' });
    expect(lines[2]).to.not.have.property('request_id');
    expect(raw.join('')).not.to.match(/788123456|AbCdEfGh/);
  });

  it("maps the Temporal SDK's lines onto ours: its ids in our names, its own emission time, its level", () => {
    const { logger, lines } = capturingLogger('info');
    const sdk = temporalLogger(logger);
    const emittedAt = Date.parse('2026-01-02T03:04:05.678Z');
    sdk.info('Activity completed', {
      workflowId: 'payment:pay_abc',
      merchantId: 'mer_9',
      taskToken: 'dG9rZW4=',
      [Symbol.for('log_timestamp')]: BigInt(emittedAt) * 1_000_000n,
    });
    sdk.debug('dropped at info');
    sdk.warn('core says', { sdkComponent: 'core' });
    expect(lines).to.have.length(2);
    expect(lines[0]).to.include({
      level: 'info',
      workflow_id: 'payment:pay_abc',
      payment_id: 'pay_abc',
      merchant_id: 'mer_9',
      time: '2026-01-02T03:04:05.678Z',
      msg: 'Activity completed',
    });
    expect(lines[0]).not.to.have.property('taskToken');
    expect(lines[1]).to.include({ level: 'warn', sdkComponent: 'core' });
    expect(Date.parse(lines[1]?.time as string)).to.be.greaterThan(emittedAt);
  });

  it("writes knex's warnings as JSON lines of the same logger, with the context's ids", async () => {
    const { logger, lines } = capturingLogger('warn');
    const db = createDb(`postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`, 1, logger);
    try {
      await withLogContext({ request_id: 'req-knex' }, () => db.raw('select 1').catch(() => undefined));
    } finally {
      await db.destroy();
    }
    const knexLine = lines.find((line) => line.component === 'knex');
    expect(knexLine).to.include({ level: 'warn', request_id: 'req-knex' });
    expect(knexLine?.msg).to.match(/^Acquire connection error/);
  });
});
