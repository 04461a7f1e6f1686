/**
 * The one rule for text this service accepts and stores (docs/limits.md#request-bodies): well-formed
 * Unicode (no lone UTF-16 surrogate) and no control character other than tab, CR and LF. The API
 * applies it to every string of every body, query and text header before anything is written or a
 * workflow starts; the payment workflow applies it again to a cancel's or refund's reason; the
 * database handle refuses any statement carrying text PostgreSQL cannot store as it is. Pure: safe
 * inside the workflow sandbox.
 */

/**
 * A UTF-16 surrogate without its partner (`"\ud800"` is valid JSON but no Unicode text): PostgreSQL's
 * jsonb refuses it (SQLSTATE 22P02) and a text column would store U+FFFD in its place.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** C0 control characters other than tab, LF and CR, and DEL. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** What is wrong with a text, if anything. */
export type TextFault = 'ill_formed' | 'control_character';

/** True when `value` holds a lone surrogate (is not well-formed Unicode). */
export function isIllFormed(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** The first fault of `value` under the text rule (see the module comment), or undefined when it is acceptable. */
export function textFault(value: string): TextFault | undefined {
  if (isIllFormed(value)) return 'ill_formed';
  if (CONTROL_CHARACTER.test(value)) return 'control_character';
  return undefined;
}

/** The message naming `field` for `fault` (docs/limits.md#request-bodies). */
export function textFaultMessage(field: string, fault: TextFault): string {
  return fault === 'ill_formed'
    ? `${field} must be well-formed Unicode text (it holds a lone surrogate such as \\ud800)`
    : `${field} must not contain control characters (only tab, CR and LF are allowed)`;
}

/**
 * True when `value` (a string, or any string inside nested arrays and objects, keys included, up to
 * `maxDepth` levels) cannot be stored by PostgreSQL as it is: a lone surrogate (silently replaced in
 * text, refused in jsonb) or a NUL (refused in text and jsonb).
 */
export function holdsUnstorableText(value: unknown, maxDepth = 16): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || isIllFormed(value);
  if (
    value === null ||
    typeof value !== 'object' ||
    maxDepth <= 0 ||
    value instanceof Date ||
    ArrayBuffer.isView(value)
  )
    return false;
  if (Array.isArray(value)) return value.some((item) => holdsUnstorableText(item, maxDepth - 1));
  return Object.entries(value).some(
    ([key, item]) => holdsUnstorableText(key, maxDepth - 1) || holdsUnstorableText(item, maxDepth - 1),
  );
}

/**
 * `value` with every string (nested, keys included) made storable: each lone surrogate and NUL becomes
 * U+FFFD. For text a provider sends us (failure messages, references, instructions), which we record
 * after the provider acted and so must never be refused (docs/payments.md#cancel-and-refund).
 */
export function storableText<T>(value: T, maxDepth = 16): T {
  if (typeof value === 'string')
    return (
      holdsUnstorableText(value) ? value.replace(new RegExp(`${LONE_SURROGATE.source}|\\u0000`, 'g'), '\uFFFD') : value
    ) as T;
  if (
    value === null ||
    typeof value !== 'object' ||
    maxDepth <= 0 ||
    value instanceof Date ||
    !holdsUnstorableText(value)
  )
    return value;
  if (Array.isArray(value)) return value.map((item: unknown) => storableText(item, maxDepth - 1)) as T;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [storableText(key, maxDepth - 1), storableText(item, maxDepth - 1)]),
  ) as T;
}

/**
 * `value` cut to at most `maxLength` UTF-16 code units without splitting a surrogate pair (the pair is left out whole).
 */
export function truncateText(value: string, maxLength: number): string {
  if (value.length <= maxLength) return value;
  const last = value.charCodeAt(maxLength - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLength - 1 : maxLength);
}
