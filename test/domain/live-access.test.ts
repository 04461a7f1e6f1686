/**
 * The review's state machine, the status view (docs/live-access.md#review) and the documents a request needs
 * (docs/live-access.md#review, docs/live-access.md#documents).
 */
import { expect } from 'chai';
import { missingDocuments, cleanFileName } from '../../src/domain/documents';
import { initialReviewState, reviewStep, type ReviewState } from '../../src/domain/live-access';
import { toLiveAccessStatusView } from '../../src/views/live-access';
import { checkCustomLimits } from '../../src/domain/plans';

const FILED = '2026-11-20T18:00:00.000Z';
const LATER = '2026-11-23T09:00:00.000Z';

describe('live access review state machine (docs/live-access.md#review)', () => {
  const fresh = () => initialReviewState('req_x', FILED);

  it('starts under review with the reminder clock at the filing time', () => {
    expect(fresh()).to.include({ status: 'under_review', underReviewSince: FILED, infoRounds: 0 });
  });

  it('approves and rejects an open request, recording who decided and when', () => {
    const approved = reviewStep(fresh(), { type: 'approve', reviewer: 'ann' }, LATER);
    expect(approved.state).to.include({
      status: 'approved',
      decidedAt: LATER,
      decidedBy: 'ann',
      reviewerMessage: null,
    });
    expect(approved.step).to.deep.equal({ kind: 'approve', reviewer: 'ann' });
    const rejected = reviewStep(fresh(), { type: 'reject', reviewer: 'bo', reason: 'unreadable ID' }, LATER);
    expect(rejected.state).to.include({ status: 'rejected', reviewerMessage: 'unreadable ID', decidedBy: 'bo' });
  });

  it('asks for more information and returns to review on an upload or a response, restarting the clock', () => {
    const asked = reviewStep(fresh(), { type: 'request_info', reviewer: 'ann', message: 'Send the back side' }, LATER);
    expect(asked.state).to.include({
      status: 'more_info_required',
      reviewerMessage: 'Send the back side',
      infoRounds: 1,
    });
    const uploaded = reviewStep(
      asked.state,
      { type: 'document_uploaded', developerId: 'dev_1', documentId: 'doc_1' },
      '2026-11-24T10:00:00.000Z',
    );
    expect(uploaded.state).to.include({ status: 'under_review', underReviewSince: '2026-11-24T10:00:00.000Z' });
    expect(uploaded.step).to.deep.equal({ kind: 'resume', developerId: 'dev_1', message: null });
    const again = reviewStep(
      uploaded.state,
      { type: 'request_info', reviewer: 'ann', message: 'And your tax id?' },
      LATER,
    );
    const answered = reviewStep(
      again.state,
      { type: 'developer_responded', developerId: 'dev_1', message: 'We are exempt.' },
      LATER,
    );
    expect(answered.step).to.deep.equal({ kind: 'resume', developerId: 'dev_1', message: 'We are exempt.' });
    expect(answered.state).to.include({ status: 'under_review', infoRounds: 2, responses: 2 });
  });

  it('may decide a request that waits for more information', () => {
    const asked = reviewStep(fresh(), { type: 'request_info', reviewer: 'ann', message: 'Call us' }, LATER).state;
    expect(reviewStep(asked, { type: 'approve', reviewer: 'ann' }, LATER).state.status).to.equal('approved');
  });

  it('keeps a response sent while under review without changing the status; ignores an upload then', () => {
    const noted = reviewStep(fresh(), { type: 'developer_responded', developerId: 'dev_1', message: 'FYI' }, LATER);
    expect(noted.step.kind).to.equal('note');
    expect(noted.state.status).to.equal('under_review');
    const upload = reviewStep(fresh(), { type: 'document_uploaded', developerId: 'dev_1', documentId: 'doc_1' }, LATER);
    expect(upload.step.kind).to.equal('ignore');
  });

  it('ignores everything once decided: a second approval changes nothing', () => {
    const approved = reviewStep(fresh(), { type: 'approve', reviewer: 'ann' }, LATER).state;
    for (const message of [
      { type: 'approve', reviewer: 'bo' },
      { type: 'reject', reviewer: 'bo', reason: 'x' },
      { type: 'request_info', reviewer: 'bo', message: 'x' },
      { type: 'developer_responded', developerId: 'dev_1', message: 'x' },
    ] as const) {
      const next = reviewStep(approved, message, '2026-12-01T00:00:00.000Z');
      expect(next.step.kind).to.equal('ignore');
      expect(next.state).to.equal(approved);
    }
  });

  it('shows the status (docs/live-access.md#review): none, pending for an open request, the decision with decided_at', () => {
    expect(toLiveAccessStatusView(false, undefined)).to.deep.equal({ status: 'none', has_live_access: false });
    const open = {
      id: 'req_1',
      status: 'more_info_required' as const,
      requestedAt: FILED,
      decidedAt: null,
      reviewerMessage: 'Send it',
    };
    expect(toLiveAccessStatusView(false, open)).to.deep.equal({
      status: 'pending',
      has_live_access: false,
      live_access_request: {
        id: 'req_1',
        status: 'more_info_required',
        requested_at: FILED,
        reviewer_message: 'Send it',
      },
    });
    const approved = { ...open, status: 'approved' as const, decidedAt: LATER, reviewerMessage: null };
    expect(toLiveAccessStatusView(true, approved)).to.deep.equal({
      status: 'approved',
      has_live_access: true,
      live_access_request: { id: 'req_1', status: 'approved', requested_at: FILED, decided_at: LATER },
    });
  });

  it('keeps the state a pure value (the workflow relies on it)', () => {
    const state: ReviewState = fresh();
    reviewStep(state, { type: 'approve', reviewer: 'ann' }, LATER);
    expect(state.status).to.equal('under_review');
  });
});

