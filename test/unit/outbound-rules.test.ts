import { describe, expect, test } from "bun:test";
import { checkUrl, UrlNotAllowed, type OutboundRules } from "../../shared/webhooks/outbound-rules.ts";

const open: OutboundRules = { allowHttp: true, allowPrivateNetworks: true, dnsServers: null };
const allowed = (url: string) => {
  try {
    checkUrl(url, open);
    return true;
  } catch (error) {
    if (error instanceof UrlNotAllowed) return false;
    throw error;
  }
};

describe("WEBHOOK_ALLOW_PRIVATE_NETWORKS", () => {
  test("opens loopback and private space: a receiver on the operator's own machine or network", () => {
    for (const url of ["http://127.0.0.1:8080/x", "http://10.1.2.3/x", "http://192.168.1.20/x", "http://[::1]/x", "http://[fd00::1]/x"]) expect([url, allowed(url)]).toEqual([url, true]);
  });

  test("never link-local (cloud metadata), multicast or unspecified, in any spelling", () => {
    for (const url of ["http://169.254.169.254/latest/meta-data", "http://2852039166/x", "http://[::ffff:169.254.169.254]/x", "http://[fe80::1]/x", "http://224.0.0.1/x", "http://0.0.0.0/x"]) {
      expect([url, allowed(url)]).toEqual([url, false]);
    }
  });
});
