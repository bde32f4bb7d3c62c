import fs from "node:fs";
import path from "node:path";
import { emulatorAdmin } from "./admin-client";
import { startAuthEmulator } from "./auth-emulator";
import { startFirestoreEmulator } from "./firestore-emulator";
import { startEmbeddedPostgres } from "./postgres";
import { splitHost } from "./ports";
import { seedDemoAccounts } from "./seed";
import { keepUsersSaved, restoreUsers } from "./users-snapshot";

/**
 * Local mode's backends on this machine: the Auth emulator, a Firestore
 * emulator and embedded PostgreSQL (unless `databaseUrl` is given), with the
 * demo accounts seeded. Used by `npm start`, the tests and the benchmark.
 */
export interface LocalStackOptions {
  projectId: string;
  authHost: string;
  firestoreHost: string;
  databaseUrl?: string;
  /** Where data persists; undefined: nothing persists (tests). */
  dataDir?: string;
  /** Scratch space for the emulator's config and log. */
  workDir: string;
}

export async function startLocalStack(options: LocalStackOptions) {
  const stops: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const firestoreAddress = splitHost(options.firestoreHost);
    const firestore = await startFirestoreEmulator(firestoreAddress.host, firestoreAddress.port);
    stops.push(() => firestore.stop());

    const authAddress = splitHost(options.authHost);
    const auth = await startAuthEmulator({
      host: authAddress.host,
      port: authAddress.port,
      projectId: options.projectId,
      workDir: options.workDir,
      persistDir: options.dataDir ? path.join(options.dataDir, "auth") : undefined,
    });
    stops.push(() => auth.stop());

    let databaseUrl = options.databaseUrl;
    // PGlite's socket server can interleave the extended-protocol messages of
    // concurrent connections (one query's parameters reaching another's
    // statement): the app uses one connection to it. PGlite runs one query at
    // a time anyway.
    let databasePoolSize: string | undefined;
    if (!databaseUrl) {
      databasePoolSize = "1";
      const postgres = await startEmbeddedPostgres({
        dataDir: options.dataDir ? path.join(options.dataDir, "postgres") : undefined,
      });
      stops.push(() => postgres.stop());
      databaseUrl = postgres.url;
    }

    const admin = emulatorAdmin(options.projectId, auth.hostPort, firestore.hostPort);
    stops.push(() => admin.close());
    if (options.dataDir) {
      const usersFile = path.join(options.dataDir, "firestore-users.json");
      await restoreUsers(admin, usersFile);
      const saver = keepUsersSaved(admin, usersFile);
      stops.push(() => saver.stop());
    }
    await seedDemoAccounts(admin);

    return {
      env: {
        FIREBASE_PROJECT_ID: options.projectId,
        FIREBASE_AUTH_EMULATOR_HOST: auth.hostPort,
        FIRESTORE_EMULATOR_HOST: firestore.hostPort,
        DATABASE_URL: databaseUrl,
        ...(databasePoolSize ? { DATABASE_POOL_SIZE: databasePoolSize } : {}),
      },
      admin,
      authLogPath: auth.logPath,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export function resetDataDir(dataDir: string) {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
