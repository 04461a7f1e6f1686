/**
 * How deeply a JSON text nests, measured on the text itself in one pass without recursion, so a
 * body nested 100,000 levels costs a loop, never the stack (docs/api.md#errors).
 */

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when `text` opens more than `maxDepth` objects or arrays inside one another: `{}` and `[]`
 * are depth 1, `{"a":[1]}` depth 2, a bare number or string depth 0. Brackets inside strings do not
 * count. The text need not be valid JSON; the answer is then about its brackets outside quotes.
 * @param maxDepth the deepest nesting allowed (a count of levels)
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
    }
  }
  return false;
}
