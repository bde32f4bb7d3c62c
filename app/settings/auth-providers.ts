import { parseNameList } from "~/settings/name-list";

/**
 * The sign-in methods /login offers (AUTH_PROVIDERS), with the names their
 * buttons show (AUTH_PROVIDER_NAMES). Shared by the server's configuration,
 * which validates them at boot, and the login page, which receives the
 * parsed list (provider ids and names are public, like the web config).
 *
 * Firebase Auth names OIDC providers `oidc.<id>` and SAML providers
 * `saml.<id>`; the id after the dot is the one chosen in the Firebase console.
 */
export type AuthProviderKind = "password" | "google" | "oidc" | "saml";

export interface AuthProvider {
  /** `password`, `google`, or the Firebase provider id (`oidc.acme`, `saml.okta`). */
  id: string;
  kind: AuthProviderKind;
  /** What its button says after "Continue with" (unused for password). */
  name: string;
}

export const DEFAULT_AUTH_PROVIDERS = "password,google";

// Letters, digits, '-', '_' and '.' after the prefix, as Firebase provider ids are.
const FEDERATED = /^(oidc|saml)\.[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const MAX_NAME = 40;

function kindOf(id: string): AuthProviderKind {
  if (id === "password" || id === "google") return id;
  const match = FEDERATED.exec(id);
  if (!match) {
    throw new Error(
      `"${id}" is not a login provider: use password, google, oidc.<id> or saml.<id> ` +
        "(the provider id shown in the Firebase console, e.g. oidc.acme).",
    );
  }
  return match[1] as "oidc" | "saml";
}

/** `oidc.acme=Acme SSO,saml.okta=Okta` → a map from provider id to name. */
export function parseProviderNames(value: string | undefined): Map<string, string> {
  return parseNameList(value, { form: "provider=Name (e.g. oidc.acme=Acme SSO)", maxName: MAX_NAME });
}

/** `password,google,oidc.acme` → the providers, in the order their buttons appear. */
export function parseProviderList(value: string): Array<Pick<AuthProvider, "id" | "kind">> {
  const ids = value
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new Error("list at least one login provider, e.g. password,google.");
  const seen = new Set<string>();
  return ids.map((id) => {
    const kind = kindOf(id);
    if (seen.has(id)) throw new Error(`${id} is listed twice.`);
    seen.add(id);
    return { id, kind };
  });
}

/**
 * The two variables together: every OIDC/SAML provider needs a name (its
 * button would otherwise show a bare id), and a name for a provider that is
 * not listed is almost certainly a typo, so it is refused too. Throws an
 * Error whose message names the variable to fix.
 */
export function nameProviders(
  list: Array<Pick<AuthProvider, "id" | "kind">>,
  names: Map<string, string>,
): AuthProvider[] {
  for (const id of names.keys()) {
    const listed = list.find((provider) => provider.id === id);
    if (!listed) throw new Error(`AUTH_PROVIDER_NAMES names ${id}, which AUTH_PROVIDERS does not list.`);
    if (listed.kind === "password" || listed.kind === "google") {
      throw new Error(`AUTH_PROVIDER_NAMES names ${id}; only oidc.* and saml.* providers take a name.`);
    }
  }
  return list.map(({ id, kind }) => {
    if (kind === "password") return { id, kind, name: "Email and password" };
    if (kind === "google") return { id, kind, name: "Google" };
    const name = names.get(id);
    if (!name)
      throw new Error(
        `AUTH_PROVIDERS lists ${id} without a name for its button: add ${id}=<Name> to AUTH_PROVIDER_NAMES.`,
      );
    return { id, kind, name };
  });
}

/**
 * Whether an ID token's `firebase.sign_in_provider` is one of the listed
 * methods: the list is what the deployment offers, so a method still enabled
 * in the Firebase console but not listed (e.g. password on an SSO-only site)
 * cannot become a session through the identity service's REST API either.
 */
export function acceptsSignIn(list: AuthProvider[], signInProvider: string | undefined): boolean {
  return list.some((provider) => (provider.kind === "google" ? "google.com" : provider.id) === signInProvider);
}
