import { userDoc } from "~/auth/roles.server";
import type { EmulatorAdmin } from "./admin-client";

/** The demo accounts local mode creates (and prints): verified, so "admin" counts. */
export const DEMO_ACCOUNTS = [
  { email: "admin@example.com", password: "nuvara-admin-demo", displayName: "Ada Admin", role: "admin" },
  { email: "user@example.com", password: "nuvara-user-demo", displayName: "Uma User", role: "" },
] as const;

export async function seedDemoAccounts(admin: EmulatorAdmin) {
  for (const account of DEMO_ACCOUNTS) {
    const existing = await admin.auth.getUserByEmail(account.email).catch(() => null);
    if (!existing) {
      await admin.auth.createUser({
        email: account.email,
        password: account.password,
        displayName: account.displayName,
        emailVerified: true,
      });
    }
    // Only a missing record is seeded: a role changed since stays as it is.
    const doc = userDoc(account.email, admin.firestore);
    if (!(await doc.get()).exists) await doc.set({ stripeRole: account.role });
  }
}
