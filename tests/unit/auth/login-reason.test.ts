import { describe, expect, it } from "vitest";
import { authErrorMessage, WRONG_CREDENTIALS } from "~/auth/auth-errors";
import { afterSignUp, loginReason } from "~/auth/login-reason";
import { safeRedirect } from "~/auth/redirect";

describe("why a visitor is on /login (a fixed list, read from the safe redirectTo)", () => {
  it("names the page the visitor was sent from", () => {
    expect(loginReason("/nuvara")).toBe("Log in to use the assistant.");
    expect(loginReason("/nuvara/0c8e4c1e-1b7a-4f7e-9d43-111111111111?x=1")).toBe("Log in to use the assistant.");
    expect(loginReason("/dashboard")).toBe("Log in to see your dashboard.");
    expect(loginReason("/dashboard#account")).toBe("Log in to see your dashboard.");
    expect(loginReason("/tools/summarize")).toBe("Log in to use this tool.");
    expect(loginReason("/admin/messages")).toBe("Log in with an admin account to open the admin area.");
    expect(loginReason("/s/abc")).toBe("Log in to continue this conversation.");
  });

  it("says nothing for the home page (the default), and something general for any other page", () => {
    expect(loginReason("/")).toBeNull();
    expect(loginReason("/nuvaraX")).toBe("Log in to continue to the page you opened.");
    expect(loginReason("/administrator")).toBe("Log in to continue to the page you opened.");
  });

  it("never shows text from the URL: an off-site redirectTo is the home page, so no reason", () => {
    for (const hostile of [
      "https://evil.test/nuvara",
      "//evil.test/dashboard",
      "/\\evil.test",
      "javascript:alert(1)",
    ]) {
      expect(loginReason(safeRedirect(hostile))).toBeNull();
    }
    expect(loginReason(safeRedirect("/<script>alert(1)</script>"))).toBe("Log in to continue to the page you opened.");
  });
});

describe("where a new account goes", () => {
  it("to the assistant, unless it was sent from a page", () => {
    expect(afterSignUp("/")).toBe("/nuvara");
    expect(afterSignUp("/tools/translate")).toBe("/tools/translate");
  });
});

describe("sign-in errors do not tell whether an account exists", () => {
  it("gives one message for an unknown email, a wrong password and invalid credentials", () => {
    for (const code of [
      "auth/user-not-found",
      "auth/wrong-password",
      "auth/invalid-credential",
      "auth/invalid-login-credentials",
    ]) {
      expect(authErrorMessage({ code })).toBe(WRONG_CREDENTIALS);
    }
    expect(WRONG_CREDENTIALS).not.toMatch(/no account/i);
  });

  it("points to the requirements list above the message", () => {
    expect(authErrorMessage({ code: "auth/password-does-not-meet-requirements" })).toMatch(/in the list above/);
  });
});
