import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { isAccountDeleted } from "./account-lock.server";
import { getTheme, setTheme, themeSchema, type Theme } from "./preferences.server";

/**
 * Themes read lately, by uid, for 30 s: a page costs no extra round trip for
 * a colour. A change is seen at once on the instance that stored it, on
 * others within 30 s.
 */
const cache = new Map<string, { theme: Theme; until: number }>();
const CACHE_MS = 30_000;

/** The theme the pages are rendered in for a signed-in user; the system's if it cannot be read (a page must not fail for a colour). */
export async function themeFor(uid: string): Promise<Theme> {
  const cached = cache.get(uid);
  if (cached && cached.until > Date.now()) return cached.theme;
  try {
    const theme = await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      getDb().then((db) => getTheme(db, uid)),
    );
    remember(uid, theme);
    return theme;
  } catch (error) {
    logBackendFault("postgres", "reading the theme", error);
    return "system";
  }
}

function remember(uid: string, theme: Theme) {
  if (cache.size > 10_000) cache.clear(); // bounded: a cache, not a store
  cache.set(uid, { theme, until: Date.now() + CACHE_MS });
}

/**
 * Starts reading the theme of the uid the session cookie names, before the
 * cookie is verified, so the read runs beside the session check instead of
 * after it. The answer is used only for the uid the verified session has.
 */
export function prefetchTheme(sessionCookie: string): { uid: string; theme: Promise<Theme> } | null {
  const uid = unverifiedSubject(sessionCookie);
  if (!uid) return null;
  const theme = themeFor(uid);
  return { uid, theme };
}

/** The theme for the verified uid: the prefetched one when it was for that uid. */
export function themeOfSession(uid: string, prefetched: ReturnType<typeof prefetchTheme>): Promise<Theme> {
  return prefetched?.uid === uid ? prefetched.theme : themeFor(uid);
}

/** The `sub` claim of a session cookie (a JWT), unverified: only a hint for which row to read. */
function unverifiedSubject(jwt: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { sub?: unknown };
    return typeof payload.sub === "string" && payload.sub.length > 0 && payload.sub.length <= 128 ? payload.sub : null;
  } catch {
    return null;
  }
}

/** What the theme intent answers (the dashboard reads other intents' answers from the same action). */
export interface ThemeResult {
  ok?: boolean;
  theme?: Theme;
  fieldErrors?: { theme?: string; displayName?: string };
}

/** The dashboard's "theme" intent: stores System, Light or Dark for the user. */
export async function themeIntent(uid: string, form: FormData) {
  const parsed = themeSchema.safeParse(form.get("theme"));
  if (!parsed.success)
    return json<ThemeResult>(
      { fieldErrors: { theme: parsed.error.issues[0]?.message ?? "Choose a theme." } },
      { status: 400 },
    );
  try {
    await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      getDb().then((db) => setTheme(db, uid, parsed.data)),
    );
  } catch (error) {
    if (isAccountDeleted(error))
      return json<ThemeResult>({ fieldErrors: { theme: "This account has been deleted." } }, { status: 401 });
    logBackendFault("postgres", "storing the theme", error);
    return json<ThemeResult>(
      { fieldErrors: { theme: "Your theme could not be saved right now. Please try again shortly." } },
      { status: 503 },
    );
  }
  remember(uid, parsed.data);
  return json<ThemeResult>({ ok: true, theme: parsed.data });
}
