import { DomainError } from "../../shared/errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

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
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
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
  try {
    return JSON.parse(text);
  } catch {
    // Includes a RangeError from absurd nesting: still the client's malformed input.
    throw new DomainError("invalid_json", "The request body is not valid JSON.");
  }
}
