// `Intl.Segmenter` for the QuickJS engine, whose own is a stub that answers `segment(s)` with the
// string itself (so string-width, and with it cliui, yargs' commands and help, ora and boxen,
// threw). Graphemes follow UAX #29's extended grapheme cluster rules (CR LF, controls, Hangul
// syllables, extending and spacing marks, emoji ZWJ sequences, regional-indicator pairs);
// words follow its word rules in the common cases (letters, digits and marks run together, with
// an apostrophe, period or comma between letters or digits; horizontal space runs together;
// other characters stand alone; a run of Han, katakana or hiragana is one word, where ICU would
// use a dictionary);
// sentences end after `.`, `!`, `?` (and their full-width forms) with the closing punctuation and
// spaces that follow. Locales do not change the answers. V8's own Segmenter (ICU) is left alone.

const EXTEND = /[\p{Mn}\p{Me}\u200C\u{1F3FB}-\u{1F3FF}\u{E0020}-\u{E007F}\uFE00-\uFE0F]/u;
const SPACING_MARK = /\p{Mc}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}\u200B\u2060-\u2064\uFEFF]/u;
const REGIONAL = (c) => c >= 0x1f1e6 && c <= 0x1f1ff;
// Indic conjuncts (Unicode 15.1's GB9c): a consonant, a virama, then a consonant stay together.
const LINKER = /[\u094D\u09CD\u0ACD\u0B4D\u0C4D\u0D4D]/u;
const CONSONANT = /[\u0915-\u0939\u0958-\u095F\u0978-\u097F\u0995-\u09A8\u09AA-\u09B0\u09B2\u09B6-\u09B9\u09DC\u09DD\u09DF\u09F0\u09F1\u0A95-\u0AA8\u0AAA-\u0AB0\u0AB2\u0AB3\u0AB5-\u0AB9\u0AF9\u0B15-\u0B28\u0B2A-\u0B30\u0B32\u0B33\u0B35-\u0B39\u0B5C\u0B5D\u0B5F\u0B71\u0C15-\u0C28\u0C2A-\u0C39\u0C58-\u0C5A\u0D15-\u0D3A]/u;
const ZWJ = 0x200d;

// Hangul jamo and syllables: L, V, T, LV, LVT.
function hangul(c) {
  if ((c >= 0x1100 && c <= 0x115f) || (c >= 0xa960 && c <= 0xa97c)) return "L";
  if ((c >= 0x1160 && c <= 0x11a7) || (c >= 0xd7b0 && c <= 0xd7c6)) return "V";
  if ((c >= 0x11a8 && c <= 0x11ff) || (c >= 0xd7cb && c <= 0xd7fb)) return "T";
  if (c >= 0xac00 && c <= 0xd7a3) return (c - 0xac00) % 28 === 0 ? "LV" : "LVT";
  return null;
}

function joinsHangul(prev, next) {
  if (prev === "L") return next === "L" || next === "V" || next === "LV" || next === "LVT";
  if (prev === "LV" || prev === "V") return next === "V" || next === "T";
  if (prev === "LVT" || prev === "T") return next === "T";
  return false;
}

/** The extended grapheme clusters of `text`, as [start, end) offsets in UTF-16 units. */
function graphemes(text) {
  const out = [];
  let start = 0;
  let prev = null; // the previous code point's facts
  let riCount = 0; // regional indicators in a row
  let pictSeq = false; // inside ExtPict Extend* (ZWJ)?
  let conjunct = 0; // 1: after a consonant (and extends), 2: and a virama since
  for (let i = 0; i < text.length;) {
    const c = text.codePointAt(i);
    const ch = String.fromCodePoint(c);
    const cur = {
      c, cr: c === 13, lf: c === 10, control: CONTROL.test(ch) && c !== ZWJ && c !== 0x200c,
      extend: EXTEND.test(ch), spacing: SPACING_MARK.test(ch), zwj: c === ZWJ,
      pict: PICTOGRAPHIC.test(ch), ri: REGIONAL(c), hangul: hangul(c),
      consonant: CONSONANT.test(ch), linker: LINKER.test(ch),
    };
    let join = false;
    if (prev) {
      if (prev.cr && cur.lf) join = true;
      else if (prev.control || prev.cr || prev.lf || cur.control || cur.cr || cur.lf) join = false;
      else if (prev.hangul && cur.hangul && joinsHangul(prev.hangul, cur.hangul)) join = true;
      else if (cur.extend || cur.zwj || cur.spacing) join = true;
      else if (prev.zwj && cur.pict && pictSeq) join = true;
      else if (prev.ri && cur.ri && riCount % 2 === 1) join = true;
      else if (cur.consonant && conjunct === 2) join = true;
    }
    if (!join && prev) {
      out.push([start, i]);
      start = i;
    }
    riCount = cur.ri ? (join ? riCount + 1 : 1) : 0;
    if (cur.consonant) conjunct = 1;
    else if (cur.linker && conjunct) conjunct = 2;
    else if (!(cur.extend || cur.zwj)) conjunct = 0;
    if (cur.pict) pictSeq = true;
    else if (!(cur.extend || cur.zwj)) pictSeq = false;
    prev = cur;
    i += c > 0xffff ? 2 : 1;
  }
  if (prev) out.push([start, text.length]);
  return out;
}

