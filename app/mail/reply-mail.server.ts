import nodemailer from "nodemailer";
import type { SmtpSettings } from "./smtp-url";

/**
 * Sends an admin's reply to the person who wrote to the inbox, through the
 * SMTP server SMTP_URL names. Plain text only: the reply is what the admin
 * typed, and the original message is quoted below it, as a mail client does.
 */

export interface ReplyMail {
  to: string;
  /** The replying admin: the From address without `?from=`, and always Reply-To. */
  adminEmail: string;
  subject: string;
  text: string;
}

// An admin waits for the answer: a server that does not answer fails the send, not the page.
const TIMEOUT_MS = 10_000;

/** A transport to SMTP_URL's server, with a deadline on each step; close it after sending. */
export function smtpTransport(smtp: SmtpSettings) {
  const url = new URL(smtp.url);
  const secure = url.protocol === "smtps:";
  return nodemailer.createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
}

export async function sendReplyMail(smtp: SmtpSettings, mail: ReplyMail): Promise<void> {
  const transport = smtpTransport(smtp);
  try {
    await transport.sendMail({
      from: smtp.from ?? mail.adminEmail,
      replyTo: mail.adminEmail,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    });
  } finally {
    transport.close();
  }
}

/** The quoted original under the reply, each line behind "> ". */
export function quoted(original: string): string {
  return original
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join("\n");
}
