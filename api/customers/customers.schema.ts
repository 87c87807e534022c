import { Type, type Static } from "@sinclair/typebox";
import { CUSTOMER_STATUSES, SLUG_MAX_LENGTH, SLUG_PATTERN } from "../../shared/domain.ts";
import { ListOf, pageQuery } from "../http/pagination.ts";
import { Deleted, DateTime, Nullable, StrictObject, StringEnum, refParam } from "../http/schema-kit.ts";

export const METADATA_MAX_BYTES = 16 * 1024;

const name = Type.String({ minLength: 1, maxLength: 200, examples: ["Acme Corp"] });
const slug = Type.String({
  pattern: SLUG_PATTERN,
  maxLength: SLUG_MAX_LENGTH,
  description: "lowercase letters and digits in groups joined by single hyphens, at most 64 characters",
  examples: ["acme-corp"],
});
const domain = Nullable(Type.String({ format: "hostname", maxLength: 253, examples: ["acme.example"] }));
const status = StringEnum(CUSTOMER_STATUSES, { description: "Defaults to `onboarding`." });
const metadata = Type.Record(Type.String(), Type.Unknown(), {
  maxProperties: 50,
  description: "Free-form JSON object: at most 50 keys and 16 KiB serialised; stored and returned unchanged, never interpreted.",
  examples: [{ crm_id: "0015g00000XyZ" }],
});

export const Customer = Type.Object(
  {
    object: Type.Literal("customer"),
    id: Type.String({ examples: ["cus_01JDQ3Z8X4T6W9N2K5M7P0R3S8"] }),
    display_id: Type.Integer({ minimum: 1, examples: [42] }),
    name: Type.String(),
    slug: Type.String(),
    domain: Nullable(Type.String()),
    status,
    metadata: Type.Record(Type.String(), Type.Unknown()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: "Customer" },
);
export type CustomerResource = Static<typeof Customer>;

export const CustomerList = ListOf(Customer, "CustomerList");
export const DeletedCustomer = Deleted("customer", "cus_01JDQ3Z8X4T6W9N2K5M7P0R3S8");

export const CreateCustomerBody = StrictObject(
  {
    name,
    slug: Type.Optional(slug),
    domain: Type.Optional(domain),
    status: Type.Optional(status),
    metadata: Type.Optional(metadata),
  },
  { $id: "CreateCustomer", description: "When `slug` is omitted it is derived from `name` and made unique with a numeric suffix." },
);
export type CreateCustomerInput = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = StrictObject(
  {
    name: Type.Optional(name),
    slug: Type.Optional(slug),
    domain: Type.Optional(domain),
    status: Type.Optional(status),
    metadata: Type.Optional(metadata),
  },
  { $id: "UpdateCustomer", description: "Omitted fields keep their values; `metadata` is replaced whole." },
);
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;

export const CustomerRefParams = StrictObject({ customer_ref: refParam("customer", "42") });

export const ListCustomersQuery = StrictObject({
  ...pageQuery,
  status: Type.Optional(StringEnum(CUSTOMER_STATUSES, { description: "Only customers with this status." })),
});
