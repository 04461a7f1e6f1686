/**
 * The admin command (docs/live-access.md#admin-command) against the real stack: PostgreSQL, the Temporal dev server and
 * the
 * worker running the review workflows. Most cases call `runAdmin` in this process (same parsing,
 * same exit status as `npm run admin`); `--help` is also checked through a real process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { listAuditEntries } from '../../src/db/audit-log';
import { runAdmin } from '../../src/cli/admin';
import { developerWithOpenRequest, runAdminProcess } from '../helpers/live-access-api';
import { registerDeveloper } from '../helpers/http';
import { freePort } from '../../scripts/lib/ports';
import { getStack } from '../helpers/stack';
import { paymentEvent } from '../../src/activities/events';
import { insertPaymentWithCreatedEvent, statusWriteOf, updatePaymentStatus } from '../../src/db/payments';
import { withStatusChange } from '../helpers/status-change';
import { mobileMoneyPayment } from '../helpers/fixtures';
import { PNG_BYTES, upload } from '../helpers/uploads';

/** Runs the admin command in-process and captures what it printed. */
async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAdmin(args, { out: (text) => void (out += text), err: (text) => void (err += text) });
  return { code, out, err };
}

describe('admin command (docs/live-access.md#admin-command)', function () {
  this.timeout(90_000);

  it('prints --help for every command and exits 0', async () => {
    const commands = [
      [],
      ['live-access'],
      ['live-access', 'list'],
      ['live-access', 'show'],
      ['live-access', 'approve'],
      ['live-access', 'reject'],
      ['live-access', 'request-info'],
      ['merchant'],
      ['merchant', 'set-plan'],
      ['merchant', 'set-limits'],
      ['ops'],
      ['ops', 'deliveries'],
      ['ops', 'retry-delivery'],
      ['ops', 'refunds'],
      ['ops', 'ask-provider'],
      ['ops', 'story'],
      ['merchant', 'set-settlement-delay'],
    ];
    for (const command of commands) {
      const run = await admin(...command, '--help');
      expect(run.code, command.join(' ')).to.equal(0);
      expect(run.out).to.match(new RegExp(`^Usage: admin ${command.join(' ')}`.trimEnd()));
      expect(run.out, `${command.join(' ')}: help texts cite no internal decision ids`).to.not.match(/\bD\d{1,3}\b/);
    }
    const real = await runAdminProcess(['live-access', 'reject', '--help']);
    expect(real.code).to.equal(0);
    expect(real.stdout).to.include('--reason <text>');
  });

  it('lists requests, filtered by status, as a table or JSON', async () => {
    const { requestId } = await developerWithOpenRequest();
    const table = await admin('live-access', 'list', '--status', 'under_review');
    expect(table.code).to.equal(0);
    expect(table.out).to.match(/^ID +STATUS +MERCHANT +BUSINESS +REQUESTED +REMINDERS\n/);
    expect(table.out).to.include(requestId);
    const json = JSON.parse((await admin('live-access', 'list', '--status', 'under_review', '--json')).out);
    expect(json.map((r: { id: string }) => r.id)).to.include(requestId);
    const approved = JSON.parse((await admin('live-access', 'list', '--status', 'approved', '--json')).out);
    expect(approved.map((r: { id: string }) => r.id)).not.to.include(requestId);
    const bad = await admin('live-access', 'list', '--status', 'pending');
    expect(bad.code).to.equal(1);
    expect(bad.err).to.match(/Allowed choices are under_review, more_info_required, approved, rejected/);
  });

  it('answers unknown request ids with an error and exit 1, for show and for every decision', async () => {
    const unknown = 'req_000000000000000000000000';
    for (const args of [
      ['show', unknown],
      ['approve', unknown],
      ['reject', unknown, '--reason', 'no'],
      ['request-info', unknown, '--message', 'why?'],
    ]) {
      const run = await admin('live-access', ...args);
      expect(run.code, args.join(' ')).to.equal(1);
      expect(run.err).to.equal(`error: no live access request ${unknown}\n`);
    }
  });

  it('needs --reason to reject and --message to ask, not empty', async () => {
    const { requestId } = await developerWithOpenRequest();
    const noReason = await admin('live-access', 'reject', requestId);
    expect(noReason.code).to.equal(1);
    expect(noReason.err).to.match(/required option '--reason <text>' not specified/);
    const blank = await admin('live-access', 'request-info', requestId, '--message', '   ');
    expect(blank.code).to.equal(1);
    expect(blank.err).to.match(/must not be empty/);
    const { db } = await getStack();
    expect((await db('live_access_requests').where({ id: requestId }).first()).status).to.equal('under_review');
  });

  it('rejects with a reason, then refuses any further decision on the closed request', async () => {
    const { developer, requestId } = await developerWithOpenRequest();
    const run = await admin(
      'live-access',
      'reject',
      requestId,
      '--reason',
      'The website does not match the business.',
      '--reviewer',
      'bo',
    );
    expect(run.code, run.err).to.equal(0);
    expect(run.out).to.equal(`rejected ${requestId} as bo; status rejected\n`);
    for (const args of [
      ['approve', requestId],
      ['reject', requestId, '--reason', 'again'],
      ['request-info', requestId, '--message', 'more?'],
    ]) {
      const again = await admin('live-access', ...args);
      expect(again.code, args.join(' ')).to.equal(1);
      expect(again.err).to.match(
        new RegExp(
          `^error: request ${requestId} is already rejected by bo at .*; only open requests take decisions\\n$`,
        ),
      );
    }
    const { db } = await getStack();
    const entries = await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' });
    expect(entries.filter((e) => e.action === 'live_access.rejected')).to.have.length(1);
  });

  it('sets a plan (with an audit entry by the operator), refusing unknown plans and merchants', async () => {
    const developer = await registerDeveloper();
    const set = await admin('merchant', 'set-plan', developer.merchantId, 'growth', '--operator', 'ops-carol');
    expect(set.code, set.err).to.equal(0);
    expect(set.out).to.equal(`merchant ${developer.merchantId}: plan growth, live access no, custom limits none\n`);
    const { db } = await getStack();
    expect((await db('developers').where({ merchant_id: developer.merchantId }).first()).plan).to.equal('growth');
    const entry = (await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' }))[0];
    expect(entry).to.deep.include({
      action: 'merchant.plan_changed',
      target: developer.merchantId,
      actor: { type: 'operator', id: 'ops-carol' },
    });

    const badPlan = await admin('merchant', 'set-plan', developer.merchantId, 'platinum');
    expect(badPlan.code).to.equal(1);
    expect(badPlan.err).to.match(/Allowed choices are sandbox, starter, growth, enterprise/);
    const unknown = await admin('merchant', 'set-plan', 'mer_000000000000000000000000', 'growth');
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.equal('error: no merchant mer_000000000000000000000000\n');
  });

  it("gives a merchant its own settlement delay, used for its next completions, and 'default' goes back (docs/ledger.md#available-on)", async () => {
    const developer = await registerDeveloper();
    const set = await admin('merchant', 'set-settlement-delay', developer.merchantId, '0', '--operator', 'ops-carol');
    expect(set.code, set.err).to.equal(0);
    expect(set.out).to.equal(`merchant ${developer.merchantId}: settlement delay 0 days\n`);
    const { db } = await getStack();
    const payment = mobileMoneyPayment(developer.merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const completed = withStatusChange(payment, { status: 'completed' }, new Date().toISOString());
    await updatePaymentStatus(db, statusWriteOf(completed, [`payment:${payment.id}:completed`]));
    const row = await db('ledger_balance_transactions').where({ source: payment.id }).first('available_on');
    // momo's own delay is a day; this merchant's funds are available at completion.
    expect(new Date(row.available_on).toISOString()).to.equal(completed.updatedAt);
    const entry = (await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' }))[0];
    expect(entry).to.deep.include({
      action: 'merchant.settlement_delay_changed',
      actor: { type: 'operator', id: 'ops-carol' },
    });

    const back = await admin('merchant', 'set-settlement-delay', developer.merchantId, 'default');
    expect(back.out).to.equal(`merchant ${developer.merchantId}: settlement delay the providers'\n`);
    for (const bad of ['100', '31', 'two']) {
      const refused = await admin('merchant', 'set-settlement-delay', developer.merchantId, bad);
      expect(refused.code, bad).to.equal(1);
      expect(refused.err).to.equal('error: days must be a whole number from 0 to 30, or default\n');
    }
  });

  it('sets custom limits for enterprise merchants only, as positive integers with per-hour ≥ per-minute (docs/limits.md#rate-limits)', async () => {
    const developer = await registerDeveloper();
    const notEnterprise = await admin(
      'merchant',
      'set-limits',
      developer.merchantId,
      '--per-minute',
      '2000',
      '--per-hour',
      '60000',
    );
    expect(notEnterprise.code).to.equal(1);
    expect(notEnterprise.err).to.equal(
      'error: custom limits apply to the enterprise plan only; the merchant is on sandbox\n',
    );

    expect((await admin('merchant', 'set-plan', developer.merchantId, 'enterprise')).code).to.equal(0);
    const negative = await admin(
      'merchant',
      'set-limits',
      developer.merchantId,
      '--per-minute',
      '-5',
      '--per-hour',
      '60000',
    );
    expect(negative.code).to.equal(1);
    const inverted = await admin(
      'merchant',
      'set-limits',
      developer.merchantId,
      '--per-minute',
      '2000',
      '--per-hour',
      '100',
    );
    expect(inverted.err).to.equal('error: per-hour must be at least per-minute\n');
    const ok = await admin(
      'merchant',
      'set-limits',
      developer.merchantId,
      '--per-minute',
      '2000',
      '--per-hour',
      '60000',
    );
    expect(ok.code, ok.err).to.equal(0);
    expect(ok.out).to.equal(
      `merchant ${developer.merchantId}: plan enterprise, live access no, custom limits 2000/min, 60000/h\n`,
    );
    const { db } = await getStack();
    expect(
      await db('developers')
        .where({ merchant_id: developer.merchantId })
        .first('custom_limit_per_minute', 'custom_limit_per_hour'),
    ).to.deep.equal({
      custom_limit_per_minute: 2000,
      custom_limit_per_hour: 60000,
    });
  });

  it('stops with exit 78 naming the missing setting in one line, without a stack trace', async () => {
    let err = '';
    const noRuntimeFile = path.join(os.tmpdir(), `no-runtime-${process.pid}.json`);
    const code = await runAdmin(
      ['live-access', 'list'],
      { out: () => undefined, err: (text) => void (err += text) },
      { TEMPORAL_ADDRESS: '127.0.0.1:1' },
      noRuntimeFile,
    );
    expect(code).to.equal(78);
    expect(err.endsWith('\n')).to.equal(true);
    expect(err.trimEnd().split('\n')).to.have.length(1);
    expect(err).to.match(/^error: invalid configuration: DATABASE_URL: .*var\/runtime\.json\)$/m);
    expect(err).not.to.match(/\bat .*\.(ts|js):\d+/);
  });

  it('says the same in one line as a real process run outside a checkout where npm start ran', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-cwd-'));
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    const run = await runAdminProcess(['live-access', 'list'], env, elsewhere);
    expect(run.code).to.equal(78);
    expect(run.stdout).to.equal('');
    expect(run.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(run.stderr).to.match(/^error: invalid configuration: DATABASE_URL: /);
  });

  describe('text that developers wrote is printed with control characters escaped', () => {
    const CLEAR = 'Evil\u001b[2J\rCorp';
    let requestId: string;
    let merchantId: string;

    before(async () => {
      const opened = await developerWithOpenRequest();
      requestId = opened.requestId;
      merchantId = opened.developer.merchantId;
      const { db } = await getStack();
      // Stored as older data or another writer could have it: the API refuses most of these today (docs/api.md#errors).
      await db('live_access_requests')
        .where({ id: requestId })
        .update({ business_name: CLEAR, use_case: 'line one\r\n\u009b31mred\u202eexe.pdf' });
      await db('developers')
        .where({ merchant_id: merchantId })
        .update({ name: 'Mallory\u001b]0;pwned\u0007', email: `m\u001b[8m${merchantId}@example.com` });
      await db('documents')
        .where({ merchant_id: merchantId, document_type: 'passport' })
        .update({ file_name: 'pass\u001b[1Aport.pdf' });
      await db('live_access_messages').insert({
        id: `msg_${merchantId}`,
        request_id: requestId,
        author_type: 'developer',
        author: 'dev',
        body: 'answer\u001b[2K',
        created_at: new Date(),
      });
    });

    function expectNoTerminalControls(text: string): void {
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      expect(text).not.to.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    }

    it('in show: names, e-mail, use case, file names and the conversation', async () => {
      const run = await admin('live-access', 'show', requestId);
      expect(run.code, run.err).to.equal(0);
      expectNoTerminalControls(run.out);
      expect(run.out).to.include('Evil\\u001b[2J\\rCorp');
      expect(run.out).to.include('Mallory\\u001b]0;pwned\\u0007 <m\\u001b[8m');
      expect(run.out).to.include('line one\\r\\n\\u009b31mred\\u202eexe.pdf');
      expect(run.out).to.include('"pass\\u001b[1Aport.pdf"');
      expect(run.out).to.include('dev: answer\\u001b[2K');
    });

    it('in list, and in JSON output that still parses back to the stored text', async () => {
      const table = await admin('live-access', 'list', '--status', 'under_review');
      expectNoTerminalControls(table.out);
      expect(table.out).to.match(new RegExp(`${requestId} +under_review +${merchantId} +Evil\\\\u001b\\[2J\\\\rCorp`));
      const json = await admin('live-access', 'show', requestId, '--json');
      expectNoTerminalControls(json.out);
      const parsed = JSON.parse(json.out);
      expect(parsed.request.businessName).to.equal(CLEAR);
      expect(parsed.request.useCase).to.equal('line one\r\n\u009b31mred\u202eexe.pdf');
    });
  });

  it('warns the reviewer when two current documents are the same file (same SHA-256), and not once they differ', async () => {
    // The helper uploads the same PDF as the passport and as the business registration.
    const { developer, requestId } = await developerWithOpenRequest();
    const shown = await admin('live-access', 'show', requestId);
    expect(shown.code, shown.err).to.equal(0);
    const documents = JSON.parse((await admin('live-access', 'show', requestId, '--json')).out).documents as {
      id: string;
    }[];
    const warning = shown.out.split('\n').find((line) => line.startsWith('  WARNING')) ?? '';
    expect(warning).to.match(/doc_\w+ \(\w+\/\w+\) and doc_\w+ \(\w+\/\w+\) are the same file \(sha256 [0-9a-f]{64}\)/);
    expect(warning).to.include('(kyc/passport)');
    for (const d of documents) expect(warning).to.include(d.id);
    expect(JSON.parse((await admin('live-access', 'show', requestId, '--json')).out).warnings).to.have.length(1);

    const other = await upload('/v1/documents/upload/kyc', {
      credential: developer.token,
      bytes: PNG_BYTES,
      fileName: 'passport-new.png',
      fields: { document_type: 'passport' },
    });
    expect(other.status).to.equal(201);
    const after = await admin('live-access', 'show', requestId);
    expect(after.out).not.to.include('WARNING');
    expect(JSON.parse((await admin('live-access', 'show', requestId, '--json')).out).warnings).to.deep.equal([]);
  });

  it('shows a replaced document apart, with what replaced it and that its file is deleted', async () => {
    const { developer, requestId } = await developerWithOpenRequest();
    const first = (await admin('live-access', 'show', requestId, '--json')).out;
    const oldPassport = (JSON.parse(first).documents as { id: string; documentType: string }[]).find(
      (d) => d.documentType === 'passport',
    );
    const replacement = await upload('/v1/documents/upload/kyc', {
      credential: developer.token,
      bytes: PNG_BYTES,
      fileName: 'passport-new.png',
      fields: { document_type: 'passport' },
    });
    expect(replacement.status).to.equal(201);
    const run = await admin('live-access', 'show', requestId);
    expect(run.out).to.match(/^Documents \(2\)$/m);
    expect(run.out).to.include(`${replacement.body.data.id}  kyc/passport  "passport-new.png"`);
    expect(run.out).to.match(/^Replaced documents \(1; their files are deleted\)$/m);
    expect(run.out).to.match(
      new RegExp(
        `^  ${oldPassport?.id}  kyc/passport .*\\n.*\\n      replaced by ${replacement.body.data.id} at \\S+; file deleted \\S+$`,
        'm',
      ),
    );
  });

  it('says in one line, without a stack trace, when Temporal cannot be reached', async () => {
    const { requestId } = await developerWithOpenRequest();
    let err = '';
    const env = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
    const code = await runAdmin(
      ['live-access', 'approve', requestId],
      { out: () => undefined, err: (text) => void (err += text) },
      env,
    );
    expect(code).to.equal(1);
    expect(err.trim().split('\n')).to.have.length(1);
    expect(err).to.match(/^error: /);
    expect(err).not.to.match(/\bat .*\.(ts|js):\d+/);
  });
});
