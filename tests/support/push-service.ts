import { createECDH, randomBytes, type ECDH } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import ece from "http_ece";

/**
 * A stand-in push service over real HTTP on 127.0.0.1 (docs/decisions/101),
 * and browsers' subscriptions to it: each device is its own endpoint
 * (/push/<name>), with a P-256 key pair and an auth secret made here as a
 * browser makes them, so a message it receives is decrypted with that
 * device's own keys (aes128gcm, RFC 8291) — what a real browser would show.
 * A device can be made to answer a status instead (410: the subscription is
 * gone).
 */

export interface PushDevice {
  name: string;
  /** As PushSubscription.toJSON() gives it, for POST /api/notifications. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  authSecret: Buffer;
}

export interface ReceivedPush {
  device: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PushService {
  url: string;
  received: ReceivedPush[];
  device(name: string): PushDevice;
  /** The status a device's endpoint answers from now on (201 unless set). */
  answer(name: string, status: number): void;
  /** The messages a device received, decrypted with its own keys. */
  messages(name: string): unknown[];
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const received: ReceivedPush[] = [];
  const statuses = new Map<string, number>();
  const devices = new Map<string, PushDevice>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const name = decodeURIComponent(new URL(request.url ?? "/", "http://push").pathname.replace(/^\/push\//, ""));
      const status = statuses.get(name) ?? 201;
      if (request.method === "POST" && status < 300) {
        received.push({ device: name, headers: request.headers, body: Buffer.concat(chunks) });
      }
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    received,
    device(name) {
      const known = devices.get(name);
      if (known) return known;
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const authSecret = randomBytes(16);
      const device: PushDevice = {
        name,
        ecdh,
        authSecret,
        subscription: {
          endpoint: `${url}/push/${encodeURIComponent(name)}`,
          keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: authSecret.toString("base64url") },
        },
      };
      devices.set(name, device);
      return device;
    },
    answer(name, status) {
      statuses.set(name, status);
    },
    messages(name) {
      const device = devices.get(name);
      if (!device) return [];
      return received
        .filter((push) => push.device === name)
        .map((push) => {
          const plain = ece.decrypt(push.body, {
            version: "aes128gcm",
            privateKey: device.ecdh,
            authSecret: device.authSecret.toString("base64url"),
          });
          return JSON.parse(plain.toString("utf8"));
        });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
