import type { RequestOptions, Transport } from "../transport.js";
import type { PhaseDurationReport, PhaseDurationReportParams } from "../types.js";

/** `/api/v1/reports`. */
export class Reports {
  constructor(private readonly transport: Transport) {}

  /** Time per phase across onboardings (visits that ended in `[from, to)`) and launches against their targets. */
  phaseDurations(params: PhaseDurationReportParams = {}, options?: RequestOptions): Promise<PhaseDurationReport> {
    return this.transport.request({ method: "GET", path: "/api/v1/reports/phase_durations", query: params }, options);
  }
}
