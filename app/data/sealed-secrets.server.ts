import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Secrets the product must send on (a tool server's header value) are kept
 * sealed with AES-256-GCM under a key from the environment (TOOLS_SECRET_KEY),
 * never in the database in the clear: a copy of the database alone gives
 * nothing away (docs/decisions/090). `context` binds a sealed value to its
 * row, so one row's secret cannot be copied into another's and opened there.
 */

const VERSION = "v1";

export class SealedSecretError extends Error {}

export function sealSecret(key: Buffer, secret: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

export function openSecret(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new SealedSecretError("not a sealed secret");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    // A changed key or a tampered value: which one cannot be told, and neither opens.
    throw new SealedSecretError("the secret cannot be opened with this key");
  }
}