const WORD = /[\p{L}\p{N}\p{M}\p{Pc}]/u;
const HAN = /\p{Ideographic}/u;
const HIRAGANA = /\p{Script=Hiragana}/u;
const KATAKANA = /[\p{Script=Katakana}\u30FC]/u;
const HSPACE = /[\p{Zs}\t]/u;
const MID = /['.,:\u2019\u00B7]/u; // between letters or digits, inside a word

/** Word segments of `text`: [start, end, isWordLike]. */
function words(text) {
  const clusters = graphemes(text);
  const out = [];
  const kind = (g) => {
    const ch = String.fromCodePoint(text.codePointAt(g[0]));
    if (HAN.test(ch)) return "han";
    if (KATAKANA.test(ch)) return "katakana";
    if (HIRAGANA.test(ch)) return "hiragana";
    if (WORD.test(ch)) return "word";
    if (HSPACE.test(ch)) return "space";
    return "other";
  };
  let i = 0;
  while (i < clusters.length) {
    const k = kind(clusters[i]);
    let j = i + 1;
    if (k === "word") {
      for (;;) {
        if (j < clusters.length && kind(clusters[j]) === "word") { j++; continue; }
        // An apostrophe, period, comma or colon between two word characters keeps the word.
        if (j + 1 < clusters.length && MID.test(text.slice(clusters[j][0], clusters[j][1])) && kind(clusters[j + 1]) === "word") {
          j += 2;
          continue;
        }
        break;
      }
    } else if (k !== "other") {
      // Space runs, and runs of one of Han, katakana or hiragana (ICU splits these by its
      // dictionary; one script's run is the nearest rule without one).
      while (j < clusters.length && kind(clusters[j]) === k) j++;
    }
    out.push([clusters[i][0], clusters[j - 1][1], k !== "space" && k !== "other"]);
    i = j;
  }
  return out;
}

const TERMINAL = /[.!?\u3002\uFF01\uFF1F]/u;
const CLOSE = /[\p{Pe}\p{Pf}"']/u;

/** Sentence segments of `text`: [start, end). */
function sentences(text) {
  const out = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    if (TERMINAL.test(text[i])) {
      let j = i + 1;
      while (j < text.length && TERMINAL.test(text[j])) j++;
      while (j < text.length && CLOSE.test(text[j])) j++;
      const spaced = j < text.length && /\s/u.test(text[j]);
      const from = j;
      while (j < text.length && /\s/u.test(text[j])) j++;
      // After a period, a lower-case letter goes on the same sentence ("e.g. this"), unless a
      // line ended between them.
      const paragraph = /[\n\r\u2029]/u.test(text.slice(from, j));
      const continues = !paragraph && text[i] === "." && /\p{Ll}/u.test(text[j] ?? "");
      if (!continues && (j >= text.length || spaced || /[\u3002\uFF01\uFF1F]/u.test(text[i]))) {
        out.push([start, j]);
        start = j;
      }
      i = j;
    } else if (text[i] === "\n" || text[i] === "\u2029") {
      out.push([start, i + 1]);
      start = i = i + 1;
    } else {
      i++;
    }
  }
  if (start < text.length) out.push([start, text.length]);
  return out;
}

const GRANULARITIES = ["grapheme", "word", "sentence"];

/** The Segmenter class, standing in for `Native` (the engine's stub, asked only for its default locale). */
export function make(Native) {
  class Segmenter {
    #locale; #granularity;
    constructor(locales, options = {}) {
      if (new.target === undefined) throw new TypeError("Constructor Intl.Segmenter requires 'new'");
      if (options !== undefined && (options === null || typeof options !== "object")) {
        throw new TypeError("Options must be an object");
      }
      const granularity = options?.granularity ?? "grapheme";
      if (!GRANULARITIES.includes(granularity)) {
        throw new RangeError(`Value ${granularity} out of range for Intl.Segmenter options property granularity`);
      }
      this.#granularity = granularity;
      const requested = Array.isArray(locales) ? locales[0] : locales;
      this.#locale = typeof requested === "string" ? requested : (Native ? new Native().resolvedOptions?.().locale : undefined) ?? "en-US";
    }
    static supportedLocalesOf(locales) {
      return (Array.isArray(locales) ? locales : locales === undefined ? [] : [locales]).map(String);
    }
    resolvedOptions() {
      return { locale: this.#locale, granularity: this.#granularity };
    }
    segment(input) {
      const text = String(input);
      const granularity = this.#granularity;
      const spans = granularity === "grapheme" ? graphemes(text) : granularity === "word" ? words(text) : sentences(text);
      const data = ([s, e, wordLike]) => {
        const d = { segment: text.slice(s, e), index: s, input: text };
        if (granularity === "word") d.isWordLike = wordLike;
        return d;
      };
      return {
        containing(index = 0) {
          const n = Number(index);
          const at = Number.isNaN(n) ? 0 : Math.trunc(n);
          const span = spans.find(([s, e]) => at >= s && at < e);
          return span ? data(span) : undefined;
        },
        *[Symbol.iterator]() {
          for (const span of spans) yield data(span);
        },
      };
    }
    get [Symbol.toStringTag]() { return "Intl.Segmenter"; }
  }
  return Segmenter;
}
