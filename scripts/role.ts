import fs from "node:fs";
import { ConfigError, getConfig } from "../app/config.server";
import { readRole, roleKeyProblem, writeRole } from "~/auth/roles.server";
import { withDeadline } from "../app/deadline.server";
import { adminAuth } from "../app/firebase.server";

/**
 * npm run role -- <email> <role>   sets users/{email}.stripeRole ("" clears it)
 * npm run role -- <email>          prints it
 *
 * Uses the same backend as the app (the same variables): in local mode the
 * emulators that `npm start` runs, so start the app first.
 */
if (fs.existsSync(".env")) process.loadEnvFile(".env");

const [email, role] = process.argv.slice(2);
if (!email || !email.includes("@") || process.argv.length > 4) {
  console.error('Usage: npm run role -- <email> [role]   (role "" clears it; e.g. admin, premium)');
  process.exit(2);
}

// users/{email} is keyed by the address: one that cannot name a document can hold no role (docs/decisions/075).
const problem = roleKeyProblem(email.trim().toLowerCase());
if (problem) {
  console.error(`${email} cannot hold a role: ${problem}, which a role record can't be named by.`);
  process.exit(2);
}

try {
  const config = getConfig();
  const within = <T>(work: Promise<T>) => withDeadline("backend", 10_000, work);
  const account = await within(adminAuth().getUserByEmail(email)).catch((error: { code?: string }) => {
    if (error.code === "auth/user-not-found") return null;
    throw error;
  });

  if (role === undefined) {
    const current = await within(readRole(email));
    console.log(current === "" ? `${email} has no role ("")` : `${email}: ${current}`);
  } else {
    const before = await within(readRole(email));
    await within(writeRole(email, role));
    console.log(`${email}: "${before}" → "${role}"`);
    console.log("Pages show the change within 30 seconds; the admin area at once.");
  }
  if (!account) {
    console.warn(`Warning: no account has signed up with ${email} yet; the role applies once one does.`);
  } else if (!account.emailVerified && role === "admin") {
    console.warn(`Warning: ${email} is not verified, so "admin" does not count until the address is verified.`);
  } else if (!account.emailVerified) {
    console.warn(`Note: ${email} is not verified yet.`);
  }
  if (config.mode === "local") console.log(`(local mode, project ${config.projectId})`);
  process.exit(0);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(
      `Could not reach the backend: ${(error as Error).message}\n` +
        "In local mode, start the app first (npm start) and use the same FIREBASE_* variables.",
    );
  }
  process.exit(1);
}
