import { accountForKey, type SignedIn } from "~/auth/session.server";
import { apiAccessChoices, apiAllowed, type ApiAccessChoices } from "~/data/api-access.server";
import { findApiKey, hashOf } from "~/data/api-keys.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { roleKey } from "~/settings/role-settings";
import { openAIError } from "./openai-errors.server";

/**
 * Who an API request acts for (docs/decisions/099): the owner of the
 * personal key in `Authorization: Bearer …`, with their role as it is now.
 * No cookie is read: a page on another site cannot ride a visitor's session
 * here. Every refusal of a key says the same (401) and nothing more; a key in
 * the address is refused before it is looked at, since addresses end up in
 * logs and histories. The role's API access (docs/decisions/100) is read
 * fresh beside the owner's role, so an admin's switch applies at the next call.
 */

export interface KeyCaller {
  who: SignedIn;
  keyId: string;
  db: Db;
}

const INVALID_KEY = "Incorrect API key provided. Create a key on your dashboard.";
const KEY_PARAMETERS = ["key", "api_key", "api-key", "apikey", "token", "access_token"];

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export async function keyCaller(request: Request): Promise<KeyCaller | Response> {
  const query = new URL(request.url).searchParams;
  if (KEY_PARAMETERS.some((name) => query.has(name))) {
    return openAIError(401, "API keys are not accepted in the address: send it as Authorization: Bearer <key>.");
  }
  const secret = bearerOf(request);
  if (!secret) {
    return openAIError(401, "You didn't provide an API key: send it as Authorization: Bearer <key>.");
  }
  const hash = hashOf(secret);
  // A key's owner never changes: the owner seen with it before is read beside the key's check.
  const seenOwner = keyOwners.get(hash);
  let db: Db;
  let holder: Awaited<ReturnType<typeof findApiKey>>;
  let early: Promise<Account> | undefined;
  try {
    db = await getDb();
    early = seenOwner ? accountForKey(seenOwner) : undefined;
    holder = await findApiKey(db, secret);
  } catch (error) {
    logBackendFault("postgres", "checking an API key", error);
    return unavailable();
  }
  if (!holder) return openAIError(401, INVALID_KEY, { code: "invalid_api_key" });
  rememberKeyOwner(hash, holder.uid);
  const account = holder.uid === seenOwner && early ? early : accountForKey(holder.uid);
  const [who, choices] = await Promise.all([account, readChoices(db)]);
  if (who === "gone") return openAIError(401, INVALID_KEY, { code: "invalid_api_key" });
  if (who === "unavailable" || !choices) return unavailable();
  if (!apiAllowed(choices, roleKey(who))) {
    return openAIError(403, "Your plan does not include API access.", { code: "api_access_off" });
  }
  return { who, keyId: holder.keyId, db };
}

type Account = Awaited<ReturnType<typeof accountForKey>>;

/** Key (by its hash) → its owner's uid, for the keys used lately on this instance. */
const keyOwners = new Map<string, string>();
const KEYS_REMEMBERED = 10_000;

function rememberKeyOwner(hash: string, uid: string) {
  keyOwners.delete(hash);
  keyOwners.set(hash, uid);
  // A Map iterates in insertion order: the first is the key used longest ago.
  if (keyOwners.size > KEYS_REMEMBERED) keyOwners.delete(keyOwners.keys().next().value!);
}

async function readChoices(db: Db): Promise<ApiAccessChoices | undefined> {
  try {
    return await apiAccessChoices(db);
  } catch (error) {
    logBackendFault("postgres", "reading the roles' API access", error);
    return undefined;
  }
}

export const unavailable = () =>
  openAIError(503, "The service can't check this request right now. Please try again shortly.", {
    headers: { "Retry-After": "5" },
  });
