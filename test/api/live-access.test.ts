/**
 * `/v1/developer/live-access/*` over real HTTP with the real worker
 * (docs/live-access.md#review), and the whole path end to end: upload, request, a reviewer's question
 * and approval through the admin command run as its own process (docs/live-access.md#admin-command), the live key
 * revealed once,
 * and live mode kept apart from sandbox (docs/api.md#merchants-and-environments).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp } from '../../src/api/app';
import { runAdmin } from '../../src/cli/admin';
import { listAuditEntries } from '../../src/db/audit-log';
import { insertPaymentWithCreatedEvent } from '../../src/db/payments';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { paymentEvent } from '../../src/activities/events';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { RESPOND_WAIT_MS } from '../../src/services/live-access-service';
import { liveAccessWorkflowId } from '../../src/workflows/live-access-messages';
import { mobileMoneyPayment } from '../helpers/fixtures';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { developerWithOpenRequest, runAdminProcess, session, VALID_REQUEST } from '../helpers/live-access-api';
import { eventually, mailsAbout } from '../helpers/live-access-fixtures';
import { getStack, testConfig } from '../helpers/stack';
import { PDF_BYTES, PNG_BYTES, upload, uploadRequiredDocuments } from '../helpers/uploads';

const REQUEST = '/v1/developer/live-access/request';
const STATUS = '/v1/developer/live-access/status';
const RESPOND = '/v1/developer/live-access/respond';
const LIVE_KEY = '/v1/developer/live-access/live-key';

async function requestRows(merchantId: string): Promise<number> {
  const { db } = await getStack();
  return (await db('live_access_requests').where({ merchant_id: merchantId })).length;
}

describe('live access: request, status, respond (docs/live-access.md#review)', function () {
  this.timeout(60_000);

  it('shows status none, without a request object, before any request', async () => {
    const developer = await registerDeveloper();
    const response = await call(STATUS, { headers: session(developer) });
    expect(response.status).to.equal(200);
    expect(response.body.data).to.deep.equal({ status: 'none', has_live_access: false });
  });

  it('files a request: 201 with status pending and the request under_review; its workflow runs and the reviewers are told', async () => {
    const developer = await registerDeveloper();
    await uploadRequiredDocuments(developer.token);
    const response = await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    const data = response.body.data;
    expect(data).to.deep.include({ status: 'pending', has_live_access: false });
    expect(data.live_access_request.id).to.match(/^req_[0-9A-Za-z]{24}$/);
    expect(data.live_access_request.status).to.equal('under_review');
    expect(Date.parse(data.live_access_request.requested_at)).to.be.closeTo(Date.now(), 60_000);

    const status = await call(STATUS, { headers: session(developer) });
    expect(status.body.data).to.deep.equal(data);

    const { client, config, db } = await getStack();
    const description = await client.workflow.getHandle(liveAccessWorkflowId(data.live_access_request.id)).describe();
    expect(description.status.name).to.equal('RUNNING');
    expect(description.type).to.equal('liveAccessReviewWorkflow');
    expect(description.taskQueue).to.equal(config.TEMPORAL_TASK_QUEUE);
    const told = await eventually(async () => mailsAbout(config.MAIL_OUTBOX_DIR, data.live_access_request.id)[0]);
    expect(told.to).to.equal(config.LIVE_ACCESS_REVIEWER_EMAILS.join(', '));
    const entries = await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' });
    expect(entries.find((e) => e.action === 'live_access.requested')).to.deep.include({
      target: data.live_access_request.id,
    });
  });

  it('refuses a second open request with 409 conflict', async () => {
    const { developer, requestId } = await developerWithOpenRequest();
    const again = await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) });
    expect(again.status).to.equal(409);
    expect(again.body.error).to.deep.equal({
      code: 'conflict',
      message: `live access request ${requestId} is still open; one request at a time`,
    });
    expect(await requestRows(developer.merchantId)).to.equal(1);
  });

  it('refuses a request without documents: 400 documents_missing naming each missing document', async () => {
    const developer = await registerDeveloper();
    const response = await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) });
    expect(response.status).to.equal(400);
    expect(response.body.error.code).to.equal('documents_missing');
    expect(response.body.error.message).to.equal(
      'documents missing: identity document (a passport, a drivers_licence, or both sides of a national_id); business_registration certificate',
    );
    expect(response.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal([
      'identity_document',
      'business_registration',
    ]);
    expect(await requestRows(developer.merchantId)).to.equal(0);
  });

  it('names the missing side of a national ID, and accepts both sides as identity', async () => {
    const developer = await registerDeveloper();
    await upload('/v1/documents/upload/kyc', {
      credential: developer.token,
      bytes: PNG_BYTES,
      fields: { document_type: 'national_id', side: 'front' },
    });
    await upload('/v1/documents/upload/business', { credential: developer.token, bytes: PDF_BYTES });
    const missing = await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) });
    expect(missing.status).to.equal(400);
    expect(missing.body.error.message).to.equal(
      'documents missing: identity document (a passport, a drivers_licence, or the back of the national_id)',
    );
    await upload('/v1/documents/upload/kyc', {
      credential: developer.token,
      bytes: PNG_BYTES,
      fields: { document_type: 'national_id', side: 'back' },
    });
    expect((await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) })).status).to.equal(201);
  });

  describe('bad bodies answer 400 validation_error naming the field and store nothing', () => {
    let developer: TestDeveloper;
    before(async () => {
      developer = await registerDeveloper();
      await uploadRequiredDocuments(developer.token);
    });
    afterEach(async () => {
      expect(await requestRows(developer.merchantId)).to.equal(0);
    });

    async function expectInvalid(body: object, field: string, message: string) {
      const response = await call(REQUEST, { body, headers: session(developer) });
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.error).to.deep.include({ code: 'validation_error', message });
      expect(response.body.error.details[0].field).to.equal(field);
    }

    it('compliance_acknowledged false or missing', async () => {
      await expectInvalid(
        { ...VALID_REQUEST, compliance_acknowledged: false },
        'compliance_acknowledged',
        'compliance_acknowledged must be true to acknowledge the compliance terms',
      );
      const { compliance_acknowledged: _omitted, ...rest } = VALID_REQUEST;
      await expectInvalid(rest, 'compliance_acknowledged', 'compliance_acknowledged is required');
    });

    it('a business_website that is not an http(s) URL with a domain', async () => {
      for (const website of [
        'not a url',
        'ftp://kigali-crafts.example.com',
        'javascript:alert(1)',
        'http://localhost',
      ]) {
        await expectInvalid(
          { ...VALID_REQUEST, business_website: website },
          'business_website',
          'business_website must be a valid url',
        );
      }
    });

    it('a negative or fractional expected_monthly_volume', async () => {
      await expectInvalid(
        { ...VALID_REQUEST, expected_monthly_volume: -1 },
        'expected_monthly_volume',
        'expected_monthly_volume must be at least 0',
      );
      await expectInvalid(
        { ...VALID_REQUEST, expected_monthly_volume: 10.5 },
        'expected_monthly_volume',
        'expected_monthly_volume must be an integer',
      );
    });

    it('an unknown business_type', async () => {
      await expectInvalid(
        { ...VALID_REQUEST, business_type: 'casino' },
        'business_type',
        'business_type must be one of: e_commerce, saas, marketplace, fintech, education, healthcare, other',
      );
    });

    it('a use_case under 20 characters, a missing business_name, an unknown field', async () => {
      await expectInvalid(
        { ...VALID_REQUEST, use_case: 'payments' },
        'use_case',
        'use_case must be at least 20 characters',
      );
      const { business_name: _omitted, ...rest } = VALID_REQUEST;
      await expectInvalid(rest, 'business_name', 'business_name is required');
      await expectInvalid({ ...VALID_REQUEST, ceo: 'me' }, 'ceo', 'unknown field: ceo');
    });
  });

  it('answers 409 to a response when no request waits for information', async () => {
    const fresh = await registerDeveloper();
    const none = await call(RESPOND, { body: { message: 'Here it is' }, headers: session(fresh) });
    expect(none.status).to.equal(409);
    expect(none.body.error.message).to.equal(
      'no live access request is waiting for information from you (there is no live access request)',
    );
    const { developer, requestId } = await developerWithOpenRequest();
    const underReview = await call(RESPOND, { body: { message: 'Here it is' }, headers: session(developer) });
    expect(underReview.status).to.equal(409);
    expect(underReview.body.error.message).to.match(new RegExp(`${requestId} is under_review`));
    const empty = await call(RESPOND, { body: { message: '   ' }, headers: session(developer) });
    expect(empty.status).to.equal(400);
  });

  it('brings a request waiting for information back to review when the developer uploads a document', async () => {
    const { developer, requestId } = await developerWithOpenRequest();
    const asked = await runAdmin(
      ['live-access', 'request-info', requestId, '--message', 'Add your tax identification.'],
      { out: () => undefined, err: () => undefined },
    );
    expect(asked).to.equal(0);
    expect((await call(STATUS, { headers: session(developer) })).body.data.live_access_request.status).to.equal(
      'more_info_required',
    );
    const uploaded = await upload('/v1/documents/upload/business', {
      credential: developer.token,
      bytes: PDF_BYTES,
      fields: { document_type: 'tax_identification' },
    });
    expect(uploaded.status).to.equal(201);
    const resumed = await eventually(async () => {
      const status = await call(STATUS, { headers: session(developer) });
      return status.body.data.live_access_request.status === 'under_review' ? status.body.data : undefined;
    });
    expect(resumed.live_access_request.reviewer_message).to.equal('Add your tax identification.');
  });

  it('answers 404 for the live key before approval', async () => {
    const developer = await registerDeveloper();
    const response = await call(LIVE_KEY, { method: 'POST', headers: session(developer) });
    expect(response.status).to.equal(404);
    expect(response.body.error).to.deep.equal({
      code: 'not_found',
      message: 'no live key yet: live access has not been approved',
    });
  });

  it('refuses an API key on every live access endpoint with 401 unauthorized (docs/api.md#credentials)', async () => {
    const developer = await registerDeveloper();
    for (const [path, method] of [
      [REQUEST, 'POST'],
      [STATUS, 'GET'],
      [RESPOND, 'POST'],
      [LIVE_KEY, 'POST'],
    ] as const) {
      const body = method === 'POST' ? VALID_REQUEST : undefined;
      const response = await call(path, { method, key: developer.key, body });
      expect(response.status, path).to.equal(401);
      expect(response.body.error).to.deep.equal({
        code: 'unauthorized',
        message: 'this endpoint takes a session token, not an API key',
      });
    }
    expect(await requestRows(developer.merchantId)).to.equal(0);
  });
});

describe('live access end to end: upload, request, review by the admin command, live key, live mode (docs/live-access.md)', function () {
  this.timeout(120_000);
  let developer: TestDeveloper;
  let requestId: string;
  let liveKey: string;

  before(async () => {
    ({ developer, requestId } = await developerWithOpenRequest());
  });

  it('a reviewer asks for more information (admin request-info): more_info_required, the developer is e-mailed', async () => {
    const run = await runAdminProcess([
      'live-access',
      'request-info',
      requestId,
      '--message',
      'Please send a clearer copy of your registration.',
      '--reviewer',
      'ann',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(`asked for more information on ${requestId} as ann; status more_info_required\n`);
    const status = await call(STATUS, { headers: session(developer) });
    expect(status.body.data).to.deep.include({ status: 'pending', has_live_access: false });
    expect(status.body.data.live_access_request).to.deep.include({
      id: requestId,
      status: 'more_info_required',
      reviewer_message: 'Please send a clearer copy of your registration.',
    });
    const { config } = await getStack();
    const question = await eventually(async () =>
      mailsAbout(config.MAIL_OUTBOX_DIR, requestId).find((m) => m.to === developer.email),
    );
    expect(question.body).to.include('Please send a clearer copy of your registration.');
  });

  it('the developer answers (POST respond): 200 and the request is under_review again', async () => {
    const response = await call(RESPOND, {
      body: { message: 'Uploaded a new scan; the old one was blurry.' },
      headers: session(developer),
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body.data.live_access_request.status).to.equal('under_review');
    expect((await call(STATUS, { headers: session(developer) })).body.data.live_access_request.status).to.equal(
      'under_review',
    );
  });

  it('the reviewer sees the request with its documents and conversation (admin show)', async () => {
    const run = await runAdminProcess(['live-access', 'show', requestId, '--json']);
    expect(run.code, run.stderr).to.equal(0);
    const details = JSON.parse(run.stdout);
    expect(details.request).to.include({
      id: requestId,
      status: 'under_review',
      businessName: VALID_REQUEST.business_name,
    });
    expect(details.documents.map((d: { documentType: string }) => d.documentType).sort()).to.deep.equal([
      'business_registration',
      'passport',
    ]);
    for (const document of details.documents) {
      expect(document.sha256).to.match(/^[0-9a-f]{64}$/);
      expect(fs.readFileSync(document.location).length).to.equal(document.size);
    }
    expect(details.conversation.map((m: { authorType: string }) => m.authorType)).to.deep.equal([
      'reviewer',
      'developer',
    ]);
    const text = await runAdminProcess(['live-access', 'show', requestId]);
    expect(text.stdout).to.include('sha256 ').and.include('path   ').and.include('passport.pdf');
  });

  it('the reviewer approves (admin approve): approved, live access, the approval e-mail holds no secret', async () => {
    const run = await runAdminProcess(['live-access', 'approve', requestId, '--reviewer', 'ann']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(
      new RegExp(
        `^approved ${requestId} as ann; first live key key_\\w{24} created, shown once to the developer; status approved\\n$`,
      ),
    );
    const status = await call(STATUS, { headers: session(developer) });
    expect(status.body.data).to.deep.include({ status: 'approved', has_live_access: true });
    expect(status.body.data.live_access_request).to.include({ id: requestId, status: 'approved' });
    expect(Date.parse(status.body.data.live_access_request.decided_at)).to.be.closeTo(Date.now(), 60_000);
    const { config } = await getStack();
    const approval = await eventually(async () =>
      mailsAbout(config.MAIL_OUTBOX_DIR, requestId).find((m) => m.subject === 'Your live access is approved'),
    );
    expect(approval.to).to.equal(developer.email);
    expect(approval.body).not.to.match(/sk_live_[0-9A-Za-z]{32}/);
  });

  it('a second approval is refused by the admin command with a clear error and a non-zero exit', async () => {
    const run = await runAdminProcess(['live-access', 'approve', requestId, '--reviewer', 'bo']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(
      new RegExp(
        `^error: request ${requestId} is already approved by ann at .*; only open requests take decisions\\n$`,
      ),
    );
  });

  it('reveals the first live key once (docs/api.md#secret-keys), then 409', async () => {
    const revealed = await call(LIVE_KEY, { method: 'POST', headers: session(developer) });
    expect(revealed.status).to.equal(200);
    expect(revealed.body.data).to.include({ object: 'api_key', environment: 'live' });
    liveKey = revealed.body.data.secret;
    expect(liveKey).to.match(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(revealed.body.data.last4).to.equal(liveKey.slice(-4));
    const again = await call(LIVE_KEY, { method: 'POST', headers: session(developer) });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('conflict');
    const { db } = await getStack();
    const actions = (await listAuditEntries(db, { merchantId: developer.merchantId, environment: 'live' })).map(
      (e) => e.action,
    );
    expect(actions).to.include.members([
      'live_access.requested',
      'live_access.info_requested',
      'live_access.responded',
      'live_access.approved',
      'api_key.created',
      'api_key.revealed',
    ]);
  });

  it('the live key authenticates in live mode: a payment answers 503 provider_unavailable (no live adapter configured, docs/payments.md#live-mode)', async () => {
    const response = await call('/v1/payments', {
      key: liveKey,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(response.status).to.equal(503);
    expect(response.body.error.code).to.equal('provider_unavailable');
  });

  it("keeps live and sandbox apart both ways (docs/api.md#merchants-and-environments): each key answers 404 for the other environment's payment", async () => {
    const sandbox = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(sandbox.status).to.equal(201);
    await waitForPayment(developer.key, sandbox.body.data.id, (p) => p.status === 'completed');
    const sandboxWithLiveKey = await call(`/v1/payments/${sandbox.body.data.id}`, { key: liveKey });
    expect(sandboxWithLiveKey.status).to.equal(404);
    expect(sandboxWithLiveKey.body.error.code).to.equal('not_found');

    // No live adapter can create a live payment yet, so one is written the way the workflow would.
    const { db } = await getStack();
    const live = mobileMoneyPayment(developer.merchantId, '+250788000001', { environment: 'live' });
    await insertPaymentWithCreatedEvent(db, live, paymentEvent(live, 'payment.created'));
    expect((await call(`/v1/payments/${live.id}`, { key: liveKey })).status).to.equal(200);
    expect((await call(`/v1/payments/${live.id}`, { key: developer.key })).status).to.equal(404);
  });

  it('refuses a new request once live access is granted (409)', async () => {
    const response = await call(REQUEST, { body: VALID_REQUEST, headers: session(developer) });
    expect(response.status).to.equal(409);
    expect(response.body.error.message).to.equal('live access is already granted to this account');
  });
});

describe('live access: an answer the review has not taken yet (docs/live-access.md#review)', function () {
  this.timeout(60_000);
  let server: http.Server;
  let baseUrl: string;
  let config: ReturnType<typeof testConfig>;

  before(async () => {
    const stack = await getStack();
    // A task queue no worker polls: the review workflow exists but does not run, as while the
    // workers are down or behind.
    config = testConfig({ TEMPORAL_TASK_QUEUE: `live-access-paused-${Date.now()}` });
    const app = createApp({
      config,
      db: stack.db,
      temporal: stack.client,
      providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
      logger: createLogger('paused', 'silent'),
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('answers 202 after waiting RESPOND_WAIT_MS, with the status as recorded, and the review holds the answer', async () => {
    const developer = await registerDeveloper();
    await uploadRequiredDocuments(developer.token);
    const post = (path: string, body: object) =>
      fetch(baseUrl + path, {
        method: 'POST',
        headers: { ...session(developer), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const filed = await post(REQUEST, VALID_REQUEST);
    expect(filed.status).to.equal(201);
    const requestId = ((await filed.json()) as { data: { live_access_request: { id: string } } }).data
      .live_access_request.id;
    const { db, client } = await getStack();
    // What the review records when a reviewer asks a question (its workflow is not running here).
    await db('live_access_requests').where({ id: requestId }).update({ status: 'more_info_required' });

    const started = Date.now();
    const answered = await post(RESPOND, { message: 'Here is the clearer scan.' });
    const waitedMs = Date.now() - started;
    expect(answered.status).to.equal(202);
    const body = (await answered.json()) as { message: string; data: { live_access_request: { status: string } } };
    expect(body.message).to.equal('Response received; the review resumes shortly');
    expect(body.data.live_access_request.status).to.equal('more_info_required');
    expect(waitedMs).to.be.at.least(RESPOND_WAIT_MS);

    // The answer is not lost: it waits in the review's history for the workflow to run.
    const handle = client.workflow.getHandle(liveAccessWorkflowId(requestId));
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes)).to.have.length(1);
    await handle.terminate('test clean-up: no worker polls this task queue');
  });
});
