import type { RequestOptions, Transport } from "../transport.js";
import type { PhaseDurationReport, PhaseDurationReportParams } from "../types.js";
/** `/api/v1/reports`. */
export declare class Reports {
    private readonly transport;
    constructor(transport: Transport);
    /** Time per phase across onboardings (visits that ended in `[from, to)`) and launches against their targets. */
    phaseDurations(params?: PhaseDurationReportParams, options?: RequestOptions): Promise<PhaseDurationReport>;
}
