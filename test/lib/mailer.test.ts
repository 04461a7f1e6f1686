/**
 * The one mailer (docs/live-access.md#e-mail): SMTP when SMTP_URL is set (a real SMTP server here), else `.eml` files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { createMailer, type MailMessage } from '../../src/lib/mailer';
import { testConfig } from '../helpers/stack';

const MESSAGE: MailMessage = {
  to: ['dev@example.com'],
  subject: 'Your live access is approved',
  text: 'Hello Ada,\n\nYour request is approved.\n',
  messageId: '<live-access.req_TEST.approved@paycollect>',
  date: '2026-11-20T18:00:00.000Z',
};

describe('mailer (docs/live-access.md#e-mail)', () => {
  const config = testConfig();

  it('writes an .eml file named by date and message id, and rewrites the same file on a retry', async () => {
    const outbox = path.join(config.MAIL_OUTBOX_DIR, 'mailer-test');
    const mailer = createMailer({ ...config, SMTP_URL: undefined, MAIL_OUTBOX_DIR: outbox });
    const sent = await mailer.send(MESSAGE);
    expect(sent).to.deep.equal({
      messageId: MESSAGE.messageId,
      delivery: 'file',
      location: path.join(outbox, '20261120T180000Z-live-access.req_TEST.approved.eml'),
    });
    await mailer.send(MESSAGE);
    expect(fs.readdirSync(outbox)).to.deep.equal(['20261120T180000Z-live-access.req_TEST.approved.eml']);
    const raw = fs.readFileSync(sent.location, 'utf8');
    expect(raw).to.match(/^From: Paycollect <no-reply@paycollect\.local>$/m);
    expect(raw).to.match(/^To: dev@example\.com$/m);
    expect(raw).to.match(/^Subject: Your live access is approved$/m);
    expect(raw).to.match(/^Message-ID: <live-access\.req_TEST\.approved@paycollect>$/m);
    expect(raw).to.match(/^Date: Fri, 20 Nov 2026 18:00:00 \+0000$/m);
    expect(raw).to.include('Your request is approved.');
  });

  it('sends through SMTP when SMTP_URL is set, and writes no file', async () => {
    const received: { from: string; to: string[]; data: string }[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    try {
      const outbox = path.join(config.MAIL_OUTBOX_DIR, 'mailer-smtp-test');
      const mailer = createMailer({ ...config, SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_OUTBOX_DIR: outbox });
      const sent = await mailer.send({ ...MESSAGE, to: ['a@example.com', 'b@example.com'] });
      expect(sent.delivery).to.equal('smtp');
      expect(received).to.have.length(1);
      expect(received[0]?.from).to.equal('no-reply@paycollect.local');
      expect(received[0]?.to).to.deep.equal(['a@example.com', 'b@example.com']);
      expect(received[0]?.data).to.include('Subject: Your live access is approved');
      expect(fs.existsSync(outbox)).to.equal(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
