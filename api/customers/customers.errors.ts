import { DomainError } from "../../shared/errors.ts";

/** Another live customer of the workspace has this slug. */
export const slugTaken = (slug: string) => new DomainError("slug_taken", `A customer with slug '${slug}' already exists.`, "slug");
