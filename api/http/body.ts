import { DomainError } from "../../shared/errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The client went away while its body was arriving (a dropped connection, a reset). Nobody is
 * left to answer: the request is counted as a client disconnect, never as a server error.
 */
export class ClientDisconnected extends Error {
  override name = "ClientDisconnected";
}

const tooLarge = () =>
  new DomainError("body_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);

const isJsonType = (contentType: string) => {
  const type = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
};

/** Reads at most MAX_BODY_BYTES, refusing larger bodies before they are held whole. */
async function readCapped(request: Request): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  // A declared length within the cap is all the body can be (HTTP framing ends it there): read
  // whole, in one call, instead of chunk by chunk through the stream's async iterator (~5% of
  // a create's CPU under load). A body sent chunked, with no length, is counted as it comes.
  if (declared !== null) {
    try {
      return await request.bytes();
    } catch (error) {
      throw new ClientDisconnected(`the client disconnected while sending its body (${(error as Error)?.message ?? error})`);
    }
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // The stream is the client's: a failure while reading it is the connection ending early.
    throw new ClientDisconnected(`the client disconnected while sending its body (${(error as Error)?.message ?? error})`);
  }
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The JSON body of a request. An empty body reads as `{}` so that `PATCH` with nothing to
 * change, or `POST` whose fields are all optional, needs no ceremony; anything else must be
 * JSON, declared as such.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readCapped(request);
  if (bytes.byteLength === 0) return {};
  const contentType = request.headers.get("content-type");
  if (contentType === null || !isJsonType(contentType)) {
    throw new DomainError(
      "unsupported_media_type",
      `Request bodies must be JSON sent with 'Content-Type: application/json'${contentType ? ` (got '${contentType}')` : ""}.`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DomainError("invalid_json", "The request body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Includes a RangeError from absurd nesting: still the client's malformed input.
    throw new DomainError("invalid_json", "The request body is not valid JSON.");
  }
  inspectJson(value, "", 0);
  return value;
}

export const MAX_JSON_DEPTH = 32;

const at = (path: string) => path || "body";

/**
 * Refuses JSON that parses but could not be stored and returned unchanged: nesting deeper
 * than MAX_JSON_DEPTH, strings with NUL characters or unpaired surrogates (not valid UTF-8
 * in the database), and integers beyond ±2^53 (JSON parsers round them silently).
 */
function inspectJson(value: unknown, path: string, depth: number): void {
  if (typeof value === "string") {
    if (value.includes("\0")) throw new DomainError("invalid_string", `'${at(path)}' must not contain NUL characters.`, at(path));
    if (!value.isWellFormed()) throw new DomainError("invalid_string", `'${at(path)}' contains an unpaired surrogate.`, at(path));
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
      throw new DomainError("too_big", `'${at(path)}' is beyond ±2^53 and would not survive a JSON round trip.`, at(path));
    }
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (depth >= MAX_JSON_DEPTH) {
    throw new DomainError("too_big", `'${at(path)}' nests deeper than ${MAX_JSON_DEPTH} levels.`, at(path));
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => inspectJson(item, `${path}.${i}`.replace(/^\./, ""), depth + 1));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const child = path ? `${path}.${key}` : key;
    inspectJson(key, child, depth + 1);
    inspectJson(item, child, depth + 1);
  }
}
