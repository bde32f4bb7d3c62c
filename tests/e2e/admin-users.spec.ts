import type { Page } from "@playwright/test";
import { pastSignInSecond } from "../support/identity";
import { expectNoAxeViolations } from "./a11y";
import { replies, sendMessage } from "./assistant-support";
import { env, expect, mainNav, sessionCookieOf, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/** /admin/users in the browser: role chips, the edit dialog, accounts, usage; and built-in prompt tools edited by admins. */

async function openUsers(page: Page, email: string) {
  await page.goto(`/admin/users?q=${encodeURIComponent(email)}`);
  return page.getByRole("row").filter({ hasText: email });
}

async function openDialog(page: Page, email: string) {
  const row = page.getByRole("row").filter({ hasText: email });
  await row.getByRole("button", { name: `Edit ${email}` }).click();
  const dialog = page.getByRole("dialog", { name: email });
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe("roles", () => {
  test("chips in plain words; one dialog per user; granting admin asks first; the user's nav changes", async ({
    page,
    browser,
    newAccount,
  }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount({ role: "premium", displayName: "Uma User" });
    const userPage = await browser.newPage();
    await signIn(userPage, user);
    await userPage.goto("/");
    await expect(mainNav(userPage).getByRole("link", { name: /^Admin/ })).toHaveCount(0);

    await signIn(page, adminAccount);
    await page.goto("/admin/users");
    await expect(page.getByText(/stripeRole|users\/\{email\}/)).toHaveCount(0);
    await expect(page.getByText("Admin opens the admin area", { exact: false })).toBeVisible();
    await page.getByRole("searchbox", { name: "Search by email" }).fill(user.email);
    await page.getByRole("button", { name: "Search" }).click();
    const row = page.getByRole("row").filter({ hasText: user.email });
    await expect(row).toContainText("Uma User");
    await expect(row.getByText("Premium", { exact: true })).toBeVisible();
    await expect(row.getByRole("combobox")).toHaveCount(0);
    await expect(row.getByRole("textbox")).toHaveCount(0);

    // The dialog: focus inside; Escape closes it and focus returns to its Edit button.
    const edit = row.getByRole("button", { name: `Edit ${user.email}` });
    let dialog = await openDialog(page, user.email);
    await expect(dialog.locator(":focus")).toHaveCount(1);
    await expect(dialog.getByRole("radio", { name: /^Premium/ })).toBeChecked();
    // Roles in words ("No role", never "none"), each saying what it gives.
    await expect(dialog.getByRole("radio", { name: /^No role The standard plan: 20 messages a day/ })).toBeVisible();
    await expect(dialog.getByText("none", { exact: true })).toHaveCount(0);
    await expectNoAxeViolations(page, "users page with the edit dialog open");
    await reviewShots(page, "users-dialog-desktop");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(edit).toBeFocused();

    // Granting admin asks once more; Cancel keeps the role.
    dialog = await openDialog(page, user.email);
    await dialog.getByRole("radio", { name: /^Admin/ }).check();
    await dialog.getByRole("button", { name: "Save role" }).click();
    await expect(dialog.getByRole("heading", { name: `Make ${user.email} an admin?` })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Yes, make admin" })).toBeFocused();
    await reviewShots(page, "users-confirm-admin");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(row.getByText("Premium", { exact: true })).toBeVisible();
    await dialog.getByRole("radio", { name: /^Admin/ }).check();
    await dialog.getByRole("button", { name: "Save role" }).click();
    await dialog.getByRole("button", { name: "Yes, make admin" }).click();
    await expect(dialog.getByRole("status")).toHaveText(`${user.email}: role changed from Premium to Admin.`);
    await expect(row.getByText("Admin", { exact: true })).toBeVisible();

    await userPage.goto("/tools");
    await expect(mainNav(userPage).getByRole("link", { name: /^Admin/ })).toHaveAttribute("href", "/admin/messages");

    // Another role: its name box shows only when chosen. Leaving admin asks nothing.
    await expect(dialog.getByRole("textbox", { name: "Role name" })).toHaveCount(0);
    await dialog.getByRole("radio", { name: /^Another role/ }).check();
    await dialog.getByRole("textbox", { name: "Role name" }).fill("team");
    await dialog.getByRole("button", { name: "Save role" }).click();
    await expect(dialog.getByRole("status")).toHaveText(`${user.email}: role changed from Admin to team.`);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(row.getByText("team", { exact: true })).toBeVisible();

    const audit = page.getByRole("table", { name: "Role changes, newest first" });
    await expect(audit.getByRole("row").filter({ hasText: user.email }).first()).toContainText("Admin → team");
    await expect(audit.getByRole("row").filter({ hasText: user.email }).nth(1)).toContainText("Premium → Admin");
    await userPage.close();
  });

  test("the last admin cannot remove their own admin role", async ({ page, newAccount, firebase }) => {
    const solo = await newAccount({ role: "admin" });
    // The emulator is shared by the whole run: make `solo` the only admin.
    const admins = await firebase.firestore.collection("users").where("stripeRole", "==", "admin").get();
    const others = admins.docs.filter((d) => d.id !== solo.email);
    await Promise.all(others.map((d) => d.ref.set({ stripeRole: "former-admin" }, { merge: true })));
    try {
      await signIn(page, solo);
      const row = await openUsers(page, solo.email);
      await expect(row).toContainText("You");
      const dialog = await openDialog(page, solo.email);
      // One's own account: no disable or sign-out here.
      await expect(dialog.getByRole("button", { name: "Disable account" })).toHaveCount(0);
      await expect(dialog).toContainText("use “Log out everywhere” on your dashboard");
      await dialog.getByRole("radio", { name: /^No role/ }).check();
      await dialog.getByRole("button", { name: "Save role" }).click();
      await expect(dialog.getByRole("alert")).toContainText("You are the only admin");
      await page.reload();
      await expect(
        page.getByRole("row").filter({ hasText: solo.email }).getByText("Admin", { exact: true }),
      ).toBeVisible();
    } finally {
      // Give the other admins (the demo admin among them) their role back for the tests after this one.
      await Promise.all(others.map((d) => d.ref.set({ stripeRole: "admin" }, { merge: true })));
    }
  });
});

test.describe("accounts", () => {
  test("disable: their session ends and they cannot log in; enable: they can again; both in the audit", async ({
    page,
    browser,
    newAccount,
  }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount({ displayName: "Dee Disabled" });
    const userPage = await browser.newPage();
    await signIn(userPage, user);
    await userPage.goto("/dashboard");
    await expect(mainNav(userPage).getByRole("button", { name: "Logout" })).toBeVisible();
    await pastSignInSecond(await sessionCookieOf(userPage));

    await signIn(page, adminAccount);
    const row = await openUsers(page, user.email);
    const dialog = await openDialog(page, user.email);
    await expect(dialog).toContainText("This account is active.");
    await dialog.getByRole("button", { name: "Disable account" }).click();
    await expect(dialog.getByRole("status")).toHaveText(
      `${user.email} is disabled: they are logged out everywhere and cannot log in.`,
    );
    await expect(dialog).toContainText("This account is disabled: they cannot log in.");
    await expect(row.getByText("Disabled", { exact: true })).toBeVisible();

    // Their open page: the next request finds them signed out.
    await userPage.goto("/dashboard");
    await expect(userPage).toHaveURL(/\/login/);
    await expect(mainNav(userPage).getByRole("link", { name: "Login" })).toBeVisible();
    // And signing in is refused, with the reason.
    await userPage.getByLabel("Email").fill(user.email);
    await userPage.getByLabel("Password", { exact: true }).fill(user.password);
    await userPage.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(userPage.getByRole("alert")).toContainText("This account has been disabled");

    await dialog.getByRole("button", { name: "Enable account" }).click();
    await expect(dialog.getByRole("status")).toHaveText(`${user.email} is enabled: they can log in again.`);
    await expect(row.getByText("Disabled", { exact: true })).toHaveCount(0);
    await userPage.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(mainNav(userPage).getByRole("button", { name: "Logout" })).toBeVisible();

    await dialog.getByRole("button", { name: "Close" }).click();
    const audit = page.getByRole("table", { name: "Account changes, newest first" });
    await expect(audit.getByRole("row").filter({ hasText: user.email }).first()).toContainText("Enabled the account");
    await expect(audit.getByRole("row").filter({ hasText: user.email }).nth(1)).toContainText("Disabled the account");
    await expect(audit.getByRole("row").filter({ hasText: user.email }).first()).toContainText(adminAccount.email);
    await userPage.close();
  });

  test("log out everywhere ends their session on every device", async ({ page, browser, newAccount }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount();
    const [phone, laptop] = [await browser.newPage(), await browser.newPage()];
    for (const device of [phone, laptop]) {
      await signIn(device, user);
      await device.goto("/dashboard");
      await expect(mainNav(device).getByRole("button", { name: "Logout" })).toBeVisible();
    }
    await pastSignInSecond(await sessionCookieOf(phone), await sessionCookieOf(laptop));

    await signIn(page, adminAccount);
    await openUsers(page, user.email);
    const dialog = await openDialog(page, user.email);
    await dialog.getByRole("button", { name: "Log out everywhere" }).click();
    await expect(dialog.getByRole("status")).toHaveText(`${user.email} is logged out on every device.`);
    for (const device of [phone, laptop]) {
      await device.goto("/dashboard");
      await expect(device).toHaveURL(/\/login/);
      await expect(mainNav(device).getByRole("link", { name: "Login" })).toBeVisible();
      await device.close();
    }
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(
      page
        .getByRole("table", { name: "Account changes, newest first" })
        .getByRole("row")
        .filter({ hasText: user.email })
        .first(),
    ).toContainText("Signed them out everywhere");
  });

  test("an address that cannot hold a role shows why, has no role form, and can be deleted after a second question (docs/decisions/075)", async ({
    page,
    newAccount,
  }) => {
    const adminAccount = await newAccount({ role: "admin" });
    // Made at the identity service directly, as an account from before sign-in refused such addresses.
    const email = `a/${Date.now()}@example.com`;
    const made = await fetch(
      `http://${env.authHost}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: "abcdef-1-pass", returnSecureToken: true }),
      },
    );
    expect(made.ok).toBe(true);

    await signIn(page, adminAccount);
    const row = await openUsers(page, email);
    await expect(row).toContainText("This address can't hold a role (it contains “/”");
    const dialog = await openDialog(page, email);
    await expect(dialog.getByRole("radio")).toHaveCount(0);
    await expect(dialog.getByText("The account can still be disabled or deleted.", { exact: false })).toBeVisible();

    await dialog.getByRole("button", { name: "Delete account…" }).click();
    const question = dialog.getByRole("form", { name: `Delete ${email}'s account?` });
    await expect(question.getByRole("button", { name: "Yes, delete the account" })).toBeFocused();
    await question.getByRole("button", { name: "Cancel" }).click();
    await expect(question).toHaveCount(0);
    await dialog.getByRole("button", { name: "Delete account…" }).click();
    await question.getByRole("button", { name: "Yes, delete the account" }).click();

    await expect(page.getByRole("status").filter({ hasText: `${email} is deleted` })).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(
      page
        .getByRole("row")
        .filter({ hasText: email })
        .filter({ has: page.getByRole("button") }),
    ).toHaveCount(0);
    await expect(
      page
        .getByRole("table", { name: "Account changes, newest first" })
        .getByRole("row")
        .filter({ hasText: email })
        .first(),
    ).toContainText("Deleted the account");
  });

  test("each user's use this month shows in their row", async ({ page, browser, newAccount }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount();
    const userPage = await browser.newPage();
    await signIn(userPage, user);
    await userPage.goto("/nuvara");
    await sendMessage(userPage, "count me in");
    await expect(replies(userPage).first()).toContainText("You said: count me in");
    await userPage.close();

    await signIn(page, adminAccount);
    const row = await openUsers(page, user.email);
    await expect(row.getByRole("cell").filter({ hasText: /messages?/ })).toContainText(/^1 message · \S+ tokens$/);
    await expect(page.getByText(/“This month” counts from \d{4}-\d{2}-01 \(UTC\)/)).toBeVisible();
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("one card per user, never wider than the screen; the dialog fits", async ({ page, newAccount }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount({
      role: "premium",
      displayName: "Phoebe Phone",
      prefix: "a-rather-long-address-for-a-phone",
    });
    await signIn(page, adminAccount);
    await page.goto("/admin/users");
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await expectNoAxeViolations(page, "users page on a phone");
    // The list shows 100 accounts a page and a long run of the suite makes more: the user is found by search.
    await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
    const row = page.getByRole("row").filter({ hasText: user.email });
    await row.scrollIntoViewIfNeeded();
    const box = (await row.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await expect(row.getByText("Premium", { exact: true })).toBeVisible();
    await expect(row).toContainText("0 messages");
    await reviewShots(page, "users-phone");
    const dialog = await openDialog(page, user.email);
    const dialogBox = (await dialog.boundingBox())!;
    expect(dialogBox.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(390);
    await reviewShots(page, "users-dialog-phone");
    await expectNoAxeViolations(page, "edit dialog on a phone");
  });
});

test.describe("built-in prompt tools", () => {
  test("an admin edits, hides and resets a built-in tool; users see each change", async ({
    page,
    browser,
    newAccount,
  }) => {
    const adminAccount = await newAccount({ role: "admin" });
    const user = await newAccount();
    const userPage = await browser.newPage();
    await signIn(userPage, user);
    await signIn(page, adminAccount);
    try {
      await page.goto("/tools");
      const card = page.getByRole("article", { name: "Improve writing" });
      await card.getByRole("link", { name: "Edit Improve writing" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Edit “Improve writing”" })).toBeVisible();
      await expect(page.getByText("This tool is built in.")).toBeVisible();
      await page.getByLabel("Name", { exact: true }).fill("Polish my text");
      await page.getByLabel("Description").fill("Tidy a text for the newsletter.");
      await page
        .getByLabel("Instructions for the assistant")
        .fill("You polish newsletter texts. Keep the author's voice.");
      await page.getByLabel("Input 2 label").fill("Audience");
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByRole("status").filter({ hasText: "“Polish my text” was saved." })).toBeVisible();
      const edited = page.getByRole("article", { name: "Polish my text" });
      await expect(edited).toContainText("Edited");
      await reviewShots(page, "tools-builtin-edited");

      // What a user sees: the new name, description and form.
      await userPage.goto("/tools");
      const theirs = userPage.getByRole("article", { name: "Polish my text" });
      await expect(theirs).toContainText("Tidy a text for the newsletter.");
      await expect(theirs).not.toContainText("Edited");
      await expect(userPage.getByRole("article", { name: "Improve writing" })).toHaveCount(0);
      await theirs.getByRole("link", { name: "Polish my text" }).click();
      await expect(userPage.getByLabel("Audience")).toBeVisible();

      // Hidden: gone for users, marked for admins.
      await edited.getByRole("button", { name: "Disable Polish my text" }).click();
      await expect(edited).toContainText("Disabled");
      await userPage.goto("/tools");
      await expect(userPage.getByRole("article", { name: "Polish my text" })).toHaveCount(0);
      await edited.getByRole("button", { name: "Enable Polish my text" }).click();
      await expect(edited).not.toContainText("Disabled");

      // Reset asks first, then brings the shipped tool back.
      await edited.getByRole("button", { name: "Reset to default Polish my text" }).click();
      await expect(edited.getByRole("group", { name: "Reset to default Polish my text?" })).toContainText(
        "Reset “Polish my text” to its built-in default?",
      );
      await edited.getByRole("button", { name: "Yes, reset Polish my text" }).click();
      const restored = page.getByRole("article", { name: "Improve writing" });
      await expect(restored).toBeVisible();
      await expect(restored).not.toContainText("Edited");
      await expect(restored.getByRole("button", { name: /^Reset to default/ })).toHaveCount(0);
      await expect(restored.getByRole("button", { name: /^Delete/ })).toHaveCount(0);
      await userPage.goto("/tools");
      await expect(userPage.getByRole("article", { name: "Improve writing" })).toBeVisible();
      await expectNoAxeViolations(page, "tools page as an admin");
    } finally {
      // Whatever happened above, the next tests find the tool as shipped.
      const cleanup: Array<Record<string, string>> = [
        { intent: "reset", id: "improve-writing", confirm: "yes" },
        { intent: "enable", id: "improve-writing" },
      ];
      for (const form of cleanup) {
        await page.request.post("/tools?_data=routes%2Ftools", { form, headers: { Origin: env.baseURL } });
      }
      await userPage.close();
    }
  });
});
