import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** What a loopback SMTP server received: the envelope and the raw message. */
export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1 and a free port (no TLS, any login), keeping every message it receives. */
export async function startSmtpCapture() {
  const received: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString()));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((to) => to.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    received,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A plain-text message's body as its reader sees it: quoted-printable (soft line breaks, =XX) decoded. */
export function mailBody(mail: CapturedMail): string {
  const split = mail.raw.indexOf("\r\n\r\n");
  const head = mail.raw.slice(0, split);
  const body = mail.raw.slice(split + 4);
  if (!/^Content-Transfer-Encoding: quoted-printable/im.test(head)) return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}
