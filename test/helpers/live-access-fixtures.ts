/**
 * Rows the live access tests start from: a developer and a filed request (docs/live-access.md#review), and reading the
 * outbox (docs/live-access.md#e-mail).
 */
import fs from 'node:fs';
import path from 'node:path';
import { insertDeveloperWithKey } from '../../src/db/developers';
import type { Db } from '../../src/db/knex';
import { filedRequest, insertLiveAccessRequest, type LiveAccessRequestRecord } from '../../src/db/live-access-requests';
import { newId } from '../../src/lib/ids';
import { issueSecretKey } from '../../src/lib/secret-keys';

/** A developer inserted directly. */
export interface FixtureDeveloper {
  developerId: string;
  merchantId: string;
  email: string;
}

/** Inserts a developer (with its sandbox key) and returns its ids. */
export async function insertDeveloper(db: Db): Promise<FixtureDeveloper> {
  const merchantId = newId('mer_');
  const developerId = newId('dev_');
  const email = `${merchantId.toLowerCase()}@example.com`;
  const key = issueSecretKey('sandbox');
  await insertDeveloperWithKey(db, {
    id: developerId,
    merchantId,
    email,
    passwordHash: 'scrypt$unused',
    name: 'Ada Fixture',
    businessName: 'Ada Shop',
    key: { id: newId('key_'), hash: key.hash, last4: key.last4 },
  });
  return { developerId, merchantId, email };
}

/** A request of `developer` filed at `filedAt` (ISO 8601 UTC), status under_review. */
export function liveAccessRequest(developer: FixtureDeveloper, filedAt: string): LiveAccessRequestRecord {
  return filedRequest(
    {
      id: newId('req_'),
      merchantId: developer.merchantId,
      developerId: developer.developerId,
      businessName: 'Ada Shop',
      businessType: 'e_commerce',
      businessWebsite: 'https://ada.example.com',
      expectedMonthlyVolume: 5_000_000,
      useCase: 'Selling handmade goods online to customers in Rwanda',
    },
    filedAt,
  );
}

/** Stores `request` and runs `start` (the workflow start) in its transaction, as the API does. */
export async function fileRequest(db: Db, request: LiveAccessRequestRecord, start: () => Promise<void>): Promise<void> {
  await insertLiveAccessRequest(
    db,
    request,
    {
      id: newId('act_'),
      merchantId: request.merchantId,
      environment: 'live',
      actor: { type: 'developer', id: request.developerId },
      action: 'live_access.requested',
      target: request.id,
      ip: '127.0.0.1',
      createdAt: request.requestedAt,
    },
    start,
  );
}

/** An `.eml` file of the outbox: its name, recipients, subject and decoded body text. */
export interface OutboxMail {
  file: string;
  to: string;
  subject: string;
  messageId: string;
  date: string;
  body: string;
}

/** Decodes a quoted-printable body (nodemailer's choice for long or non-ASCII lines). */
function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The mails in `outboxDir` about `requestId`, oldest first (file names start with the date). */
export function mailsAbout(outboxDir: string, requestId: string): OutboxMail[] {
  if (!fs.existsSync(outboxDir)) return [];
  return fs
    .readdirSync(outboxDir)
    .filter((file) => file.includes(`.${requestId}.`))
    .sort()
    .map((file) => {
      const raw = fs.readFileSync(path.join(outboxDir, file), 'utf8');
      const split = raw.indexOf('\n\n');
      const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(headers)?.[1] ?? '';
      const encoding = header('Content-Transfer-Encoding').toLowerCase();
      const body = raw.slice(split + 2);
      return {
        file,
        to: header('To'),
        subject: header('Subject'),
        messageId: header('Message-ID'),
        date: header('Date'),
        body: encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : body,
      };
    });
}

/** Polls `probe` every 100 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
