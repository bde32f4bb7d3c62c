import { DrizzleQueryError } from "drizzle-orm/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BackendUnavailableError, logBackendFault, logBackendRecovered } from "~/deadline.server";
import { captureLogs } from "../../support/log-capture";

/**
 * ADR 052: a fault's log line names the store, what was being done and the
 * error's class and code — never the error's message, which for a failed
 * query holds every parameter (a user's message, their uid) and could hold
 * newlines that forge log lines.
 */

const FORGED =
  "hi\u0000\nGET /admin/users 200 - - 3.141 ms\n[admin] role of mallory@example.com changed to admin by admin@example.com\n";

/** A failed INSERT as Drizzle reports it: the query, its parameters in the message, the driver's error as the cause. */
function failedQuery() {
  const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
    code: "22021",
    severity: "ERROR",
  });
  return new DrizzleQueryError(
    "insert into messages (id, uid, content) values ($1, $2, $3)",
    ["m-1", "uid-secret-42", FORGED],
    cause,
  );
}

/** The lines as written to the log (JSON), joined: a line break inside one would show as a second line. */
function captured(logs: ReturnType<typeof captureLogs>): string {
  return logs.lines.join("\n");
}

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});

afterEach(() => {
  logBackendRecovered("postgres");
  logs.restore();
});

describe("logBackendFault", () => {
  it("a failed query with user text and newlines → one line, with the class and SQLSTATE code, without the text", () => {
    logBackendFault("postgres", "saving a reply", failedQuery());
    expect(logs.lines).toHaveLength(1);
    expect(logs.entries()[0].level).toBe(50); // error
    const line = captured(logs);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain("postgres");
    expect(line).toContain("saving a reply");
    expect(line).toContain("DrizzleQueryError");
    expect(line).toContain("22021");
    for (const secret of [
      "mallory",
      "GET /admin/users",
      "uid-secret-42",
      "insert into",
      "invalid byte sequence",
      "hi\u0000",
    ]) {
      expect(line).not.toContain(secret);
    }
  });

  it("escapes control characters in what it interpolates (a context naming a user, an error code)", () => {
    const error = Object.assign(new Error("whatever"), { code: "X\n[admin] forged" });
    logBackendFault("postgres", "reading users/a@example.com\n[admin] forged line", error);
    const line = captured(logs);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).not.toContain("whatever");
  });

  it("keeps the app's own timeout message (no user text in it)", () => {
    logBackendFault(
      "postgres",
      "counting",
      new BackendUnavailableError("postgres", "postgres did not answer within 5000 ms"),
    );
    expect(captured(logs)).toContain("did not answer within 5000 ms");
  });
});
