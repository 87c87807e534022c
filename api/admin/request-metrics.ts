import type { Registry } from "prom-client";

/** Latency buckets, in seconds: sub-millisecond resolution where an API request lands. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1] as const;

interface Series {
  method: string;
  route: string;
  status: string;
  count: number;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  buckets: Float64Array;
  sum: number;
}

type Value = { metricName?: string; labels: Record<string, string | number>; value: number };

/**
 * `http_requests_total` and `http_request_duration_seconds`, recorded on every request. Each
 * series (method, route, status) is one object found by a string key, updated with two
 * additions; the exposition is built at scrape time. prom-client's own Counter and Histogram
 * hash a label object on every call, which measured ~5% of a read request's CPU.
 * Registered in the app's prom-client registry, so /metrics renders them with the rest.
 */
export function createRequestMetrics(registry: Registry) {
  const series = new Map<string, Series>();
  /** Times the registry reset the series (`forRoute`'s observers drop what they kept). */
  let resets = 0;
  const reset = () => {
    series.clear();
    resets++;
  };

  function seriesOf(method: string, route: string, status: number): Series {
    const key = `${method} ${route} ${status}`;
    let one = series.get(key);
    if (!one) {
      one = { method, route, status: String(status), count: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0 };
      series.set(key, one);
    }
    return one;
  }

  function add(s: Series, seconds: number): void {
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    s.buckets[i]!++;
  }

  registry.registerMetric({
    name: "http_requests_total",
    help: "API requests by route, method and status.",
    type: "counter",
    aggregator: "sum",
    get: () => ({
      name: "http_requests_total",
      help: "API requests by route, method and status.",
      type: "counter",
      aggregator: "sum",
      values: [...series.values()].map((s): Value => ({ labels: { method: s.method, route: s.route, status: s.status }, value: s.count })),
    }),
    reset,
  } as never);

  registry.registerMetric({
    name: "http_request_duration_seconds",
    help: "API request latency by route and method.",
    type: "histogram",
    aggregator: "sum",
    get: () => {
      // The histogram's labels are method and route: series that differ only by status add up.
      const byRoute = new Map<string, { method: string; route: string; buckets: Float64Array; count: number; sum: number }>();
      for (const s of series.values()) {
        const key = `${s.method} ${s.route}`;
        let r = byRoute.get(key);
        if (!r) byRoute.set(key, (r = { method: s.method, route: s.route, buckets: new Float64Array(LATENCY_BUCKETS.length + 1), count: 0, sum: 0 }));
        for (let i = 0; i < s.buckets.length; i++) r.buckets[i]! += s.buckets[i]!;
        r.count += s.count;
        r.sum += s.sum;
      }
      const values: Value[] = [];
      for (const r of byRoute.values()) {
        const labels = { method: r.method, route: r.route };
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += r.buckets[i]!;
          values.push({ metricName: "http_request_duration_seconds_bucket", labels: { ...labels, le }, value: cumulative });
        });
        values.push({ metricName: "http_request_duration_seconds_bucket", labels: { ...labels, le: "+Inf" }, value: r.count });
        values.push({ metricName: "http_request_duration_seconds_sum", labels, value: r.sum });
        values.push({ metricName: "http_request_duration_seconds_count", labels, value: r.count });
      }
      return { name: "http_request_duration_seconds", help: "API request latency by route and method.", type: "histogram", aggregator: "sum", values };
    },
    reset,
  } as never);

  return {
    /**
     * One route's observer: its series found by status alone, a small number, where a lookup by
     * a text key built per request cost a few percent of a read's time (in the profile and from
     * outside: bench/RESULTS.md, issue #26's twenty-fourth pass). Observers of one route share
     * its series.
     */
    forRoute(method: string, route: string): (status: number, seconds: number) => void {
      const byStatus = new Map<number, Series>();
      let seen = resets;
      return (status, seconds) => {
        // The registry's `reset` emptied `series`: what was kept here counts no more.
        if (seen !== resets) {
          byStatus.clear();
          seen = resets;
        }
        let one = byStatus.get(status);
        if (one === undefined) byStatus.set(status, (one = seriesOf(method, route, status)));
        add(one, seconds);
      };
    },
  };
}
