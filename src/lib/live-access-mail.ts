/**
 * The e-mails of the live access review (docs/live-access.md#review, docs/live-access.md#e-mail): to the reviewers (a
 * new request, reminders) and
 * to the developer (more information needed, approved, rejected). Plain text; no secret is ever
 * put in an e-mail (the live key is revealed once through the API, docs/live-access.md).
 */
import type { LiveAccessMailDetails, LiveAccessMailKind } from '../domain/live-access';

/** What every e-mail may mention. */
export interface LiveAccessMailContext {
  requestId: string;
  merchantId: string;
  businessName: string;
  developerName: string;
  /** ISO 8601 UTC. */
  requestedAt: string;
  /** ISO 8601 UTC: when the request last entered review. */
  underReviewSince: string;
}

/** Subject and body. */
export interface RenderedMail {
  subject: string;
  text: string;
}

/** True when the e-mail goes to the reviewers rather than the developer. */
export function isForReviewers(kind: LiveAccessMailKind): boolean {
  return kind === 'new_request' || kind === 'reminder';
}

const SIGNATURE = '\n\n-- \nPaycollect\n';

/** Renders one e-mail. */
export function renderLiveAccessMail(context: LiveAccessMailContext, details: LiveAccessMailDetails): RenderedMail {
  const { requestId, businessName } = context;
  const reviewerHint = `Review it with:\n  npm run admin -- live-access show ${requestId}`;
  switch (details.kind) {
    case 'new_request':
      return {
        subject: `New live access request ${requestId} (${businessName})`,
        text: `${businessName} (merchant ${context.merchantId}) asked for live access on ${context.requestedAt}.\n\n${reviewerHint}${SIGNATURE}`,
      };
    case 'reminder':
      return {
        subject: `Reminder ${details.reminderNumber}: live access request ${requestId} (${businessName}) awaits a decision`,
        text:
          `The live access request ${requestId} of ${businessName} (merchant ${context.merchantId}) has been under review ` +
          `since ${context.underReviewSince} and is still undecided after 3 business days.\n\n${reviewerHint}${SIGNATURE}`,
      };
    case 'info_requested':
      return {
        subject: 'More information needed for your live access request',
        text:
          `Hello ${context.developerName},\n\nOur reviewers need more information about your live access request ${requestId}:\n\n` +
          `${details.message}\n\nUpload the document (POST /v1/documents/upload/kyc or /v1/documents/upload/business) or answer ` +
          `with POST /v1/developer/live-access/respond; the review resumes as soon as you do.${SIGNATURE}`,
      };
    case 'approved':
      return {
        subject: 'Your live access is approved',
        text:
          `Hello ${context.developerName},\n\nYour live access request ${requestId} for ${businessName} is approved. ` +
          `Your plan is ${details.plan}.\n\nYour first live secret key (sk_live_…${details.liveKeyLast4}) is ready. ` +
          `It is shown once: fetch it with POST /v1/developer/live-access/live-key using your session token, ` +
          `and keep it safe. Then replace your sandbox key with it and register your production webhook URLs.${SIGNATURE}`,
      };
    case 'rejected':
      return {
        subject: 'Your live access request was not approved',
        text:
          `Hello ${context.developerName},\n\nYour live access request ${requestId} for ${businessName} was not approved:\n\n` +
          `${details.reason}\n\nYou may file a new request once this is addressed.${SIGNATURE}`,
      };
  }
}
