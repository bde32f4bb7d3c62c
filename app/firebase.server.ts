import { cert, initializeApp, type App } from "firebase-admin/app";
import { getAuth, type Auth } from "firebase-admin/auth";
import { getFirestore, type Firestore } from "firebase-admin/firestore";
import { getConfig } from "./config.server";

/** The firebase-admin app, created once per process from the validated config. */
let app: App | undefined;

function adminApp(): App {
  if (app) return app;
  const config = getConfig();
  // firebase-admin finds the emulators through these variables; local mode
  // has defaults that may not be in the environment yet.
  if (config.authEmulatorHost) process.env.FIREBASE_AUTH_EMULATOR_HOST = config.authEmulatorHost;
  if (config.firestoreEmulatorHost) process.env.FIRESTORE_EMULATOR_HOST = config.firestoreEmulatorHost;
  // Without a credential the Google libraries probe a cloud metadata server
  // that does not exist here; the emulators need no credential.
  if (config.mode === "local") process.env.METADATA_SERVER_DETECTION ??= "none";
  // A name of its own per module instance: tests load this module afresh per
  // file, with other emulator addresses.
  app = initializeApp(
    {
      projectId: config.projectId,
      ...(config.serviceAccount ? { credential: cert(config.serviceAccount as Parameters<typeof cert>[0]) } : {}),
    },
    `nuvara-${process.pid}-${Date.now()}`,
  );
  return app;
}

export function adminAuth(): Auth {
  return getAuth(adminApp());
}

let firestore: Firestore | undefined;

export function adminFirestore(): Firestore {
  firestore ??= getFirestore(adminApp());
  return firestore;
}
