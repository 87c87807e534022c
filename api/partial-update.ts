/** Request field → row column, for every field a client may set on a resource. */
export type FieldMap<Row> = Readonly<Record<string, keyof Row & string>>;

/**
 * The one way a PATCH (and a create's optional fields) lands on a row: every field the input
 * carries is copied to its column; an absent (`undefined`) field keeps the row's value, while
 * `null` is a value like any other. `changed` says whether any column took a new value, so a
 * body that changes nothing can write nothing.
 */
export function applyFields<Row extends object>(current: Row, input: object, fields: FieldMap<Row>): { next: Row; changed: boolean } {
  const next = { ...current } as Record<string, unknown>;
  let changed = false;
  for (const [field, column] of Object.entries(fields)) {
    const value = (input as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (value !== next[column]) changed = true;
    next[column] = value;
  }
  return { next: next as Row, changed };
}
