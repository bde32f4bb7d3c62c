/**
 * SMTP_URL, the email transport for admins' replies (docs/features.md, "Admin inbox and roles"):
 * `smtp://user:password@host:587` (STARTTLS when the server offers it) or
 * `smtps://user:password@host:465` (TLS from the start), optionally with
 * `?from=` — the sender address, for relays that accept only one. Checked at
 * boot (app/config.server.ts), so a typo fails the start, not the first reply.
 */

export interface SmtpSettings {
  /** The URL as given, without `from` (nodemailer reads the rest). */
  url: string;
  /** The From address; unset: the replying admin's own address. */
  from?: string;
  /** For messages: the server, never the password. */
  host: string;
}

// One address, bare or as `Name <address>`; no list, no line breaks.
const ADDRESS = /^(?:[^<>\r\n,]*<[^\s<>@,]+@[^\s<>@,]+\.[^\s<>@,]+>|[^\s<>@,]+@[^\s<>@,]+\.[^\s<>@,]+)$/;

export function parseSmtpUrl(value: string | undefined): SmtpSettings | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error("must be a URL such as smtp://user:password@smtp.example.com:587 or smtps://…:465");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:")
    throw new Error(`must start with smtp:// or smtps://, not ${url.protocol}//`);
  if (!url.hostname) throw new Error("must name the mail server's host (smtp://host:587)");
  for (const name of url.searchParams.keys()) {
    if (name !== "from") throw new Error(`takes only the parameter ?from=, not ?${name}=`);
  }
  const from = url.searchParams.get("from")?.trim() || undefined;
  if (from !== undefined && !ADDRESS.test(from))
    throw new Error("?from= must be one email address, e.g. ?from=support%40example.com");
  url.search = "";
  return { url: url.href, from, host: url.host };
}
