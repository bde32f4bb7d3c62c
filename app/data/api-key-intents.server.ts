import { json } from "@remix-run/node";
import { z } from "zod";
import { publicOrigin } from "~/auth/request.server";
import { getConfig } from "~/config.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { fieldErrors } from "~/http/forms.server";
import { isUuid } from "~/ids/uuid";
import { storableString } from "~/text/storable-text";
import {
  createApiKey,
  listApiKeys,
  MAX_KEY_NAME_CHARS,
  MAX_KEYS_PER_ACCOUNT,
  revokeApiKey,
  type ApiKeyView,
} from "./api-keys.server";
import { apiAccessChoices, apiAllowed } from "./api-access.server";
import { API_KEY_EXPIRIES, API_KEY_EXPIRY_CHOICES, type ApiKeyExpiry } from "./api-key-expiry";

/**
 * The dashboard's API keys section (docs/features.md, "API keys"): its list,
 * and the "create-api-key" and "revoke-api-key" intents of the dashboard's
 * action. Answers are under `apiKey`, so the page's other forms, which read
 * the same action data, never take one of them for their own.
 */

const NO_STORE = { "Cache-Control": "no-store" };
const DAY_MS = 86_400_000;

/** A key just made: the only answer that ever carries its secret. */
export interface CreatedApiKey {
  key: ApiKeyView;
  secret: string;
}

export type ApiKeyResult =
  | { intent: "create"; created: CreatedApiKey }
  | {
      intent: "create";
      error?: string;
      fieldErrors?: { name?: string; expiry?: string };
      values: { name: string; expiry: string };
    }
  | { intent: "revoke"; revoked: string }
  | { intent: "revoke"; error: string };

const createForm = z.object({
  name: storableString()
    .transform((text) => text.replace(/\s+/g, " ").trim())
    .pipe(
      z
        .string()
        .min(1, "Give the key a name, to tell it apart from your others.")
        .max(MAX_KEY_NAME_CHARS, `Please keep the name to ${MAX_KEY_NAME_CHARS} characters or fewer.`),
    ),
  expiry: z.enum(API_KEY_EXPIRIES, { message: "Choose when the key expires." }),
});

function answer(result: ApiKeyResult, status = 200) {
  return json({ apiKey: result }, { status, headers: NO_STORE });
}

function database<T>(work: (db: Db) => Promise<T>): Promise<T> {
  return withDeadline("postgres", getConfig().backendTimeoutMs, getDb().then(work));
}

function expiresAt(expiry: ApiKeyExpiry, now: Date): Date | null {
  const { days } = API_KEY_EXPIRY_CHOICES[expiry];
  return days === null ? null : new Date(now.getTime() + days * DAY_MS);
}

/** The section's figures: the account's keys (null when they cannot be read: the section says so) and how to call the API. */
/** The section's data; `apiAccess`: whether the user's role may use the API now (null: not known right now). */
export async function apiKeysForDashboard(request: Request, uid: string, roleKey: string | null) {
  let keys: ApiKeyView[] | null = null;
  let apiAccess: boolean | null = null;
  try {
    [keys, apiAccess] = await database(async (db) =>
      Promise.all([
        listApiKeys(db, uid),
        roleKey === null ? null : apiAccessChoices(db).then((choices) => apiAllowed(choices, roleKey)),
      ]),
    );
  } catch (error) {
    logBackendFault("postgres", "listing API keys", error);
  }
  return { keys, apiAccess, baseUrl: `${publicOrigin(request)}/v1`, maxNameChars: MAX_KEY_NAME_CHARS };
}

/** intent=create-api-key (name, expiry): a new key, its secret in this answer and nowhere else. */
export async function createApiKeyIntent(uid: string, form: FormData) {
  const values = { name: String(form.get("name") ?? ""), expiry: String(form.get("expiry") ?? "") };
  const parsed = createForm.safeParse(values);
  if (!parsed.success) return answer({ intent: "create", fieldErrors: fieldErrors(parsed.error), values }, 400);
  const { name, expiry } = parsed.data;
  let made: Awaited<ReturnType<typeof createApiKey>>;
  try {
    made = await database((db) => createApiKey(db, { uid, name, expiresAt: expiresAt(expiry, new Date()) }));
  } catch (error) {
    logBackendFault("postgres", "creating an API key", error);
    const error503 = "Your key could not be created right now. Please try again shortly.";
    return answer({ intent: "create", error: error503, values }, 503);
  }
  if ("tooMany" in made) {
    const full = `You already have ${MAX_KEYS_PER_ACCOUNT} API keys, the most an account may hold. Revoke one you no longer use to create another.`;
    return answer({ intent: "create", error: full, values }, 409);
  }
  return answer({ intent: "create", created: made }, 201);
}

/** intent=revoke-api-key (id): deletes one of the account's keys at once; anyone else's is not found. */
export async function revokeApiKeyIntent(uid: string, form: FormData) {
  const id = form.get("id");
  const notFound = () => answer({ intent: "revoke", error: "This key doesn't exist or was already revoked." }, 404);
  if (!isUuid(id)) return notFound();
  let revoked: boolean;
  try {
    revoked = await database((db) => revokeApiKey(db, { uid, id }));
  } catch (error) {
    logBackendFault("postgres", "revoking an API key", error);
    return answer(
      { intent: "revoke", error: "The key could not be revoked right now. Please try again shortly." },
      503,
    );
  }
  return revoked ? answer({ intent: "revoke", revoked: id }) : notFound();
}
