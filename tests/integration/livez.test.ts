import { describe, expect, it } from "vitest";
import { appRequest } from "../support/app-env";
import { appHandler } from "../support/remix-app";

describe("GET /livez", () => {
  it("answers 200 with the API headers and no cookie, logged out", async () => {
    const handle = await appHandler();
    const response = await handle(appRequest("/livez"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "alive" });
    expect(response.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Cache-Control")).toContain("no-store");
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });
});
