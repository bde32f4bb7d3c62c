/**
 * The contact form's proof of work, the browser's half (docs/decisions/076):
 * the page's loader gives a visitor a signed challenge; the browser finds a
 * nonce such that SHA-256(`<challenge>:<nonce>`) starts with `difficulty`
 * zero bits, and posts both with the message. The server checks the same
 * rule (app/data/contact-work.server.ts) and takes each challenge once.
 */

export interface ContactChallenge {
  token: string;
  difficulty: number;
  /** From when the page got it: the server refuses it after this. */
  expiresInSeconds: number;
}

/** The form fields that carry the work. */
export const WORK_FIELDS = { challenge: "challenge", nonce: "nonce" } as const;

export function leadingZeroBits(bytes: Uint8Array): number {
  let bits = 0;
  for (const byte of bytes) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** What is hashed for a nonce: the same bytes on both sides. */
export function workInput(token: string, nonce: string): string {
  return `${token}:${nonce}`;
}

/** Digests asked of Web Crypto at once: one at a time leaves it mostly idle. */
const BATCH = 256;

/**
 * Finds the nonce with Web Crypto (async: the page stays responsive), telling
 * `onProgress` how many tries were made so far. Needs a secure context
 * (https, or localhost), which a deployment has anyway: its session cookie is
 * `__Host-` (app/auth/cookie.server.ts).
 */
export async function solveChallenge(
  challenge: ContactChallenge,
  onProgress?: (tries: number) => void,
): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error("This browser cannot do the check here (it needs a secure connection to the site).");
  const encoder = new TextEncoder();
  for (let start = 0; ; start += BATCH) {
    const digests = await Promise.all(
      Array.from({ length: BATCH }, (_, i) =>
        subtle.digest("SHA-256", encoder.encode(workInput(challenge.token, String(start + i)))),
      ),
    );
    const found = digests.findIndex((digest) => leadingZeroBits(new Uint8Array(digest)) >= challenge.difficulty);
    if (found >= 0) return String(start + found);
    onProgress?.(start + BATCH);
  }
}
