import { describe, expect, it } from "vitest";
import { verifyEmulatorSessionCookie } from "~/auth/emulator-token.server";

const now = () => Math.floor(Date.now() / 1000);
function cookie(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "none", typ: "JWT" }) {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part(header)}.${part(claims)}.`;
}
const valid = () => ({
  iss: "https://session.firebase.google.com/demo-p",
  aud: "demo-p",
  sub: "uid-1",
  iat: now() - 10,
  exp: now() + 3600,
  auth_time: now() - 10,
  email: "a@example.com",
});

describe("emulator session cookies are checked locally", () => {
  it("accepts a well-formed, unexpired cookie for this project", () => {
    expect(verifyEmulatorSessionCookie(cookie(valid()), "demo-p")).toMatchObject({
      uid: "uid-1",
      email: "a@example.com",
    });
  });

  it.each([
    ["expired", { exp: now() - 1 }],
    ["another project", { aud: "demo-q" }],
    ["an ID token, not a session cookie", { iss: "https://securetoken.google.com/demo-p" }],
    ["no subject", { sub: "" }],
    ["no auth_time", { auth_time: undefined }],
  ])("refuses %s", (_name, change) => {
    expect(() => verifyEmulatorSessionCookie(cookie({ ...valid(), ...change }), "demo-p")).toThrow();
  });

  it("refuses a signed-looking or malformed token", () => {
    expect(() => verifyEmulatorSessionCookie(cookie(valid(), { alg: "RS256" }), "demo-p")).toThrow();
    expect(() => verifyEmulatorSessionCookie("abc", "demo-p")).toThrow();
    expect(() => verifyEmulatorSessionCookie("a.b.c", "demo-p")).toThrow();
  });
});
