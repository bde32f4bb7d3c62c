import { env, expect, signIn, test } from "./fixtures";

test.describe("security headers", () => {
  test("every page has a CSP with a fresh nonce, and the usual protections", async ({ page }) => {
    const first = await page.request.get("/");
    const second = await page.request.get("/");
    const csp = first.headers()["content-security-policy"];
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{20,}'/);
    for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      expect(csp).toContain(directive);
    }
    const nonceOf = (value: string) => /'nonce-([^']+)'/.exec(value)![1];
    expect(nonceOf(csp)).not.toBe(nonceOf(second.headers()["content-security-policy"]));
    // Remix's scripts carry the nonce; the nonce is not in the loader data.
    const html = await first.text();
    expect(html).toContain(`nonce="${nonceOf(csp)}"`);
    const context = /window\.__remixContext = (.*?);<\/script>/s.exec(html)?.[1] ?? "";
    expect(context).not.toContain(nonceOf(csp));

    const headers = first.headers();
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["permissions-policy"]).toContain("camera=()");
    expect(headers["x-powered-by"]).toBeUndefined();
    // Plain http here (local mode): no HSTS.
    expect(headers["strict-transport-security"]).toBeUndefined();
  });

  test("signed-in pages and API responses are not cached", async ({ page, newAccount }) => {
    expect((await page.request.get("/")).headers()["cache-control"] ?? "").not.toContain("no-store");
    await signIn(page, await newAccount());
    for (const path of ["/", "/dashboard", "/nuvara"]) {
      expect((await page.request.get(path)).headers()["cache-control"]).toContain("no-store");
    }
    expect((await page.request.post("/api/auth/session", { data: {} })).headers()["cache-control"]).toContain(
      "no-store",
    );
  });

  test("every /api response, whatever its status, carries the API headers", async ({ page }) => {
    const responses = [
      await page.request.get("/api/chat"),
      await page.request.post("/api/contact", { data: [], headers: { Origin: env.baseURL } }),
      await page.request.post("/api/contact", {
        form: { message: "x".repeat(70 * 1024) },
        headers: { Origin: env.baseURL },
      }),
      await page.request.get("/api/conversations/not-a-conversation/markdown", { maxRedirects: 0 }),
      // With our Origin, as a browser sends it: without one it is refused (ADR 047).
      await page.request.post("/api/auth/logout", { maxRedirects: 0, headers: { Origin: env.baseURL } }),
    ];
    expect(responses.map((response) => response.status())).toEqual([405, 400, 413, 302, 303]);
    for (const response of responses) {
      const headers = response.headers();
      expect(headers["cache-control"]).toBe("no-store");
      expect(headers["content-security-policy"]).toContain("default-src 'none'");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
      expect(headers["permissions-policy"]).toContain("camera=()");
      expect(headers["x-powered-by"]).toBeUndefined();
    }
  });

  test("pages run with no CSP violation, the login page included", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Login" }).click();
    await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
    await page.getByLabel("Email").fill("user@example.com");
    await page.getByLabel("Password", { exact: true }).fill("nuvara-user-demo");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Logout" })).toBeVisible();
    expect(violations).toEqual([]);
  });
});
