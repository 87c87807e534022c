import { promises as dns } from "node:dns";
import ipaddr from "ipaddr.js";

/**
 * Where a webhook may be sent (the contract's outbound safety rules). A URL is checked when an
 * endpoint is created or changed, and again at every send against every address its host
 * resolves to; the delivery then connects to an address that passed (worker/webhooks/post.ts),
 * so a name that resolves elsewhere between the check and the connection (DNS rebinding)
 * reaches nothing it was not allowed to.
 */
export interface OutboundRules {
  /** `WEBHOOK_ALLOW_HTTP=true`: plain http:// too (development, tests). */
  allowHttp: boolean;
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`: loopback and private addresses too (never link-local). */
  allowPrivateNetworks: boolean;
  /** `WEBHOOK_DNS_SERVERS=host:port,…`: ask these servers rather than the system's resolver. */
  dnsServers: string[] | null;
}

export const rulesFrom = (env: Record<string, string | undefined>): OutboundRules => ({
  allowHttp: env.WEBHOOK_ALLOW_HTTP === "true",
  allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
  dnsServers: env.WEBHOOK_DNS_SERVERS ? env.WEBHOOK_DNS_SERVERS.split(",").map((s) => s.trim()).filter(Boolean) : null,
});

/** A URL or address the rules refuse; the message says why, for an API error or an attempt's `error`. */
export class UrlNotAllowed extends Error {}

const MAX_URL_LENGTH = 2048;
const RESOLVE_TIMEOUT_MS = 5000;

/** The URL's form: scheme, no credentials, a host; a literal address is checked here too. */
export function checkUrl(raw: string, rules: OutboundRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowed("'url' must be an absolute URL.");
  }
  if (raw.length > MAX_URL_LENGTH) throw new UrlNotAllowed(`'url' must be at most ${MAX_URL_LENGTH} characters.`);
  if (url.protocol !== "https:" && !(rules.allowHttp && url.protocol === "http:")) throw new UrlNotAllowed("'url' must use https://.");
  if (url.username || url.password) throw new UrlNotAllowed("'url' must not carry credentials; authenticate deliveries by their signature.");
  if (!url.hostname) throw new UrlNotAllowed("'url' must name a host.");
  // The URL parser has already turned decimal, hex and octal IPv4 forms into dotted ones.
  const literal = literalAddress(url.hostname);
  if (literal) checkAddress(literal, rules);
  return url;
}

/** Every address the URL's host resolves to, each allowed; throws UrlNotAllowed naming the first that is not. */
export async function resolveAllowed(url: URL, rules: OutboundRules): Promise<{ address: string; family: 4 | 6 }[]> {
  const literal = literalAddress(url.hostname);
  const addresses = literal ? [literal] : await resolve(url.hostname, rules);
  if (addresses.length === 0) throw new UrlNotAllowed(`${url.hostname} resolves to no address.`);
  return addresses.map((address) => {
    checkAddress(address, rules);
    return { address, family: ipaddr.parse(address).kind() === "ipv6" ? 6 : 4 };
  });
}

/** Ranges WEBHOOK_ALLOW_PRIVATE_NETWORKS opens: a receiver on the operator's own machine or network. */
const PRIVATE_RANGES = new Set(["loopback", "private", "uniqueLocal"]);

/** ipaddr.js's range names as a sentence says them. */
const RANGE_NAMES: Record<string, string> = {
  linkLocal: "a link-local",
  uniqueLocal: "a unique local",
  carrierGradeNat: "a carrier-grade NAT",
  ipv4Mapped: "an IPv4-mapped",
  rfc6145: "a translated (RFC 6145)",
  rfc6052: "a translated (RFC 6052)",
  "6to4": "a 6to4",
  teredo: "a Teredo",
  unspecified: "an unspecified",
  amt: "an AMT",
};

/**
 * Only globally routable unicast space; IPv4-mapped IPv6 is judged as the IPv4 address it
 * carries. Link-local space (169.254.0.0/16, fe80::/10) stays closed even when private networks
 * are allowed: it is where cloud metadata services answer, and no receiver lives there.
 */
function checkAddress(address: string, rules: OutboundRules): void {
  const range = ipaddr.process(address).range();
  if (range === "unicast" || (rules.allowPrivateNetworks && PRIVATE_RANGES.has(range))) return;
  throw new UrlNotAllowed(`${address} is ${RANGE_NAMES[range] ?? `a ${range}`} address: webhooks go only to public addresses.`);
}

function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

async function resolve(hostname: string, rules: OutboundRules): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UrlNotAllowed(`${hostname} did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s.`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([lookup(hostname, rules), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function lookup(hostname: string, rules: OutboundRules): Promise<string[]> {
  const missing = (error: unknown) => {
    const code = (error as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA" || code === "NXDOMAIN") return [] as string[];
    throw new UrlNotAllowed(`${hostname} could not be resolved (${code ?? (error as Error).message}).`);
  };
  if (rules.dnsServers) {
    const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
    resolver.setServers(rules.dnsServers);
    const [v4, v6] = await Promise.all([resolver.resolve4(hostname).catch(missing), resolver.resolve6(hostname).catch(missing)]);
    return [...v4, ...v6];
  }
  const found = await dns.lookup(hostname, { all: true, verbatim: true }).catch(missing);
  return found.map((entry) => (typeof entry === "string" ? entry : entry.address));
}
