import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { admin, APP_ORIGIN, appRequest, createAccount, freshIdToken, setAppEnv } from "../support/app-env";
import { appHandler } from "../support/remix-app";

/**
 * SSO (ADR 053): an OIDC or SAML identity becomes a session exactly as a
 * Google one does. The Auth emulator accepts fake IdP credentials
 * (`accounts:signInWithIdp` with an unsigned id_token) for `oidc.*` and
 * `saml.*` provider ids, which is what the client SDK's popup ends with; the
 * resulting Firebase ID token goes through the app's own session endpoint.
 */

const firebase = admin();
afterAll(() => firebase.close());

let handle: (request: Request) => Promise<Response>;
beforeAll(async () => {
  handle = await appHandler();
});

const unsignedJwt = (claims: Record<string, unknown>) =>
  [{ alg: "none", typ: "JWT" }, claims]
    .map((part) => Buffer.from(JSON.stringify(part)).toString("base64url"))
    .join(".") + ".";

/** What the SDK's popup flow ends with: the emulator's fake IdP sign-in, returning a Firebase ID token. */
async function signInWithIdp(providerId: string, claims: Record<string, unknown>) {
  const response = await fetch(
    `http://${process.env.TEST_AUTH_EMULATOR_DIRECT}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=demo-api-key`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        requestUri: "http://localhost",
        postBody: `providerId=${encodeURIComponent(providerId)}&id_token=${unsignedJwt(claims)}`,
        returnSecureToken: true,
      }),
    },
  );
  const body = (await response.json()) as { idToken?: string; error?: { message: string } };
  if (!body.idToken) throw new Error(`signInWithIdp ${providerId}: ${response.status} ${body.error?.message}`);
  return body.idToken;
}

async function startSession(idToken: string) {
  return handle(
    appRequest("/api/auth/session", {
      method: "POST",
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify({ idToken }),
    }),
  );
}

async function rootData(cookie: string) {
  const response = await handle(appRequest("/?_data=root", { cookie }));
  expect(response.status).toBe(200);
  return (await response.json()) as {
    user: { email: string; displayName?: string | null } | null;
    role: string;
    isAdmin: boolean;
  };
}

const PROVIDERS = [
  { providerId: "oidc.acme", label: "an OIDC provider" },
  // The emulator takes SAML sign-in only as a credential (id_token); a SAMLResponse gets 501 there.
  { providerId: "saml.okta", label: "a SAML provider" },
];

const WITH_SSO = {
  AUTH_PROVIDERS: "password,google,oidc.acme,saml.okta",
  AUTH_PROVIDER_NAMES: "oidc.acme=Acme SSO,saml.okta=Okta",
};

describe("an SSO identity becomes a session, as a Google one does", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setAppEnv(WITH_SSO);
  });
  afterAll(() => restore());

  for (const { providerId, label } of PROVIDERS) {
    it(`${label} (${providerId}): 204 with the session cookie, and the root loader shows the user with their role`, async () => {
      const email = `sso-${randomUUID().slice(0, 8)}@acme.example`;
      await firebase.firestore.collection("users").doc(email).set({ stripeRole: "admin" });
      const idToken = await signInWithIdp(providerId, {
        sub: `idp-${randomUUID()}`,
        email,
        email_verified: true,
        name: "Ada Acme",
      });
      // The token says which provider signed the user in.
      expect(JSON.parse(Buffer.from(idToken.split(".")[1], "base64url").toString()).firebase.sign_in_provider).toBe(
        providerId,
      );

      const response = await startSession(idToken);
      expect(response.status).toBe(204);
      const setCookie = response.headers.get("Set-Cookie")!;
      expect(setCookie).toMatch(/^__session=[\w-]+\.[\w-]+\.[\w-]*;.*HttpOnly/);

      const data = await rootData(setCookie.split(";")[0]);
      expect(data.user?.email).toBe(email);
      expect(data.role).toBe("admin");
      expect(data.isAdmin).toBe(true);
    });
  }

  it("an SSO account whose IdP does not vouch for the email gets a session without admin rights", async () => {
    const email = `sso-unverified-${randomUUID().slice(0, 8)}@acme.example`;
    await firebase.firestore.collection("users").doc(email).set({ stripeRole: "admin" });
    const idToken = await signInWithIdp("oidc.acme", { sub: `idp-${randomUUID()}`, email, email_verified: false });
    const response = await startSession(idToken);
    expect(response.status).toBe(204);
    const data = await rootData(response.headers.get("Set-Cookie")!.split(";")[0]);
    expect(data.user?.email).toBe(email);
    expect(data.isAdmin).toBe(false);
  });
});

describe("only the listed methods become a session (ADR 053)", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("default (password,google): an OIDC login is refused with 403 and a clear message, no cookie", async () => {
    const idToken = await signInWithIdp("oidc.acme", {
      sub: `idp-${randomUUID()}`,
      email: `sso-${randomUUID().slice(0, 8)}@acme.example`,
      email_verified: true,
    });
    const response = await startSession(idToken);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: "This login method is not offered here. Please use one of those on the login page.",
    });
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });

  it("SSO only (oidc.acme): a password login is refused, the OIDC one accepted", async () => {
    restore = setAppEnv({ AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme=Acme SSO" });
    const password = await startSession(await freshIdToken(await createAccount(firebase)));
    expect(password.status).toBe(403);
    expect(password.headers.get("Set-Cookie")).toBeNull();
    const idToken = await signInWithIdp("oidc.acme", {
      sub: `idp-${randomUUID()}`,
      email: `sso-${randomUUID().slice(0, 8)}@acme.example`,
      email_verified: true,
    });
    expect((await startSession(idToken)).status).toBe(204);
  });
});

describe("/login offers the configured providers", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("default: the email form and Google, nothing else", async () => {
    const html = await (await handle(appRequest("/login"))).text();
    expect(html).toContain('type="password"');
    expect(html).toMatch(/Continue with (<!-- -->)?Google/);
    expect(html).not.toContain("Acme");
  });

  it("AUTH_PROVIDERS with names: one button per provider, with its name, in the order listed", async () => {
    restore = setAppEnv({
      AUTH_PROVIDERS: "password,oidc.acme,google,saml.okta",
      AUTH_PROVIDER_NAMES: "oidc.acme=Acme SSO,saml.okta=Okta",
    });
    const data = await (await handle(appRequest("/login?_data=routes%2Flogin"))).json();
    expect(data.providers.map((provider: { id: string }) => provider.id)).toEqual([
      "password",
      "oidc.acme",
      "google",
      "saml.okta",
    ]);
    const html = (await (await handle(appRequest("/login"))).text()).replaceAll("<!-- -->", "");
    const buttons = [...html.matchAll(/<button[^>]*>Continue with ([^<]+)<\/button>/g)].map((match) => match[1]);
    expect(buttons).toEqual(["Acme SSO", "Google", "Okta"]);
  });

  it("SSO only: no email form, no sign-up or reset links (even with ?mode=signup)", async () => {
    restore = setAppEnv({ AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme=Acme SSO" });
    const html = (await (await handle(appRequest("/login?mode=signup"))).text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Continue with Acme SSO");
    expect(html).not.toContain('type="password"');
    expect(html).not.toContain("Create an account");
    expect(html).not.toContain("Forgot your password?");
    expect(html).not.toContain("Continue with Google");
  });
});
