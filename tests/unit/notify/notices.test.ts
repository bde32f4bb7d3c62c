import webPush from "web-push";
import { describe, expect, it } from "vitest";
import { deviceLabel } from "~/chat/notify/device-label";
import { noticeText, PREVIEW_CHARS } from "~/chat/notify/notice-text";
import { parseConfig } from "~/config.server";

/** Reply notices (docs/decisions/101): the VAPID settings checked at boot, what a notice says, a device's name. */
const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;
const keys = webPush.generateVAPIDKeys();

describe("VAPID settings", () => {
  it("neither key: push is off; both with a subject: on; the email threshold defaults to a minute", () => {
    expect(parseConfig(env({})).notify).toEqual({ vapid: undefined, emailAfterMs: 60_000 });
    const config = parseConfig(
      env({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: "mailto:ops@example.com",
        NOTIFY_EMAIL_AFTER_SECONDS: "90",
      }),
    );
    expect(config.notify).toEqual({
      vapid: { publicKey: keys.publicKey, privateKey: keys.privateKey, subject: "mailto:ops@example.com" },
      emailAfterMs: 90_000,
    });
  });

  it("one key alone, a key of the wrong size, or no subject is refused at boot, naming what to fix", () => {
    expect(() => parseConfig(env({ VAPID_PUBLIC_KEY: keys.publicKey }))).toThrow(/go together: set both/);
    expect(() => parseConfig(env({ VAPID_PRIVATE_KEY: keys.privateKey }))).toThrow(/go together/);
    expect(() => parseConfig(env({ VAPID_PUBLIC_KEY: keys.privateKey, VAPID_PRIVATE_KEY: keys.privateKey }))).toThrow(
      /VAPID_PUBLIC_KEY: must be a P-256 public key/,
    );
    expect(() => parseConfig(env({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey }))).toThrow(
      /VAPID_SUBJECT is required/,
    );
    expect(() =>
      parseConfig(
        env({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey, VAPID_SUBJECT: "ops@example.com" }),
      ),
    ).toThrow(/VAPID_SUBJECT: must be mailto:/);
    // An https APP_URL is subject enough.
    const config = parseConfig(
      env({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        APP_URL: "https://chat.example.com/",
      }),
    );
    expect(config.notify.vapid?.subject).toBe("https://chat.example.com");
  });
});

describe("what a notice says", () => {
  const facts = { title: "Trip to Lisbon", replyText: "Day one:\n\n  walk the Alfama, then tram 28." };

  it("the chat's title and what happened; the reply's words only when chosen, and never for an approval", () => {
    expect(noticeText("completed", facts, false)).toEqual({
      title: "Trip to Lisbon",
      headline: "Your reply is ready",
      preview: undefined,
      body: "Your reply is ready.",
    });
    expect(noticeText("completed", facts, true).body).toBe("Day one: walk the Alfama, then tram 28.");
    expect(noticeText("approval", facts, true).body).toBe("A tool is waiting for your approval.");
    expect(noticeText("failed", { title: null, replyText: "" }, true)).toMatchObject({
      title: "New chat",
      body: "Your reply could not be finished.",
    });
  });

  it("a long reply's preview is cut at a word, within the limit", () => {
    const long = noticeText("completed", { title: "x", replyText: "word ".repeat(100) }, true).body;
    expect(long.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(long).toMatch(/word…$/);
  });
});

describe("a device's name", () => {
  it("is the browser and the system, from the user agent", () => {
    expect(
      deviceLabel(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari on iPhone");
    expect(deviceLabel("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
      "Firefox on Windows",
    );
    expect(
      deviceLabel(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      ),
    ).toBe("Edge on Windows");
    expect(deviceLabel(null)).toBe("A browser");
  });
});
