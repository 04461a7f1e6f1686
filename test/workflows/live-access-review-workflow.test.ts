/**
 * liveAccessReviewWorkflow on the time-skipping test server with the real activities, a
 * real PostgreSQL and the file mailer (docs/live-access.md#e-mail): approval (docs/api.md#secret-keys,
 * docs/live-access.md#review), rejection, the more-information
 * loop, and the business-day reminder (a request filed on a Friday evening is reminded on
 * Wednesday, not Monday, then every further business day). Every step writes its audit entry
 * (docs/live-access.md#audit-log).
 * With RECORD_HISTORIES=1 it refreshes the replay histories in test/replay/histories/.
 */
import path from 'node:path';
import { expect } from 'chai';
import { keepHistory } from '../helpers/history';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { createActivities } from '../../src/activities';
import { listAuditEntries } from '../../src/db/audit-log';
import { createDb, type Db } from '../../src/db/knex';
import {
  findLiveAccessRequest,
  listConversation,
  type LiveAccessRequestRecord,
} from '../../src/db/live-access-requests';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { DAY_MS } from '../../src/domain/business-days';
import type { LiveAccessRequestStatus } from '../../src/domain/live-access';
import { sha256Hex } from '../../src/lib/ids';
import { createMailer } from '../../src/lib/mailer';
import { openSealedSecret } from '../../src/lib/sealed-secrets';
import { createProviderRegistry } from '../../src/providers/registry';
import {
  approveSignal,
  developerActivitySignal,
  liveAccessWorkflowId,
  rejectSignal,
  requestInfoSignal,
  type LiveAccessReviewResult,
} from '../../src/workflows/live-access-messages';
import {
  eventually,
  fileRequest,
  insertDeveloper,
  liveAccessRequest,
  mailsAbout,
  type FixtureDeveloper,
} from '../helpers/live-access-fixtures';
import { createTimeSkippingEnv, testConfig, workflowBundle } from '../helpers/stack';

const TASK_QUEUE = 'live-access-workflow-test';
const HOUR_MS = 3_600_000;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function activityNames(events: HistoryEvent[]): string[] {
  return events.flatMap((e) =>
    e.activityTaskScheduledEventAttributes ? [String(e.activityTaskScheduledEventAttributes.activityType?.name)] : [],
  );
}

/** The next Friday 18:00 UTC at least an hour after `ms`. */
function nextFridayEvening(ms: number): number {
  let day = Math.floor((ms + HOUR_MS) / DAY_MS) * DAY_MS;
  for (;;) {
    const candidate = day + 18 * HOUR_MS;
    if (new Date(day).getUTCDay() === 5 && candidate > ms + HOUR_MS) return candidate;
    day += DAY_MS;
  }
}

