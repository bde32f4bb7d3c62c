import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { describeError, escapeForLog, logUnexpectedError } from "~/log/safe-log.server";
import { captureLogs } from "../../support/log-capture";

/** ADR 052: the shared helpers behind every log line that mentions an error. */

describe("escapeForLog", () => {
  it("turns every line break and control character into a visible escape", () => {
    const escaped = escapeForLog("a\nb\r\nc\u0000d\u001be\u007ff\u0085g\u2028h\u2029i\tj");
    expect(escaped).toBe("a\\nb\\r\\nc\\u0000d\\u001be\\u007ff\\u0085g\\u2028h\\u2029i\\tj");
    expect([...escaped].every((char) => char.charCodeAt(0) >= 0x20 && !(char >= "\u007f" && char <= "\u009f"))).toBe(
      true,
    );
  });

  it("leaves ordinary text, quotes and non-Latin letters alone", () => {
    expect(escapeForLog('reading users/a@example.com "x" ü 中')).toBe('reading users/a@example.com "x" ü 中');
  });
});

describe("describeError", () => {
  it("a failed query → its class and the driver's SQLSTATE, not the query or its parameters", () => {
    const cause = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
    const error = new DrizzleQueryError("insert into messages values ($1)", ["secret user text"], cause);
    expect(describeError(error)).toBe("DrizzleQueryError (code 23505)");
  });

  it("a Firebase-style error → its name and code", () => {
    const error = Object.assign(new Error("There is no user record for uid-secret"), {
      name: "FirebaseAuthError",
      code: "auth/user-not-found",
    });
    expect(describeError(error)).toBe("FirebaseAuthError (code auth/user-not-found)");
  });

  it("something that is not an Error → its type only", () => {
    expect(describeError("user text\nforged")).toBe("non-error string");
    expect(describeError(undefined)).toBe("unknown error");
  });
});

describe("logUnexpectedError", () => {
  it("one line: where, the class and the stack frames; never the message", () => {
    const logs = captureLogs();
    const error = new TypeError("cannot read 'x' of my secret message\n[admin] forged");
    try {
      logUnexpectedError("api /api/chat\nforged", error);
    } finally {
      logs.restore();
    }
    expect(logs.lines).toHaveLength(1);
    const line = logs.lines[0];
    expect(line.split("\n")).toHaveLength(1);
    expect(logs.entries()[0].level).toBe(50); // error
    expect(logs.entries()[0].msg).toMatch(/^\[api \/api\/chat\\nforged\] unexpected TypeError /);
    expect(line).toContain("safe-log.test.ts");
    expect(line).not.toContain("secret");
    expect(line).not.toContain("[admin] forged");
  });
});
