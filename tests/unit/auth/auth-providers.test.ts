import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "~/config.server";

/** AUTH_PROVIDERS and AUTH_PROVIDER_NAMES, as the server reads them at boot. */
const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;
const providers = (vars: Record<string, string>) => parseConfig(env(vars)).authProviders;

describe("sign-in providers", () => {
  it("default: email/password and Google, as /login offered before the setting existed", () => {
    const expected = [
      { id: "password", kind: "password", name: "Email and password" },
      { id: "google", kind: "google", name: "Google" },
    ];
    expect(providers({})).toEqual(expected);
    expect(providers({ AUTH_PROVIDERS: "  " })).toEqual(expected);
  });

  it("OIDC and SAML providers by their Firebase ids, named, in the order listed", () => {
    expect(
      providers({
        AUTH_PROVIDERS: "saml.okta, password ,oidc.acme-corp",
        AUTH_PROVIDER_NAMES: "oidc.acme-corp=Acme SSO, saml.okta = Okta",
      }),
    ).toEqual([
      { id: "saml.okta", kind: "saml", name: "Okta" },
      { id: "password", kind: "password", name: "Email and password" },
      { id: "oidc.acme-corp", kind: "oidc", name: "Acme SSO" },
    ]);
  });

  it("SSO only: no password provider at all", () => {
    expect(providers({ AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme=Acme" }).map((p) => p.id)).toEqual([
      "oidc.acme",
    ]);
  });

  const INVALID: Array<[string, Record<string, string>, RegExp]> = [
    [
      "an unknown provider",
      { AUTH_PROVIDERS: "password,github" },
      /AUTH_PROVIDERS: "github" is not a login provider: use password, google, oidc.<id> or saml.<id>/,
    ],
    [
      "Google's Firebase id instead of google",
      { AUTH_PROVIDERS: "google.com" },
      /AUTH_PROVIDERS: "google.com" is not a login provider/,
    ],
    ["a prefix without an id", { AUTH_PROVIDERS: "oidc." }, /AUTH_PROVIDERS: "oidc." is not a login provider/],
    ["only commas", { AUTH_PROVIDERS: ",," }, /AUTH_PROVIDERS: list at least one login provider/],
    [
      "a provider listed twice",
      { AUTH_PROVIDERS: "password,google,password" },
      /AUTH_PROVIDERS: password is listed twice/,
    ],
    [
      "an OIDC provider without a name",
      { AUTH_PROVIDERS: "password,oidc.acme" },
      /AUTH_PROVIDERS lists oidc.acme without a name for its button: add oidc.acme=<Name> to AUTH_PROVIDER_NAMES/,
    ],
    [
      "a name without =",
      { AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme:Acme" },
      /AUTH_PROVIDER_NAMES: "oidc.acme:Acme" is not provider=Name/,
    ],
    [
      "an empty name",
      { AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme=" },
      /AUTH_PROVIDER_NAMES: "oidc.acme=" is not provider=Name/,
    ],
    [
      "a name too long for a button",
      { AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: `oidc.acme=${"A".repeat(41)}` },
      /AUTH_PROVIDER_NAMES: the name for oidc.acme is longer than 40 characters/,
    ],
    [
      "a name for a provider not listed (a typo)",
      { AUTH_PROVIDERS: "oidc.acme", AUTH_PROVIDER_NAMES: "oidc.acme=Acme,oidc.amce=Acme" },
      /AUTH_PROVIDER_NAMES names oidc.amce, which AUTH_PROVIDERS does not list/,
    ],
    [
      "a name for Google",
      { AUTH_PROVIDER_NAMES: "google=Gmail" },
      /AUTH_PROVIDER_NAMES names google; only oidc.\* and saml.\* providers take a name/,
    ],
  ];
  for (const [problem, vars, message] of INVALID) {
    it(`refuses ${problem}, saying what to fix`, () => {
      expect(() => parseConfig(env(vars))).toThrow(ConfigError);
      expect(() => parseConfig(env(vars))).toThrow(message);
    });
  }
});
