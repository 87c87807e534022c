import type { Static, TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../../shared/errors.ts";
import type { Actor } from "../auth/actor.ts";
import type { Together } from "./together.ts";

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

type In<S> = S extends TSchema ? Static<S> : undefined;

export interface RequestInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  requestId: string;
  /** The request's `Idempotency-Key` (POST routes), or null. */
  idempotencyKey: string | null;
}

/** A response other than the route's documented success (readiness answering 503). */
export class Reply {
  constructor(readonly status: number, readonly body: unknown) {}
}

/**
 * A handler's answer already written as JSON, sent as it is: a page of resources rendered
 * earlier (api/http/rendered.ts). The text is the route's documented success, byte for byte
 * what `JSON.stringify` of its object would write.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

interface RouteDoc<P, Q, B> {
  method: Method;
  /** Elysia path syntax: `/api/v1/customers/:customer_ref`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** A realistic request body, shown in the reference's request samples (checked against `body` in tests). */
  bodyExample?: In<B>;
  success: { status: 200 | 201 | 202; description: string; schema: TSchema; example: unknown };
  /** Answers other than the success and the errors, returned as a `Reply` (readiness's 503). */
  otherResponses?: readonly { status: number; description: string; schema: TSchema; example: unknown }[];
  /** Codes this route can answer besides the ones every route shares. */
  errors: readonly ErrorCode[];
  /** How its changes are made together in batches (api/http/together.ts); without it, each request runs its handler alone. */
  together?: Together<RequestInput<In<P>, In<Q>, In<B>> & { actor: Actor }, any>;
}

/**
 * One object per endpoint. Its schemas validate the request, type the handler and write the
 * OpenAPI document; the shared security test walks every authenticated route from the list.
 */
export interface RouteDef<P = any, Q = any, B = any> extends RouteDoc<P, Q, B> {
  authenticated: boolean;
  /** POST routes take an `Idempotency-Key`; a handler that changes data answers a flow (shared/db/flow.ts), run inside the transaction. */
  idempotent: boolean;
  handler: (input: RequestInput<In<P>, In<Q>, In<B>> & { actor: Actor }) => unknown;
}

export function defineRoute<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  def: RouteDoc<P, Q, B> & {
    handler: (input: RequestInput<In<P>, In<Q>, In<B>> & { actor: Actor }) => unknown;
  },
): RouteDef<P, Q, B> {
  return { ...def, authenticated: true, idempotent: def.method === "POST" };
}

/** A route that needs no key (health, readiness, the OpenAPI document). */
export function definePublicRoute<Q extends TSchema | undefined = undefined>(
  def: RouteDoc<undefined, Q, undefined> & {
    handler: (input: RequestInput<undefined, In<Q>, undefined>) => unknown;
  },
): RouteDef<undefined, Q, undefined> {
  return { ...def, authenticated: false, idempotent: false };
}

/** `/a/:b` → `/a/{b}` */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");
