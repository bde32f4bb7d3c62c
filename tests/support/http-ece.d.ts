/** http_ece (web-push's encryption, RFC 8188) has no types of its own: what tests/support/push-service.ts uses of it. */
declare module "http_ece" {
  import type { ECDH } from "node:crypto";
  interface Params {
    version?: "aes128gcm" | "aesgcm" | "aesgcm128";
    privateKey?: ECDH;
    dh?: string | Buffer;
    authSecret?: string | Buffer;
    salt?: string | Buffer;
    keyid?: string | Buffer;
    rs?: number;
  }
  const ece: { decrypt(buffer: Buffer, params: Params): Buffer; encrypt(buffer: Buffer, params: Params): Buffer };
  export default ece;
}
