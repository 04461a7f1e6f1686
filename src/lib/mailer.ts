/**
 * The one mailer (docs/live-access.md#e-mail), with nodemailer: SMTP when SMTP_URL is set, otherwise each message is
 * written as an `.eml` file to MAIL_OUTBOX_DIR so a person can open it in a mail client.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config';

/** An e-mail to send; `messageId` is stable per step, so a retried send can be recognised. */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  /** `<…@…>`; also names the `.eml` file. */
  messageId: string;
  /** ISO 8601 UTC, the `Date` header (the workflow's time of the step). */
  date: string;
}

/** Where a message went: `smtp`, or the `.eml` file written. */
export interface SentMail {
  messageId: string;
  delivery: 'smtp' | 'file';
  location: string;
}

/** Sends e-mail. */
export interface Mailer {
  /** Sends one message. @throws the transport's error (the calling activity retries) */
  send(message: MailMessage): Promise<SentMail>;
}

/** A file name for a message: its date and the local part of its id, in safe characters. */
function emlFileName(message: MailMessage): string {
  const stamp = message.date.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const local = message.messageId.replace(/^<|@.*$/g, '').replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${stamp}-${local}.eml`;
}

/**
 * The configured mailer. Writing the same message twice to the outbox replaces its file, so a
 * retried activity leaves one file.
 */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_OUTBOX_DIR' | 'MAIL_FROM'>): Mailer {
  const options = (message: MailMessage) => ({
    from: config.MAIL_FROM,
    to: message.to,
    subject: message.subject,
    text: message.text,
    messageId: message.messageId,
    date: new Date(message.date),
  });
  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport(config.SMTP_URL);
    return {
      async send(message) {
        await transport.sendMail(options(message));
        return { messageId: message.messageId, delivery: 'smtp', location: 'smtp' };
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail(options(message));
      await fs.mkdir(config.MAIL_OUTBOX_DIR, { recursive: true });
      const file = path.join(config.MAIL_OUTBOX_DIR, emlFileName(message));
      await fs.writeFile(file, info.message as Buffer);
      return { messageId: message.messageId, delivery: 'file', location: file };
    },
  };
}
