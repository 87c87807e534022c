/**
 * Code that talks to the stores is written once for both engines, as a generator: every store
 * call is `yield* store.method(...)`. On SQLite a statement answers plain values, and on
 * PostgreSQL promises; `run` drives a flow synchronously for as long as every
 * answer is a plain value, and turns asynchronous only at the first promise.
 *
 * Why not `async`/`await`: on SQLite one connection serves every request of a process, and a
 * transaction is only safe while nothing else runs on that connection. `await` always yields,
 * even on a plain value, so an `async` transaction would let other requests' statements run
 * inside it (and bun:sqlite would nest their transactions as savepoints of it). A flow over
 * SQLite never yields: its transaction is the same synchronous BEGIN … COMMIT as before, at the
 * same cost, and PostgreSQL gets real asynchronous transactions from the same code.
 */
export type Flow<T> = Generator<unknown, T, unknown>;

export type MaybePromise<T> = T | Promise<T>;

/** A store call's answer, plain or promised, as a step of a flow. */
export function* use<T>(answer: MaybePromise<T>): Flow<T> {
  return (yield answer) as T;
}

/**
 * A flow of one step that runs `exec` only when driven: what every store call answers, so a
 * call nobody `yield*`s does nothing, on either engine (see shared/db/sql.ts).
 */
export function* step<T>(exec: () => MaybePromise<T>): Flow<T> {
  return (yield exec()) as T;
}

/** Whether `value` is a flow (a generator object) rather than a plain answer. */
export function isFlow(value: unknown): value is Flow<unknown> {
  return typeof value === "object" && value !== null && typeof (value as Flow<unknown>).next === "function" && typeof (value as Flow<unknown>).throw === "function";
}

/**
 * Drives a flow to its end: synchronously while its steps answer plain values (SQLite), and as
 * a promise from the first step that answers one (PostgreSQL). A rejected step is thrown into
 * the flow at that point, so its `try`/`catch` work as in straight-line code.
 */
export function run<T>(flow: Flow<T>): MaybePromise<T> {
  let step = flow.next();
  while (!step.done) {
    if (step.value instanceof Promise) return continueAsync(flow, step.value);
    step = flow.next(step.value);
  }
  return step.value;
}

async function continueAsync<T>(flow: Flow<T>, pending: Promise<unknown>): Promise<T> {
  for (;;) {
    let answer: unknown;
    let failed = false;
    try {
      answer = await pending;
    } catch (error) {
      failed = true;
      answer = error;
    }
    // An error the flow itself raises (here or in a later synchronous step) ends it: rethrown.
    let step = failed ? flow.throw(answer) : flow.next(answer);
    while (!step.done && !(step.value instanceof Promise)) step = flow.next(step.value);
    if (step.done) return step.value;
    pending = step.value as Promise<unknown>;
  }
}

/**
 * Drives a flow that must finish without waiting: a SQLite transaction's body. A step that
 * answers a promise there is a programming error (a PostgreSQL store handed to SQLite, or
 * other asynchronous work inside a transaction); it throws, and the transaction rolls back.
 */
export function runSync<T>(flow: Flow<T>): T {
  let step = flow.next();
  while (!step.done) {
    if (step.value instanceof Promise) {
      step.value.catch(() => {});
      const error = new TypeError("A SQLite transaction's flow waited on a promise; its steps must answer synchronously.");
      flow.return(undefined as never);
      throw error;
    }
    step = flow.next(step.value);
  }
  return step.value;
}

type Answers<T extends readonly Flow<unknown>[]> = { -readonly [K in keyof T]: T[K] extends Flow<infer R> ? R : never };

/**
 * Runs several store calls at once and answers theirs in order. On PostgreSQL each is sent
 * before any answer is awaited, so inside a transaction they travel pipelined on its connection
 * and cost one round trip, not one each (a batch's first reads and locks: api/http/together.ts);
 * on SQLite they run one after the other, synchronously. A failure of any fails the step (the
 * transaction's failure, on PostgreSQL, is then the first statement's: shared/db/sql.ts).
 */
export function* together<T extends readonly Flow<unknown>[]>(...flows: T): Flow<Answers<T>> {
  const answers = flows.map((flow) => run(flow));
  if (!answers.some((answer) => answer instanceof Promise)) return answers as Answers<T>;
  return (yield Promise.all(answers)) as Answers<T>;
}

/** Either a flow or a plain/promised value (route handlers may answer any), settled like `run`. */
export function settle(value: unknown): unknown {
  return isFlow(value) ? run(value) : value;
}


/** A store whose calls answer promises: for plain asynchronous code (pages, loops, the command line) that does not run inside a flow. */
export type Driven<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Flow<infer T> ? (...args: A) => Promise<T> : S[K];
};

/** `store` with each call driven at once (`run`) and answered as a promise. */
export function driven<S extends object>(store: S): Driven<S> {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store)) {
    out[name] = typeof method === "function" ? (...args: unknown[]) => Promise.resolve(run((method as (...a: unknown[]) => Flow<unknown>)(...args))) : method;
  }
  return out as Driven<S>;
}
