import { Type, type Static } from "@sinclair/typebox";
import { ListOf, pageQuery } from "../http/pagination.ts";
import { Deleted, DateTime, Nullable, StrictObject, refParam } from "../http/schema-kit.ts";

const name = Type.String({ minLength: 1, maxLength: 200, examples: ["Ada Lovelace"] });
const email = Nullable(Type.String({ format: "email", maxLength: 254, examples: ["ada@acme.example"] }));
const title = Nullable(Type.String({ maxLength: 200, examples: ["Head of Operations"] }));
const isPrimary = Type.Boolean({
  description: "At most one contact per customer is primary: making one primary clears the previous one.",
});

export const Contact = Type.Object(
  {
    object: Type.Literal("contact"),
    id: Type.String({ examples: ["con_01JDQ40B2C3D4E5F6G7H8J9K0M"] }),
    display_id: Type.Integer({ minimum: 1 }),
    customer_id: Type.String(),
    name: Type.String(),
    email: Nullable(Type.String()),
    title: Nullable(Type.String()),
    is_primary: Type.Boolean(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: "Contact" },
);
export type ContactResource = Static<typeof Contact>;

export const ContactList = ListOf(Contact, "ContactList");
export const DeletedContact = Deleted("contact", "con_01JDQ40B2C3D4E5F6G7H8J9K0M");

export const CreateContactBody = StrictObject(
  { name, email: Type.Optional(email), title: Type.Optional(title), is_primary: Type.Optional(isPrimary) },
  { $id: "CreateContact" },
);
export type CreateContactInput = Static<typeof CreateContactBody>;

export const UpdateContactBody = StrictObject(
  {
    name: Type.Optional(name),
    email: Type.Optional(email),
    title: Type.Optional(title),
    is_primary: Type.Optional(isPrimary),
  },
  { $id: "UpdateContact", description: "Omitted fields keep their values." },
);
export type UpdateContactInput = Static<typeof UpdateContactBody>;

export const CustomerContactsParams = StrictObject({ customer_ref: refParam("customer", "42") });
export const ContactRefParams = StrictObject({
  customer_ref: refParam("customer", "42"),
  contact_ref: refParam("contact", "7"),
});
export const ListContactsQuery = StrictObject({ ...pageQuery });
