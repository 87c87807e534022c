/** `/api/v1/reports`. */
export class Reports {
    transport;
    constructor(transport) {
        this.transport = transport;
    }
    /** Time per phase across onboardings (visits that ended in `[from, to)`) and launches against their targets. */
    phaseDurations(params = {}, options) {
        return this.transport.request({ method: "GET", path: "/api/v1/reports/phase_durations", query: params }, options);
    }
}
