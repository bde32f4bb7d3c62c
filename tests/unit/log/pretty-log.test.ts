import { describe, expect, it } from "vitest";
import { prettyLine } from "~/log/logger.server";

/** Local mode's human-readable lines (LOG_FORMAT=pretty): the same facts as the JSON, on one line. */
describe("prettyLine", () => {
  it("shows the time, level, request id and message, then the other fields", () => {
    const json = JSON.stringify({
      level: 30,
      time: "2026-11-23T11:45:27.207Z",
      pid: 1,
      hostname: "h",
      reqId: "req-1",
      route: "routes/login",
      uid: "u1",
      status: 200,
      msg: "loader routes/login 200",
    });
    expect(prettyLine(json)).toBe(
      "11:45:27.207 INFO  [req-1] loader routes/login 200 route=routes/login uid=u1 status=200",
    );
  });

  it("keeps a value with a line break or spaces on the one line, JSON-quoted", () => {
    const line = prettyLine(
      JSON.stringify({ level: 50, time: "2026-11-23T11:45:27.207Z", msg: "x", where: "a\nforged line" }),
    );
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toBe('11:45:27.207 ERROR x where="a\\nforged line"');
  });
});
