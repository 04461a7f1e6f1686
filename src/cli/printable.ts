/**
 * Text that developers wrote (business names, file names, answers, e-mail addresses…) made safe to
 * print in a reviewer's terminal: every character a terminal could act on is shown escaped, the way
 * JSON writes it (`\u001b`, `\r`, `\n`), so no stored string can move the cursor, clear the screen,
 * rewrite a line or reorder text. Backslashes are doubled, so what is shown reads back unambiguously.
 */

/**
 * Characters shown escaped: C0 and C1 controls and DEL (`\p{Cc}`: ESC, CR, the 8-bit CSI U+009B…),
 * the line and paragraph separators, and the bidirectional formatting characters (U+061C, U+200E,
 * U+200F, U+202A–U+202E, U+2066–U+2069) that reorder what follows them on screen.
 */
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const SHORT_FORMS: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function unicodeEscape(character: string): string {
  return `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

function escapeCharacter(character: string): string {
  return SHORT_FORMS[character] ?? unicodeEscape(character);
}

/**
 * `text` with every unsafe character escaped (`\u001b`, `\r`, `\n`, `\t`, `\u202e`…) and each
 * backslash doubled; printable text (letters of any script, emoji, punctuation) is left as it is.
 */
export function printable(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(UNSAFE, escapeCharacter);
}

/**
 * `value` as indented JSON safe to print: JSON.stringify escapes C0 controls but leaves DEL, the
 * C1 controls and the bidirectional characters as they are; those are escaped too (still valid JSON,
 * parsing gives back the stored strings).
 */
export function printableJson(value: unknown): string {
  // JSON.stringify escapes every C0 control inside strings, so a raw line feed is the indentation's own.
  return JSON.stringify(value, null, 2).replace(UNSAFE, (character) =>
    character === '\n' ? character : unicodeEscape(character),
  );
}
