import { deleteApp, initializeApp, type App } from "firebase-admin/app";
import { getAuth } from "firebase-admin/auth";
import { getFirestore } from "firebase-admin/firestore";

/**
 * A firebase-admin app for scripts and tests, pointed at the emulators
 * through the standard variables (set here, before the SDK reads them).
 */
export function emulatorAdmin(projectId: string, authHost: string, firestoreHost: string) {
  process.env.FIREBASE_AUTH_EMULATOR_HOST = authHost;
  process.env.FIRESTORE_EMULATOR_HOST = firestoreHost;
  process.env.METADATA_SERVER_DETECTION ??= "none";
  const app: App = initializeApp({ projectId }, `script-${Math.random().toString(36).slice(2)}`);
  let closed: Promise<void> | undefined;
  return {
    auth: getAuth(app),
    firestore: getFirestore(app),
    close: () => (closed ??= deleteApp(app)),
  };
}

export type EmulatorAdmin = ReturnType<typeof emulatorAdmin>;
