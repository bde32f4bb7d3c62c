import { createRequire } from "node:module";
import { FirestoreServer } from "@firestore-emulator/server";

/**
 * A Firestore emulator in this process (Google's needs Java and a download;
 * ADR 003). Its own start() binds every interface, so we bind its gRPC
 * server to the given loopback host ourselves: local mode exposes nothing.
 * It keeps state in memory only; local mode saves users/{email} itself.
 */
const require = createRequire(import.meta.url);
const grpc = createRequire(require.resolve("@firestore-emulator/server"))("@grpc/grpc-js") as {
  ServerCredentials: { createInsecure(): unknown };
};

interface BindableServer {
  bindAsync(address: string, credentials: unknown, callback: (error: Error | null, port: number) => void): void;
}

export async function startFirestoreEmulator(host: string, port: number) {
  const emulator = new FirestoreServer();
  const inner = (emulator as unknown as { server: BindableServer }).server;
  await new Promise<void>((resolve, reject) =>
    inner.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return {
    hostPort: `${host}:${port}`,
    stop: () => emulator.stop(),
  };
}
