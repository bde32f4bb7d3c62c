/**
 * How the inbox describes a sender's address: only an address the identity
 * provider verified is presented as the sender's own. An unverified account
 * proves no more than a visitor's typed address (ADR 049: an
 * account registered as ceo@… was shown as "(signed in)"); rows stored before
 * verification was recorded say so rather than imply it.
 */
export function senderLabel(row: { senderUid: string | null; senderVerified: boolean | null }): string {
  if (!row.senderUid) return "logged out: the address was typed, not verified";
  if (row.senderVerified === true) return "logged in, verified";
  if (row.senderVerified === false) return "logged in, address not verified";
  return "logged in, verification not recorded";
}
