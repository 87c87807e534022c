/**
 * Resources as JSON text, each at one version of its record, kept for the lists that show them
 * again (the rendered-fragment cache of the web's frameworks, keyed by record and version).
 *
 * A record's version is a value the database moves forward with every change of anything its
 * resource shows (an onboarding's `updated_at`: each change is at least 1 µs after the last,
 * under the row's lock), so a text is only ever used for the version it was written from: a
 * list reads its page's ids and versions from the database, and a record changed since, by
 * this process or any other, simply misses. Nothing is invalidated, and nothing stale can be
 * served: the database stays the truth, and this saves the work of turning the same rows into
 * the same text again. A record's older texts are replaced by its newer one; past `most`
 * records, the ones written longest ago go first.
 */
export interface RenderedResources {
  /** The record's text at `version`, if this process wrote it. */
  get(id: string, version: number): string | undefined;
  set(id: string, version: number, text: string): void;
}

/**
 * Records kept at most: ~10,000 onboardings' texts are about 8 MB, and a list's pages of the
 * same few hundred records (an integration polling its recent onboardings) fit many times over.
 */
export const RENDERED_MOST = 10_000;

export function createRenderedResources(most = RENDERED_MOST): RenderedResources {
  const texts = new Map<string, { version: number; text: string }>();
  return {
    get(id, version) {
      const kept = texts.get(id);
      return kept !== undefined && kept.version === version ? kept.text : undefined;
    },
    set(id, version, text) {
      // Deleted first, so the map's order stays the order of writing (the oldest first out).
      texts.delete(id);
      texts.set(id, { version, text });
      if (texts.size > most) texts.delete(texts.keys().next().value!);
    },
  };
}
