/**
 * Upload limits over real HTTP (docs/limits.md#uploads; docs/live-access.md#documents, docs/api.md#errors): files are
 * streamed to disk and
 * cut at 10 MB while they arrive, leaving no partial file; a merchant keeps one current document per
 * kind, and a new upload of a kind deletes the replaced one's file; the per-merchant quota of
 * documents and bytes answers 409 `conflict` naming the limit.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { expect } from 'chai';
import { createApp } from '../../src/api/app';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';
import { JPEG_BYTES, PDF_BYTES, PNG_BYTES, upload } from '../helpers/uploads';

const KYC = '/v1/documents/upload/kyc';
const BUSINESS = '/v1/documents/upload/business';
const MB = 1024 * 1024;

/** `head` followed by zero bytes up to `size` bytes: a real PNG/PDF signature of any size. */
function fileOf(head: Buffer, size: number): Buffer {
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0)]);
}

async function stagingDir(): Promise<string> {
  return path.join((await getStack()).config.DOCUMENT_STORE_DIR, '.staging');
}

function filesIn(folder: string): string[] {
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
}

async function merchantFiles(merchantId: string): Promise<string[]> {
  return filesIn(path.join((await getStack()).config.DOCUMENT_STORE_DIR, merchantId));
}

async function documentRows(merchantId: string): Promise<Record<string, any>[]> {
  const { db } = await getStack();
  return db('documents').where({ merchant_id: merchantId }).orderBy('uploaded_at');
}

/**
 * Sends a multipart upload of `totalBytes` (a PDF signature, then spaces) as a stream, in 256 KiB
 * chunks with back-pressure, so the client never holds the file. After `pauseAfter` bytes it waits
 * for `whilePaused` before sending the rest.
 */