describe('liveAccessReviewWorkflow (time-skipping, docs/live-access.md)', function () {
  this.timeout(180_000);
  const config = testConfig();
  const outbox = path.join(config.MAIL_OUTBOX_DIR, 'live-access-workflow-test');
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  let db: Db;

  before(async () => {
    env = await createTimeSkippingEnv();
    db = createDb(config.DATABASE_URL, 5);
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await workflowBundle(),
      activities: createActivities({
        db,
        providers: createProviderRegistry({
          ledger: createSandboxLedger(db),
          now: () => new Date(),
          approvalDelayMs: 0,
          bankTransferDelayMs: 0,
          callbackSecret: 'x'.repeat(32),
        }),
        mailer: createMailer({ ...config, MAIL_OUTBOX_DIR: outbox }),
        temporal: env.client,
        config: { ...config, TEMPORAL_WEBHOOK_TASK_QUEUE: TASK_QUEUE },
      }),
    });
    running = worker.run();
  });

  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await db?.destroy();
  });

  /** Files a request at `filedAtMs` (default: the test server's now) and starts its workflow. */
  async function file(
    filedAtMs?: number,
  ): Promise<{ developer: FixtureDeveloper; request: LiveAccessRequestRecord; handle: WorkflowHandle }> {
    const developer = await insertDeveloper(db);
    const filedAt = new Date(filedAtMs ?? (await env.currentTimeMs())).toISOString();
    const request = liveAccessRequest(developer, filedAt);
    let handle: WorkflowHandle | undefined;
    await fileRequest(db, request, async () => {
      handle = await env.client.workflow.start('liveAccessReviewWorkflow', {
        taskQueue: TASK_QUEUE,
        workflowId: liveAccessWorkflowId(request.id),
        args: [
          { requestId: request.id, merchantId: developer.merchantId, developerId: developer.developerId, filedAt },
        ],
      });
    });
    return { developer, request, handle: handle as WorkflowHandle };
  }

  async function statusBecomes(requestId: string, status: LiveAccessRequestStatus): Promise<LiveAccessRequestRecord> {
    return eventually(
      async () => {
        const row = await findLiveAccessRequest(db, requestId);
        return row?.status === status ? row : undefined;
      },
      15_000,
      `request ${requestId} to be ${status}`,
    );
  }

  /** The merchant's live audit actions, oldest first; entries of one instant in alphabetical order. */
  async function liveActions(merchantId: string): Promise<string[]> {
    const entries = await listAuditEntries(db, { merchantId, environment: 'live' });
    return entries
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.action.localeCompare(b.action))
      .map((entry) => entry.action);
  }

  const record = keepHistory;

  it('approves: first live key (sealed until revealed), live access, plan starter, e-mails, audit entries', async () => {
    const { developer, request, handle } = await file();
    await handle.signal(approveSignal, { reviewer: 'ann' });
    const result = (await handle.result()) as LiveAccessReviewResult;
    expect(result).to.include({ requestId: request.id, status: 'approved', decidedBy: 'ann' });
    expect(result.liveKeyId).to.match(/^key_[0-9A-Za-z]{24}$/);

    const row = await findLiveAccessRequest(db, request.id);
    expect(row).to.include({
      status: 'approved',
      decidedBy: 'ann',
      liveKeyId: result.liveKeyId,
      decidedAt: result.decidedAt,
    });
    const account = await db('developers').where({ merchant_id: developer.merchantId }).first();
    expect(account).to.include({ has_live_access: true, plan: 'starter' });
    const key = await db('api_keys').where({ id: result.liveKeyId }).first();
    expect(key).to.include({ merchant_id: developer.merchantId, environment: 'live' });
    const reveal = await db('live_key_reveals').where({ key_id: result.liveKeyId }).first();
    const secret = openSealedSecret(reveal.sealed_secret, config.JWT_SECRET);
    expect(secret).to.match(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(sha256Hex(secret)).to.equal(key.key_hash);
    expect(key.last4).to.equal(secret.slice(-4));

    const mails = mailsAbout(outbox, request.id);
    expect(mails.map((m) => m.to)).to.have.members([config.LIVE_ACCESS_REVIEWER_EMAILS.join(', '), developer.email]);
    expect(mails.find((m) => m.to === config.LIVE_ACCESS_REVIEWER_EMAILS.join(', '))?.subject).to.equal(
      `New live access request ${request.id} (Ada Shop)`,
    );
    const approval = mails.find((m) => m.to === developer.email);
    expect(approval?.subject).to.equal('Your live access is approved');
    expect(approval?.body).to.include(`sk_live_…${key.last4}`).and.include('POST /v1/developer/live-access/live-key');
    expect(approval?.body).not.to.include(secret);

    expect(await liveActions(developer.merchantId)).to.deep.equal([
      'live_access.requested',
      'api_key.created',
      'live_access.approved',
      'merchant.plan_changed',
    ]);
    const approvedEntry = (await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' })).find(
      (e) => e.action === 'live_access.approved',
    );
    expect(approvedEntry).to.include({ target: request.id, ip: null });
    expect(approvedEntry?.actor).to.deep.equal({ type: 'reviewer', id: 'ann' });
    expect(approvedEntry?.id).to.match(/^act_/);

    const history = (await handle.fetchHistory()).events ?? [];
    expect(activityNames(history)).to.deep.equal([
      'sendLiveAccessEmail',
      'approveLiveAccessRequest',
      'sendLiveAccessEmail',
    ]);
    await record('live-access-approved', handle);
  });

  it('rejects with a reason that is stored, e-mailed and audited; no key, no live access', async () => {
    const { developer, request, handle } = await file();
    await handle.signal(rejectSignal, { reviewer: 'bo', reason: 'The registration certificate has expired.' });
    const result = (await handle.result()) as LiveAccessReviewResult;
    expect(result).to.include({ status: 'rejected', decidedBy: 'bo' });
    expect(result).not.to.have.property('liveKeyId');
    expect(await findLiveAccessRequest(db, request.id)).to.include({
      status: 'rejected',
      reviewerMessage: 'The registration certificate has expired.',
    });
    const account = await db('developers').where({ merchant_id: developer.merchantId }).first();
    expect(account).to.include({ has_live_access: false, plan: 'sandbox' });
    expect(await db('api_keys').where({ merchant_id: developer.merchantId, environment: 'live' })).to.have.length(0);
    const rejection = mailsAbout(outbox, request.id).find((m) => m.to === developer.email);
    expect(rejection?.subject).to.equal('Your live access request was not approved');
    expect(rejection?.body).to.include('The registration certificate has expired.');
    expect(await liveActions(developer.merchantId)).to.deep.equal(['live_access.requested', 'live_access.rejected']);
    await record('live-access-rejected', handle);
  });

  it('loops through more_info_required: a document or an answer brings it back to review; no reminders while waiting on the developer', async () => {
    const { developer, request, handle } = await file();
    await handle.signal(requestInfoSignal, { reviewer: 'ann', message: 'Please upload the back of your national ID.' });
    const waiting = await statusBecomes(request.id, 'more_info_required');
    expect(waiting).to.include({ reviewerMessage: 'Please upload the back of your national ID.', infoRounds: 1 });
    // The question's mail follows the status write in its own activity: wait for it, not for the status.
    const question = await eventually(
      async () =>
        mailsAbout(outbox, request.id).find(
          (m) => m.subject === 'More information needed for your live access request',
        ),
      15_000,
      'the developer to be mailed the question',
    );
    expect(question?.to).to.equal(developer.email);
    expect(question?.body).to.include('Please upload the back of your national ID.');

    await env.sleep('10 days'); // the developer takes their time: reviewers are not reminded meanwhile
    expect(await liveActions(developer.merchantId)).not.to.include('live_access.reminder_sent');

    const uploadedAt = await env.currentTimeMs();
    await handle.signal(developerActivitySignal, {
      kind: 'document_uploaded',
      developerId: developer.developerId,
      documentId: 'doc_000000000000000000000001',
    });
    const resumed = await statusBecomes(request.id, 'under_review');
    expect(Date.parse(resumed.underReviewSince) - uploadedAt).to.be.within(0, 60_000);

    await handle.signal(requestInfoSignal, { reviewer: 'ann', message: 'What is your tax identification number?' });
    await statusBecomes(request.id, 'more_info_required');
    await handle.signal(developerActivitySignal, {
      kind: 'responded',
      developerId: developer.developerId,
      message: 'We are exempt; see the letter.',
    });
    expect(await statusBecomes(request.id, 'under_review')).to.include({ infoRounds: 2 });

    const conversation = await listConversation(db, request.id);
    expect(conversation.map((m) => [m.authorType, m.body])).to.deep.equal([
      ['reviewer', 'Please upload the back of your national ID.'],
      ['reviewer', 'What is your tax identification number?'],
      ['developer', 'We are exempt; see the letter.'],
    ]);

    await handle.signal(approveSignal, { reviewer: 'ann' });
    expect(((await handle.result()) as LiveAccessReviewResult).status).to.equal('approved');
    expect(await liveActions(developer.merchantId)).to.deep.equal([
      'live_access.requested',
      'live_access.info_requested',
      'live_access.review_resumed',
      'live_access.info_requested',
      'live_access.review_resumed',
      'api_key.created',
      'live_access.approved',
      'merchant.plan_changed',
    ]);
    await record('live-access-more-info', handle);
  });

  it('reminds the reviewers of a Friday-evening request on Wednesday (3 business days), then every business day', async () => {
    const friday = nextFridayEvening(await env.currentTimeMs());
    await env.sleep(friday - (await env.currentTimeMs()));
    const { developer, request, handle } = await file();
    const filedMs = Date.parse(request.requestedAt);
    expect(new Date(filedMs).getUTCDay()).to.equal(5);

    const reminders = async () =>
      (await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' }))
        .filter((entry) => entry.action === 'live_access.reminder_sent')
        .map((entry) => Date.parse(entry.createdAt))
        .sort();

    await env.sleep(4.5 * DAY_MS); // Wednesday 06:00: Monday and Tuesday passed without a reminder
    expect(await reminders()).to.deep.equal([]);

    await env.sleep(DAY_MS); // Thursday 06:00
    const [first] = await reminders();
    expect(new Date(first as number).getUTCDay()).to.equal(3);
    expect((first as number) - filedMs).to.be.within(5 * DAY_MS, 5 * DAY_MS + 60_000);

    await env.sleep(5 * DAY_MS); // the next Tuesday 06:00: Thursday, Friday and Monday, none on the weekend
    const all = await reminders();
    expect(all.map((ms) => new Date(ms).getUTCDay())).to.deep.equal([3, 4, 5, 1]);
    expect(all.map((ms) => Math.round((ms - filedMs) / HOUR_MS))).to.deep.equal([5 * 24, 6 * 24, 7 * 24, 10 * 24]);
    const reminderMails = mailsAbout(outbox, request.id).filter((m) => m.subject.startsWith('Reminder'));
    expect(reminderMails).to.have.length(4);
    expect(reminderMails[0]?.to).to.equal(config.LIVE_ACCESS_REVIEWER_EMAILS.join(', '));
    expect(reminderMails[0]?.body).to.include('still undecided after 3 business days');
    expect(await findLiveAccessRequest(db, request.id)).to.include({ status: 'under_review', remindersSent: 4 });

    await handle.signal(approveSignal, { reviewer: 'cy' });
    expect(((await handle.result()) as LiveAccessReviewResult).status).to.equal('approved');
    await record('live-access-reminded', handle);
  });
});
