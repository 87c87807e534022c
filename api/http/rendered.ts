/**
 * Resources as JSON text, each at one version of its record, kept for the reads that show them
 * again, the lists and the GET of one (the rendered-fragment cache of the web's frameworks,
 * keyed by record and version).
 *
 * A record's version is a value the database moves forward with every change of anything its
 * resource shows (an onboarding's `updated_at`: each change is at least 1 µs after the last,
 * under the row's lock), so a text is only ever used for the version it was written from: a
 * read takes its records' ids and versions from the database first, and a record changed
 * since, by this process or any other, simply misses. Nothing is invalidated, and nothing stale
 * can be served: the database stays the truth, and this saves the work of turning the same rows
 * into the same text again, as long as versions only move forward: a database restored from a
 * backup under running processes could bring older versions back, and a restore stops every
 * process first (README, "Backups"). Past `budget` characters of text in all, the records first
 * kept longest ago go first.
 *
 * Reading versions first pays only when the records are mostly kept already (a record or a
 * page read again and again: an integration polling an onboarding, or its recent ones). Reads
 * of records seen once each would pay that read for nothing, so each kind of read (the lists,
 * the GET of one) keeps its own `KeptShare`: how often it found what it read kept, and so
 * whether to read versions first; a read made whole says as much, since its rows are looked up
 * here too.
 */
export interface RenderedResources {
  /** The record's text at `version`, if this process wrote it. */
  get(id: string, version: number): string | undefined;
  set(id: string, version: number, text: string): void;
  /**
   * Notes that a read made after `scope`'s revision was `revision` found the record `id` at
   * `version` (where a scope's revision moves forward with every change of any of its records,
   * in the change's transaction: a workspace's onboarding revision on SQLite). Nothing is noted
   * unless the text kept for the record is at that version.
   */
  confirm(id: string, version: number, scope: string, revision: number): void;
  /**
   * The record's text, if a read noted it (`confirm`) under the same scope at `revision`: the
   * scope's revision is the same now, so none of its records changed since that read, and the
   * text is the record's current one without reading its version.
   */
  current(id: string, scope: string, revision: number): string | undefined;
  /**
   * Notes that, at `scope`'s `revision`, `name` named the record `id` (an onboarding's
   * `display_id` in its workspace). Like `confirm`, by the read that found it.
   */
  name(scope: string, name: string, id: string, revision: number): void;
  /** The record `name` named in `scope`, if noted (`name`) at `revision`: no record of the scope changed since, so it names it still. */
  named(scope: string, name: string, revision: number): string | undefined;
}

/** How often one kind of read found every record it showed kept (see `RenderedResources`). */
export interface KeptShare {
  /** A read found every record it showed kept (true) or not. */
  note(allKept: boolean): void;
  /** Whether recent reads of this kind mostly found their records kept: then the next reads versions first. */
  expected(): boolean;
}

/** The texts and how often a kind of read finds them: what a reader of rendered resources is given. */
export interface Rendering {
  rendered: RenderedResources;
  kept: KeptShare;
}

/**
 * Characters of text kept at most, in all: about 10,000 onboardings of the usual size (~800
 * characters, 8 MB), so a list's pages of the same few hundred records (an integration polling
 * its recent onboardings) fit many times over. Counted in characters, not records: an
 * onboarding's `notes` may hold 10,000 characters, and escaped in JSON many more.
 */
export const RENDERED_BUDGET = 8_000_000;

/** Each read's weight in the running share of reads that found their records kept. */
const READ_WEIGHT = 0.1;

/** `longest`: a text longer than this is not kept (by default a fiftieth of the budget: ~160 onboardings' worth). */
/** Names kept at most (`RenderedResources.name`): about as many as the texts the budget holds, twice over. */
const MAX_NAMES = 20_000;

export function createRenderedResources(budget = RENDERED_BUDGET, longest = budget / 50): RenderedResources {
  const names = new Map<string, { id: string; revision: number }>();
  /** `scope` and `revision`: where and when a read last found the text's version current (`confirm`); null until one did. */
  const texts = new Map<string, { version: number; text: string; scope: string | null; revision: number }>();
  let characters = 0;
  return {
    get(id, version) {
      const kept = texts.get(id);
      return kept !== undefined && kept.version === version ? kept.text : undefined;
    },
    confirm(id, version, scope, revision) {
      const kept = texts.get(id);
      if (kept === undefined || kept.version !== version) return;
      kept.scope = scope;
      kept.revision = revision;
    },
    current(id, scope, revision) {
      const kept = texts.get(id);
      return kept !== undefined && kept.scope === scope && kept.revision === revision ? kept.text : undefined;
    },
    name(scope, name, id, revision) {
      const key = `${scope}\u0000${name}`;
      names.delete(key); // renewed names go last, so the oldest go first
      names.set(key, { id, revision });
      if (names.size > MAX_NAMES) names.delete(names.keys().next().value!);
    },
    named(scope, name, revision) {
      const named = names.get(`${scope}\u0000${name}`);
      return named !== undefined && named.revision === revision ? named.id : undefined;
    },
    set(id, version, text) {
      if (text.length > Math.min(budget, longest)) return;
      const before = texts.get(id);
      characters += text.length - (before?.text.length ?? 0);
      texts.set(id, { version, text, scope: null, revision: 0 }); // a new version keeps its record's place
      while (characters > budget) {
        const [oldest, kept] = texts.entries().next().value!;
        texts.delete(oldest);
        characters -= kept.text.length;
      }
    },
  };
}

export function createKeptShare(): KeptShare {
  let share = 0;
  return {
    note(allKept) {
      share += READ_WEIGHT * ((allKept ? 1 : 0) - share);
    },
    expected: () => share >= 0.5,
  };
}