async function streamUpload(options: {
  token: string;
  totalBytes: number;
  pauseAfter?: number;
  whilePaused?: () => Promise<void>;
}): Promise<{ status: number; body: any }> {
  const { baseUrl } = await getStack();
  const boundary = `----upload${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="document_type"\r\n\r\nbusiness_licence\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="huge.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(BUSINESS, baseUrl);
  const request = http.request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(preamble.length + options.totalBytes + epilogue.length),
    },
  });
  const answered = new Promise<{ status: number; body: any }>((resolve, reject) => {
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      response.once('error', reject);
    });
    request.once('error', reject);
  });
  const write = async (chunk: Buffer) => {
    if (!request.write(chunk)) await once(request, 'drain');
  };
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  await write(preamble);
  await write(PDF_BYTES);
  let sent = PDF_BYTES.length;
  let paused = false;
  while (sent < options.totalBytes) {
    if (!paused && options.pauseAfter !== undefined && sent >= options.pauseAfter) {
      paused = true;
      await options.whilePaused?.();
    }
    const piece = chunk.subarray(0, Math.min(chunk.length, options.totalBytes - sent));
    await write(piece);
    sent += piece.length;
  }
  request.end(epilogue);
  return answered;
}

/**
 * Starts an upload to `pathname` without credentials that announces `totalBytes` but sends only its
 * first MiB, and waits up to 10 s for the answer the server gives while the rest is still unsent.
 * @returns the status, or undefined when the server kept waiting for the body
 */
async function answerBeforeBody(pathname: string, totalBytes: number): Promise<number | undefined> {
  const { baseUrl } = await getStack();
  const boundary = `----anonymous${Date.now()}`;
  const preamble = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="id.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const request = http.request(new URL(pathname, baseUrl), {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(preamble.length + totalBytes),
    },
  });
  request.on('error', () => undefined); // the server may close the connection once it answered
  const answered = new Promise<number>((resolve) =>
    request.once('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }),
  );
  request.write(Buffer.concat([preamble, PDF_BYTES, Buffer.alloc(MB - PDF_BYTES.length, 0x20)]));
  const status = await Promise.race([
    answered,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000)),
  ]);
  request.destroy();
  return status;
}

describe('document uploads: streamed, limited, replaced, within a quota (docs/limits.md#uploads)', function () {
  this.timeout(120_000);

  it('answers an upload without credentials, in any spelling of the path, before reading its body, and stages nothing (docs/api.md#paths)', async () => {
    const staging = await stagingDir();
    const before = filesIn(staging);
    for (const pathname of [
      KYC,
      '/V1/documents/upload/kyc',
      '/v1/Documents/upload/kyc',
      '/v1/documents/upload/KYC',
      `${KYC}/`,
      '/v1/documents//upload/kyc',
      '/v1/documents/upload/%6Byc',
    ]) {
      const status = await answerBeforeBody(pathname, 5 * MB);
      expect(status, `${pathname}: answered before the body was read`).to.equal(pathname === KYC ? 401 : 404);
      expect(
        filesIn(staging).filter((name) => !before.includes(name)),
        `${pathname}: staged`,
      ).to.deep.equal([]);
    }
  });

  describe('the 10 MB limit, enforced while streaming (docs/live-access.md#documents)', () => {
    it('writes the file to disk as it arrives, cuts a 50 MB upload at 10 MB with 413 file_too_large, and leaves no file or row', async () => {
      const developer = await registerDeveloper();
      const staging = await stagingDir();
      const before = filesIn(staging);
      let stagedWhileStreaming = 0;
      const response = await streamUpload({
        token: developer.token,
        totalBytes: 50 * MB,
        pauseAfter: 4 * MB,
        whilePaused: async () => {
          // The bytes sent so far are in a file in the staging folder, not in the server's memory.
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline && stagedWhileStreaming < 2 * MB) {
            const staged = filesIn(staging).filter((name) => !before.includes(name));
            stagedWhileStreaming = Math.max(0, ...staged.map((name) => fs.statSync(path.join(staging, name)).size));
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        },
      });
      expect(stagedWhileStreaming, 'bytes on disk while the upload streams').to.be.at.least(2 * MB);
      expect(response.status, JSON.stringify(response.body)).to.equal(413);
      expect(response.body).to.deep.include({ success: false });
      expect(response.body.error).to.include({ code: 'file_too_large' });
      expect(response.body.error.message).to.match(/larger than 10 MB \(10485760 bytes\)/);
      expect(
        filesIn(staging).filter((name) => !before.includes(name)),
        'partial file left in staging',
      ).to.deep.equal([]);
      expect(await merchantFiles(developer.merchantId)).to.deep.equal([]);
      expect(await documentRows(developer.merchantId)).to.have.length(0);
    });

    it('moves an accepted upload out of the staging folder into the store, and deletes a refused one', async () => {
      const developer = await registerDeveloper();
      const staging = await stagingDir();
      const accepted = await upload(BUSINESS, {
        credential: developer.token,
        bytes: fileOf(PDF_BYTES, 3 * MB),
        fileName: 'registration.pdf',
      });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
      expect(await merchantFiles(developer.merchantId)).to.deep.equal([`${accepted.body.data.id}.pdf`]);
      const refused = await upload(BUSINESS, {
        credential: developer.token,
        bytes: Buffer.from('plain text, no signature'),
        fileName: 'x.pdf',
        fields: { document_type: 'tax_identification' },
      });
      expect(refused.body.error.code).to.equal('unsupported_file_type');
      const invalid = await upload(KYC, {
        credential: developer.token,
        bytes: PDF_BYTES,
        fields: { document_type: 'national_id' },
      });
      expect(invalid.body.error.code).to.equal('validation_error');
      expect(filesIn(staging)).to.deep.equal([]);
      expect(await merchantFiles(developer.merchantId)).to.have.length(1);
    });
  });

  describe("one current document per kind: a replaced document's file is deleted", () => {
    let developer: TestDeveloper;
    before(async () => {
      developer = await registerDeveloper();
    });

    it('a second passport replaces the first: its file is gone, its row stays marked, the list shows the new one', async () => {
      const first = await upload(KYC, {
        credential: developer.token,
        bytes: PDF_BYTES,
        fileName: 'old.pdf',
        fields: { document_type: 'passport' },
      });
      const front = await upload(KYC, {
        credential: developer.token,
        bytes: PNG_BYTES,
        fileName: 'front.png',
        fields: { document_type: 'national_id', side: 'front' },
      });
      const { config } = await getStack();
      const firstFile = path.join(config.DOCUMENT_STORE_DIR, developer.merchantId, `${first.body.data.id}.pdf`);
      expect(fs.existsSync(firstFile)).to.equal(true);

      const second = await upload(KYC, {
        credential: developer.token,
        bytes: JPEG_BYTES,
        fileName: 'new.jpg',
        fields: { document_type: 'passport' },
      });
      expect(second.status, JSON.stringify(second.body)).to.equal(201);
      expect(fs.existsSync(firstFile), 'replaced file').to.equal(false);
      expect((await merchantFiles(developer.merchantId)).sort()).to.deep.equal(
        [`${front.body.data.id}.png`, `${second.body.data.id}.jpg`].sort(),
      );

      const rows = await documentRows(developer.merchantId);
      const old = rows.find((row) => row.id === first.body.data.id);
      expect(old).to.include({ superseded_by: second.body.data.id, file_name: 'old.pdf' });
      expect(old?.superseded_at).to.be.instanceOf(Date);
      expect(old?.file_removed_at).to.be.instanceOf(Date);
      expect(rows.find((row) => row.id === front.body.data.id)).to.include({
        superseded_at: null,
        superseded_by: null,
      });

      const list = await call('/v1/documents', { headers: { authorization: `Bearer ${developer.token}` } });
      expect(list.body.data.documents.map((d: { id: string }) => d.id)).to.deep.equal([
        second.body.data.id,
        front.body.data.id,
      ]);
    });

    it('the back of a national ID does not replace its front; a new front replaces only the front', async () => {
      const back = await upload(KYC, {
        credential: developer.token,
        bytes: PNG_BYTES,
        fileName: 'back.png',
        fields: { document_type: 'national_id', side: 'back' },
      });
      const newFront = await upload(KYC, {
        credential: developer.token,
        bytes: PDF_BYTES,
        fileName: 'front2.pdf',
        fields: { document_type: 'national_id', side: 'front' },
      });
      const current = (await documentRows(developer.merchantId)).filter((row) => row.superseded_at === null);
      expect(
        current
          .filter((row) => row.document_type === 'national_id')
          .map((row) => row.id)
          .sort(),
      ).to.deep.equal([back.body.data.id, newFront.body.data.id].sort());
    });

    it('concurrent uploads of one kind leave exactly one current document and one file', async () => {
      const fresh = await registerDeveloper();
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          upload(BUSINESS, { credential: fresh.token, bytes: fileOf(PDF_BYTES, 1000 + i), fileName: `r${i}.pdf` }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201, 201, 201]);
      const rows = await documentRows(fresh.merchantId);
      const current = rows.filter((row) => row.superseded_at === null);
      expect(current).to.have.length(1);
      expect(rows.filter((row) => row.superseded_at !== null && row.file_removed_at !== null)).to.have.length(4);
      const ext = current[0]?.content_type === 'application/pdf' ? 'pdf' : '?';
      expect(await merchantFiles(fresh.merchantId)).to.deep.equal([`${current[0]?.id}.${ext}`]);
    });
  });

  describe('the per-merchant quota: 409 conflict naming the limit', () => {
    let server: http.Server;
    let baseUrl: string;

    before(async () => {
      // An app with small limits: at most 2 current documents of at most 300,000 bytes together.
      const stack = await getStack();
      const config = testConfig({
        RATE_LIMIT_MULTIPLIER: '1000',
        DOCUMENT_QUOTA_COUNT: '2',
        DOCUMENT_QUOTA_BYTES: '300000',
      });
      const app = createApp({
        config,
        db: stack.db,
        temporal: stack.client,
        providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
        logger: createLogger('quota', 'silent'),
      });
      server = http.createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('refuses a third document beyond a count of 2, storing nothing, yet takes a replacement of one of the two', async () => {
      const developer = await registerDeveloper();
      const send = (pathname: string, fields: Record<string, string>, bytes: Buffer = PDF_BYTES) =>
        upload(pathname, { baseUrl, credential: developer.token, bytes, fileName: 'f.pdf', fields });
      expect((await send(KYC, { document_type: 'passport' })).status).to.equal(201);
      expect((await send(BUSINESS, {})).status).to.equal(201);

      const third = await send(BUSINESS, { document_type: 'tax_identification' });
      expect(third.status, JSON.stringify(third.body)).to.equal(409);
      expect(third.body.success).to.equal(false);
      expect(third.body.error.code).to.equal('conflict');
      expect(third.body.error.message).to.match(/^document quota reached: a merchant keeps at most 2 documents/);
      expect(await documentRows(developer.merchantId)).to.have.length(2);
      expect(await merchantFiles(developer.merchantId)).to.have.length(2);
      expect(filesIn(await stagingDir())).to.deep.equal([]);

      const replacement = await send(KYC, { document_type: 'passport' }, PNG_BYTES);
      expect(replacement.status, JSON.stringify(replacement.body)).to.equal(201);
      expect(await merchantFiles(developer.merchantId)).to.have.length(2);
    });

    it('refuses a file that would take the merchant past 300,000 bytes, counting a replaced file out', async () => {
      const developer = await registerDeveloper();
      const send = (pathname: string, fields: Record<string, string>, size: number) =>
        upload(pathname, {
          baseUrl,
          credential: developer.token,
          bytes: fileOf(PNG_BYTES, size),
          fileName: 'f.png',
          fields,
        });
      expect((await send(KYC, { document_type: 'passport' }, 200_000)).status).to.equal(201);

      const over = await send(BUSINESS, {}, 150_000);
      expect(over.status, JSON.stringify(over.body)).to.equal(409);
      expect(over.body.error.code).to.equal('conflict');
      expect(over.body.error.message).to.equal(
        "document quota reached: a merchant's documents take at most 300,000 bytes together and with this file they would take 350,000 bytes",
      );
      expect(await documentRows(developer.merchantId)).to.have.length(1);

      // A larger passport replaces the 200,000-byte one: 250,000 bytes in all.
      expect((await send(KYC, { document_type: 'passport' }, 250_000)).status).to.equal(201);
      expect((await send(BUSINESS, {}, 50_000)).status).to.equal(201);
      expect((await send(BUSINESS, { document_type: 'business_licence' }, 1_000)).body.error.message).to.match(
        /at most 2 documents/,
      );
      expect((await send(BUSINESS, {}, 50_001)).body.error.message).to.match(/would take 300,001 bytes$/);
    });

    it('by default allows 50 MB per merchant: five 10 MB documents, not a sixth byte', async () => {
      const developer = await registerDeveloper();
      const big = fileOf(PDF_BYTES, 10 * MB);
      for (const [pathname, fields] of [
        [KYC, { document_type: 'passport' }],
        [KYC, { document_type: 'drivers_licence' }],
        [BUSINESS, { document_type: 'business_registration' }],
        [BUSINESS, { document_type: 'tax_identification' }],
        [BUSINESS, { document_type: 'business_licence' }],
      ] as const) {
        const answer = await upload(pathname, { credential: developer.token, bytes: big, fileName: 'big.pdf', fields });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      }
      const sixth = await upload(KYC, {
        credential: developer.token,
        bytes: PDF_BYTES,
        fileName: 'id.pdf',
        fields: { document_type: 'national_id', side: 'front' },
      });
      expect(sixth.status).to.equal(409);
      expect(sixth.body.error.message).to.match(/at most 50 MB \(52,428,800 bytes\) together/);
    });
  });
});
