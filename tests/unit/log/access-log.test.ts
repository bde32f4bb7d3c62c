import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { redactAccessLines, redactAccessLog, redactedTarget } from "~/log/access-log.server";

/** remix-serve's access-log lines without user content (app/log/access-log.server.ts, docs/decisions/077). */
const SHARE_ID = "Zx3_kP9-qL2mN7vB4cR8tW1y";

describe("redactedTarget", () => {
  it("drops the query string, whatever it holds", () => {
    expect(redactedTarget("/nuvara?q=my-private-search-term")).toBe("/nuvara");
    expect(
      redactedTarget("/nuvara/0b7c3c3e-8f0e-4c8e-9a51-3f1f2f9d7a10?q=x&_data=routes%2Fnuvara.%24conversationId"),
    ).toBe("/nuvara/0b7c3c3e-8f0e-4c8e-9a51-3f1f2f9d7a10");
    expect(redactedTarget("/login?redirectTo=%2Fs%2Fabc")).toBe("/login");
    expect(redactedTarget("/?")).toBe("/");
  });

  it("replaces a share link's id (its whole secret) however the path is written", () => {
    for (const target of [
      `/s/${SHARE_ID}`,
      `/s/${SHARE_ID}?_data=routes%2Fs.%24shareId`,
      `/s/${SHARE_ID}/files/0b7c3c3e-8f0e-4c8e-9a51-3f1f2f9d7a10`,
      `/S/${SHARE_ID}`,
      `//s//${SHARE_ID}`,
      `/%73/${SHARE_ID}`,
      `http://nuvara.example/s/${SHARE_ID}`,
    ]) {
      expect(redactedTarget(target), target).toBe("/s/…");
    }
    expect(redactedTarget(`/api/shares/${SHARE_ID}`)).toBe("/api/shares/…");
    expect(redactedTarget(`/API/Shares/${SHARE_ID}`)).toBe("/api/shares/…");
    // Nothing to hide: kept as it was.
    expect(redactedTarget("/s")).toBe("/s");
    expect(redactedTarget("/settings/x")).toBe("/settings/x");
    expect(redactedTarget("/api/conversations/0b7c3c3e-8f0e-4c8e-9a51-3f1f2f9d7a10/share")).toBe(
      "/api/conversations/0b7c3c3e-8f0e-4c8e-9a51-3f1f2f9d7a10/share",
    );
  });
});

describe("redactAccessLines", () => {
  it("rewrites morgan's tiny lines only", () => {
    expect(redactAccessLines(`GET /nuvara?q=secret 302 - - 4.512 ms\n`)).toBe("GET /nuvara 302 - - 4.512 ms\n");
    expect(redactAccessLines(`GET /s/${SHARE_ID} 200 5120 - 12.001 ms\n`)).toBe("GET /s/… 200 5120 - 12.001 ms\n");
    expect(redactAccessLines(`POST /api/shares/${SHARE_ID} 404 71 - 3.2 ms\n`)).toBe(
      "POST /api/shares/… 404 71 - 3.2 ms\n",
    );
    // Anything else written to stdout passes unchanged.
    expect(redactAccessLines("[remix-serve] http://localhost:3000 (http://10.0.0.2:3000)\n")).toBe(
      "[remix-serve] http://localhost:3000 (http://10.0.0.2:3000)\n",
    );
    expect(redactAccessLines('{"level":30,"msg":"loader routes/s.$shareId 200"}\n')).toBe(
      '{"level":30,"msg":"loader routes/s.$shareId 200"}\n',
    );
  });
});

describe("redactAccessLog", () => {
  it("rewrites the stream's access-log lines from then on, once however often it is installed; other chunks pass untouched", () => {
    const written: unknown[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        written.push(chunk);
        done();
      },
      decodeStrings: false,
    }) as unknown as NodeJS.WriteStream;
    redactAccessLog(stream);
    redactAccessLog(stream);
    stream.write(`GET /nuvara?q=secret 200 - - 1.0 ms\n`);
    const bytes = Buffer.from("binary");
    stream.write(bytes);
    expect(written).toEqual(["GET /nuvara 200 - - 1.0 ms\n", bytes]);
  });
});
