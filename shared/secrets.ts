import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Workspace secrets at rest (the Slack bot token): AES-256-GCM under a key derived from
 * SECRET_KEY with HKDF, stored as `v1:<base64 of iv | tag | ciphertext>`.
 */
const deriveKey = (secretKey: string) =>
  Buffer.from(hkdfSync("sha256", secretKey, "customer-onboarding-service", "workspace-secret:v1", 32));

export function encryptSecret(secretKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(secretKey), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")}`;
}

/** Throws when the value was sealed under another SECRET_KEY or was tampered with. */
export function decryptSecret(secretKey: string, sealed: string): string {
  if (!sealed.startsWith("v1:")) throw new Error("unknown secret format");
  const bytes = Buffer.from(sealed.slice(3), "base64");
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(secretKey), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
}

/** A random secret of `bytes` bytes, URL-safe. */
export const randomSecret = (bytes = 32) => randomBytes(bytes).toString("base64url");
