import type { FaultMode } from "./fault-proxy";

export type Backend = "identity" | "firestore" | "postgres";

/** Puts a backend's fault proxy (tests/support/global-setup.ts) in a mode. */
export async function setFault(backend: Backend, mode: FaultMode) {
  const response = await fetch(`${process.env.FAULT_CONTROL_URL}/${backend}/${mode}`, { method: "POST" });
  if (response.status !== 204) throw new Error(`Could not set ${backend} to ${mode}`);
}

export async function healAll() {
  await Promise.all(
    (["identity", "firestore", "postgres"] as const).flatMap((b) => [setFault(b, "pass"), setLatency(b, 0)]),
  );
}

/** Adds `ms` of delay to every chunk in each direction through a backend's proxy. */
export async function setLatency(backend: Backend, ms: number) {
  const response = await fetch(`${process.env.FAULT_CONTROL_URL}/${backend}/latency/${ms}`, { method: "POST" });
  if (response.status !== 204) throw new Error(`Could not set ${backend} latency`);
}
