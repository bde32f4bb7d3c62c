/**
 * How the inbox describes a sender's address: only an address the identity
 * provider verified is presented as the sender's own. An unverified account
 * proves no more than a visitor's typed address (ADR 049: an
 * account registered as ceo@… was shown as "(signed in)"); rows stored before
 * verification was recorded say so rather than imply it.
 */
export function senderLabel(row: { senderUid: string | null; senderVerified: boolean | null }): string {
  if (!row.senderUid) return "signed out: the address was typed, not verified";
  if (row.senderVerified === true) return "signed in, verified";
  if (row.senderVerified === false) return "signed in, address not verified";
  return "signed in, verification not recorded";
}
