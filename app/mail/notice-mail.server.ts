import type { SmtpSettings } from "./smtp-url";
import { smtpTransport } from "./reply-mail.server";

/**
 * "Your reply is ready" by email (docs/decisions/101), for a user who chose
 * it instead of push: plain text, the chat's title and a link, and the
 * reply's first words only when they asked for previews.
 */

export interface NoticeMail {
  to: string;
  subject: string;
  text: string;
}

/** The From address when SMTP_URL names none: a no-reply one at the app's host. */
export function noticeSender(smtp: SmtpSettings, appOrigin: string | undefined): string {
  if (smtp.from) return smtp.from;
  const host = appOrigin ? new URL(appOrigin).hostname : "localhost";
  return `Nuvara² <no-reply@${host}>`;
}

export async function sendNoticeMail(smtp: SmtpSettings, from: string, mail: NoticeMail): Promise<void> {
  const transport = smtpTransport(smtp);
  try {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}
