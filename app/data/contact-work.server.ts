import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { leadingZeroBits, workInput, type ContactChallenge } from "~/data/contact-work";
import type { Db } from "~/db/client.server";
import { recordOnce } from "./rate-limits.server";
import { serverSecret } from "./server-secrets.server";

/**
 * The contact form's proof of work, the server's half (docs/decisions/076).
 * Without a client address (no TRUST_PROXY) nothing else tells visitors
 * apart, so each visitor's message must carry its own work: a challenge the
 * page issued (HMAC-signed, with its expiry and difficulty, so nothing is
 * stored per page view) and a nonce that meets it. A challenge counts once,
 * on every instance (recorded in rate_limits until it expires). Messages
 * without valid work are refused before any allowance is counted.
 */

/** 2^14 tries on average: a fraction of a second in a phone's browser. */
export const CONTACT_WORK_BITS = 14;
const LIFETIME_SECONDS = 60 * 60;
const VERSION = "w1";
const SECRET = "contact-work";
const MAX_TOKEN_LENGTH = 200;

function sign(secret: Buffer, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

export async function issueContactChallenge(db: Db, now = Date.now()): Promise<ContactChallenge> {
  const expires = Math.floor(now / 1000) + LIFETIME_SECONDS;
  const payload = [VERSION, randomBytes(16).toString("base64url"), CONTACT_WORK_BITS, expires].join(".");
  const token = `${payload}.${sign(await serverSecret(db, SECRET), payload)}`;
  return { token, difficulty: CONTACT_WORK_BITS, expiresInSeconds: LIFETIME_SECONDS };
}

export type WorkRefusal = "missing" | "invalid" | "expired" | "used";

interface Challenge {
  id: string;
  difficulty: number;
  expires: number;
}

/** A token this server signed, or null. */
function readToken(token: string, secret: Buffer): Challenge | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const parts = token.split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, id, difficulty, expires, signature] = parts;
  const expected = Buffer.from(sign(secret, parts.slice(0, 4).join(".")));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { id, difficulty: Number(difficulty), expires: Number(expires) };
}

/**
 * Checks the work (signature, expiry, difficulty, the hash) and spends the
 * challenge; null when the message may go on to the limits, else why not.
 */
export async function spendContactWork(
  db: Db,
  token: unknown,
  nonce: unknown,
  now = Date.now(),
): Promise<WorkRefusal | null> {
  if (typeof token !== "string" || typeof nonce !== "string" || token === "" || nonce === "") return "missing";
  const challenge = readToken(token, await serverSecret(db, SECRET));
  // A challenge issued at a lower difficulty than today's counts for nothing.
  if (!challenge || !(challenge.difficulty >= CONTACT_WORK_BITS) || !/^\d{1,16}$/.test(nonce)) return "invalid";
  if (!(challenge.expires * 1000 > now)) return "expired";
  const hash = createHash("sha256").update(workInput(token, nonce)).digest();
  if (leadingZeroBits(hash) < challenge.difficulty) return "invalid";
  const first = await recordOnce(db, `contact:pow:${challenge.id}`, new Date(challenge.expires * 1000));
  return first ? null : "used";
}
