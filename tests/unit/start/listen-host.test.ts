import { describe, expect, it } from "vitest";
import { isLoopback, listenPlan, localUrl } from "../../../scripts/listen-host";

/**
 * Local mode accepts unsigned emulator tokens, so `npm start` in local
 * mode listens on loopback unless HOST says otherwise, and says so.
 */

describe("listenPlan", () => {
  it("local mode without HOST → 127.0.0.1, and the start message says why", () => {
    const plan = listenPlan("local", {}, "3000");
    expect(plan.host).toBe("127.0.0.1");
    expect(plan.notice.join("\n")).toContain("Listening on 127.0.0.1:3000");
    expect(plan.notice.join("\n")).toContain("unsigned emulator tokens");
    expect(plan.notice.join("\n")).not.toContain("WARNING");
    expect(listenPlan("local", { HOST: "  " }, "3000").host).toBe("127.0.0.1");
  });

  it("local mode with HOST → that host; beyond loopback with a warning", () => {
    expect(listenPlan("local", { HOST: "::1" }, "3000")).toMatchObject({ host: "::1" });
    expect(listenPlan("local", { HOST: "::1" }, "3000").notice.join("\n")).not.toContain("WARNING");
    const open = listenPlan("local", { HOST: "0.0.0.0" }, "3000");
    expect(open.host).toBe("0.0.0.0");
    expect(open.notice.join("\n")).toMatch(/WARNING: HOST=0\.0\.0\.0 .*forge a session/);
  });

  it("a real project → HOST as given, unset meaning every interface (remix-serve's default)", () => {
    expect(listenPlan("real", {}, "3000").host).toBeUndefined();
    expect(listenPlan("real", { HOST: "10.0.0.5" }, "3000").host).toBe("10.0.0.5");
  });
});

describe("isLoopback and localUrl", () => {
  it("knows loopback addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"])
      expect(isLoopback(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.0.2.2", "127.example.com", "10.0.0.1"])
      expect(isLoopback(host), host).toBe(false);
  });

  it("gives the address to open", () => {
    expect(localUrl("127.0.0.1", "3000")).toBe("http://localhost:3000");
    expect(localUrl(undefined, "3000")).toBe("http://localhost:3000");
    expect(localUrl("192.0.2.2", "3000")).toBe("http://192.0.2.2:3000");
    expect(localUrl("fd00::2", "3000")).toBe("http://[fd00::2]:3000");
  });
});
