import { describe, expect, it } from "vitest";
import { listSearch, summarise } from "~/components/admin/inbox-summary";
import { exactTime, relativeTime } from "~/components/time/relative-time";
import { parseConfig } from "~/config.server";
import { parseSmtpUrl } from "~/mail/smtp-url";
import { branchThrough } from "~/data/inbox-replies.server";

const env = (values: Record<string, string>) => ({ NODE_ENV: "test", ...values }) as NodeJS.ProcessEnv;
const NOW = Date.parse("2026-11-23T12:00:00Z");

describe("relative times (the inbox's 'Received')", () => {
  it.each([
    [NOW - 20_000, "just now"],
    [NOW - 5 * 60_000, "5 min ago"],
    [NOW - 60 * 60_000, "1 hour ago"],
    [NOW - 3 * 3_600_000, "3 hours ago"],
    [NOW - 30 * 3_600_000, "yesterday"],
    [NOW - 4 * 86_400_000, "4 days ago"],
    [Date.parse("2026-10-02T09:00:00Z"), "Oct 2"],
    [Date.parse("2025-10-02T09:00:00Z"), "Oct 2, 2025"],
  ])("%s → %s", (at, text) => {
    expect(relativeTime(at, NOW)).toBe(text);
  });

  it("the exact time names its zone", () => {
    expect(exactTime(Date.parse("2026-11-23T09:05:00Z"), "UTC")).toBe("Nov 23, 2026, 09:05 UTC");
  });
});

describe("a row's subject line and snippet", () => {
  it("a contact message: its first line, then the rest on one line", () => {
    expect(
      summarise({ kind: "contact", body: "  Billing question\nI was charged twice.\n\nThanks", reportReason: null }),
    ).toEqual({
      subject: "Billing question",
      snippet: "I was charged twice. Thanks",
    });
    expect(summarise({ kind: "contact", body: "One line only", reportReason: null })).toEqual({
      subject: "One line only",
      snippet: "",
    });
  });

  it("a report without a comment names the reason and shows the reply", () => {
    expect(
      summarise({
        kind: "report",
        body: "",
        reportReason: "harmful",
        exchange: { assistantText: "Do this\nthen that" },
      }),
    ).toEqual({
      subject: "Harmful reply reported (no comment)",
      snippet: "Reply: Do this then that",
    });
  });

  it("the list's filters ride along, the defaults left out", () => {
    expect(listSearch({ status: "inbox" })).toBe("");
    expect(listSearch({ status: "archived", kind: "report", q: "a b" })).toBe("?status=archived&kind=report&q=a+b");
  });
});

describe("SMTP_URL", () => {
  it("smtp:// and smtps:// with credentials and an optional from", () => {
    expect(parseSmtpUrl("smtp://user:p%40ss@mail.example.com:587")).toEqual({
      url: "smtp://user:p%40ss@mail.example.com:587",
      host: "mail.example.com:587",
      from: undefined,
    });
    expect(parseSmtpUrl("smtps://mail.example.com?from=Support%20%3Csupport%40example.com%3E")).toMatchObject({
      url: "smtps://mail.example.com",
      from: "Support <support@example.com>",
    });
    expect(parseSmtpUrl(undefined)).toBeUndefined();
  });

  it.each([
    ["mail.example.com", /must be a URL/],
    ["https://mail.example.com", /must start with smtp:\/\/ or smtps:\/\//],
    ["smtp://mail.example.com?pool=true", /takes only the parameter \?from=/],
    ["smtp://mail.example.com?from=not-an-address", /\?from= must be one email address/],
    ["smtp://mail.example.com?from=a%40b.com%2Cc%40d.com", /\?from= must be one email address/],
  ])("%s is refused: %s", (value, message) => {
    expect(() => parseSmtpUrl(value)).toThrow(message);
  });

  it("is read with the rest of the configuration, and a bad one names the variable", () => {
    expect(parseConfig(env({ SMTP_URL: "smtp://127.0.0.1:2525" })).smtp).toMatchObject({ host: "127.0.0.1:2525" });
    expect(parseConfig(env({})).smtp).toBeUndefined();
    expect(parseConfig(env({ SMTP_URL: "" })).smtp).toBeUndefined();
    expect(() => parseConfig(env({ SMTP_URL: "ftp://x" }))).toThrow(/SMTP_URL: must start with smtp:\/\//);
  });
});

describe("the branch of a reported conversation an admin reads", () => {
  // u1 → a1 → u2 → a2 (the owner's open branch), and a regenerated a1b under u1 → u3 → a3.
  const rows = [
    { id: "u1", parentId: null },
    { id: "a1", parentId: "u1" },
    { id: "u2", parentId: "a1" },
    { id: "a2", parentId: "u2" },
    { id: "a1b", parentId: "u1" },
    { id: "u3", parentId: "a1b" },
    { id: "a3", parentId: "u3" },
  ];
  const ids = (list: Array<{ id: string }>) => list.map((row) => row.id);

  it("the open branch when it holds the reported reply", () => {
    expect(ids(branchThrough(rows, "a1", "a2"))).toEqual(["u1", "a1", "u2", "a2"]);
  });
  it("otherwise the reported reply's own branch, down its latest replies", () => {
    expect(ids(branchThrough(rows, "a1b", "a2"))).toEqual(["u1", "a1b", "u3", "a3"]);
  });
  it("a reply no longer there: the open branch; no tree recorded: everything in order", () => {
    expect(ids(branchThrough(rows, "gone", "a2"))).toEqual(["u1", "a1", "u2", "a2"]);
    expect(
      ids(
        branchThrough(
          [
            { id: "x", parentId: null },
            { id: "y", parentId: null },
          ],
          "gone",
          null,
        ),
      ),
    ).toEqual(["x", "y"]);
  });
});