describe('documents a request needs (docs/live-access.md#review, docs/live-access.md#documents)', () => {
  it('needs an identity document and a business registration', () => {
    expect(missingDocuments([]).map((m) => m.field)).to.deep.equal(['identity_document', 'business_registration']);
  });

  it('takes a passport, a drivers licence, or both national ID sides as identity', () => {
    const registration = { documentType: 'business_registration' as const, side: null };
    expect(missingDocuments([registration, { documentType: 'passport', side: null }])).to.deep.equal([]);
    expect(missingDocuments([registration, { documentType: 'drivers_licence', side: null }])).to.deep.equal([]);
    expect(
      missingDocuments([
        registration,
        { documentType: 'national_id', side: 'front' },
        { documentType: 'national_id', side: 'back' },
      ]),
    ).to.deep.equal([]);
  });

  it('names the missing side of a national ID', () => {
    const [missing] = missingDocuments([
      { documentType: 'national_id', side: 'front' },
      { documentType: 'business_registration', side: null },
    ]);
    expect(missing?.message).to.equal(
      'identity document (a passport, a drivers_licence, or the back of the national_id)',
    );
  });

  it('does not count a tax identification as a business registration', () => {
    const missing = missingDocuments([
      { documentType: 'passport', side: null },
      { documentType: 'tax_identification', side: null },
    ]);
    expect(missing.map((m) => m.field)).to.deep.equal(['business_registration']);
  });

  it('cleans file names: last path segment, no control characters, never empty', () => {
    expect(cleanFileName('C:\\Users\\me\\passport.pdf')).to.equal('passport.pdf');
    expect(cleanFileName('../../etc/passwd')).to.equal('passwd');
    expect(cleanFileName('id\u0000\n.png')).to.equal('id.png');
    expect(cleanFileName('')).to.equal('document');
  });
});

describe('custom limits (docs/limits.md#rate-limits)', () => {
  it('are for enterprise merchants only, positive, and hourly at least per-minute', () => {
    expect(checkCustomLimits('enterprise', { perMinute: 2000, perHour: 50000 })).to.deep.equal({
      perMinute: 2000,
      perHour: 50000,
    });
    expect(() => checkCustomLimits('starter', { perMinute: 2000, perHour: 50000 })).to.throw(/enterprise plan only/);
    expect(() => checkCustomLimits('enterprise', { perMinute: 0, perHour: 50000 })).to.throw(
      /per-minute must be an integer/,
    );
    expect(() => checkCustomLimits('enterprise', { perMinute: 100, perHour: 50 })).to.throw(
      /per-hour must be at least per-minute/,
    );
  });
});
