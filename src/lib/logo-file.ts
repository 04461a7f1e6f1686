/**
 * What an uploaded logo is (docs/branding.md#logo), read from its bytes only, never from its name or declared type:
 * PNG and JPEG by their signatures with the maintained `file-type` library; SVG by parsing the text as XML (a
 * well-formed document whose root is an SVG `<svg>` element) and then sanitising it with DOMPurify on a jsdom window,
 * so no script, event handler, `<foreignObject>`, `<style>` element, link or animation, and no reference outside the
 * file (`href`, `xlink:href` or `url(…)` to anything but a `#fragment` of itself) survives. A document type
 * declaration (`<!DOCTYPE`, entities) is refused outright rather than expanded.
 */
import type { DOMPurify } from 'dompurify';
import { fileTypeFromBuffer } from 'file-type';
import type { JSDOM as JsdomClass, ParsedElement, ParsedWindow } from 'jsdom';
import { MAX_LOGO_BYTES, type LogoContentType } from '../domain/branding';
import { DomainError } from '../domain/errors';

/** A logo fit to store: its type as detected, and its bytes (an SVG's sanitised text). */
export interface InspectedLogo {
  contentType: LogoContentType;
  bytes: Buffer;
}

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/** What the SVG check works with: jsdom's parser, the window DOMPurify works in, and the configured sanitiser. */
interface SvgTools {
  JSDOM: typeof JsdomClass;
  window: ParsedWindow;
  purifier: DOMPurify;
}

let svgTools: Promise<SvgTools> | undefined;

/**
 * jsdom and DOMPurify, loaded on the first SVG (most processes never see one, and jsdom is large); jsdom runs no
 * script and fetches nothing by default.
 */
function loadSvgTools(): Promise<SvgTools> {
  svgTools ??= (async () => {
    const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
    const window = new JSDOM('').window;
    const purifier = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
    purifier.addHook('uponSanitizeAttribute', keepOnlyInsideReferences);
    return { JSDOM, window, purifier };
  })();
  return svgTools;
}

/** Elements removed with their content, besides what DOMPurify's SVG profile already leaves out. */
const FORBIDDEN_ELEMENTS = ['foreignObject', 'style', 'a', 'animate', 'set', 'animateMotion', 'animateTransform'];

/** True when every `url(…)` in `value` points into the file itself (`url(#id)`). */
function urlsStayInside(value: string): boolean {
  return [...value.matchAll(/url\(\s*(['"]?)([^)'"]*)\1\s*\)/gi)].every((match) => (match[2] ?? '').startsWith('#'));
}

/** DOMPurify's attribute hook: drops links and references out of the file, and styles that import or run code. */
function keepOnlyInsideReferences(
  _node: unknown,
  data: { attrName: string; attrValue: string; keepAttr: boolean },
): void {
  const name = data.attrName.toLowerCase();
  const value = data.attrValue.trim();
  if ((name === 'href' || name.endsWith(':href')) && !value.startsWith('#')) data.keepAttr = false;
  if (/url\(/i.test(value) && !urlsStayInside(value)) data.keepAttr = false;
  if (name === 'style' && /@import|expression\s*\(|javascript:/i.test(value)) data.keepAttr = false;
}

/** The refusal of a logo, naming the field (docs/api.md#errors). */
function notALogo(message: string): DomainError {
  return new DomainError('unsupported_file_type', message, [{ field: 'logo', message }], 400);
}

/** The 413 of a logo over {@link MAX_LOGO_BYTES}, naming the field. */
export function logoTooLarge(): DomainError {
  const message = `logo must be at most 512 kB (${MAX_LOGO_BYTES} bytes)`;
  return new DomainError('file_too_large', message, [{ field: 'logo', message }], 413);
}

/** Whether the sanitised `svg` still holds anything the sanitiser should have removed (a second, independent look). */
function stillUnsafe(svg: ParsedElement): boolean {
  for (const element of [svg, ...svg.querySelectorAll('*')]) {
    if (['script', 'foreignobject', 'iframe', 'object', 'embed'].includes(element.localName.toLowerCase())) return true;
    for (const attribute of element.attributes) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith('on')) return true;
      if ((name === 'href' || name.endsWith(':href')) && !attribute.value.trim().startsWith('#')) return true;
    }
  }
  return false;
}

/** The sanitised text of an SVG logo. @throws DomainError `unsupported_file_type` naming `logo` */
async function sanitizedSvg(bytes: Buffer): Promise<Buffer> {
  const refused = notALogo('logo must be a PNG, JPEG or SVG image; the file is none of these');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw refused;
  }
  if (/<!DOCTYPE\s+svg|<!ENTITY/i.test(text)) {
    throw notALogo('logo: an SVG with a document type declaration (<!DOCTYPE, entities) is not accepted');
  }
  if (/<!DOCTYPE/i.test(text)) throw refused; // an HTML page
  const { JSDOM, window, purifier } = await loadSvgTools();
  let root: ParsedElement;
  try {
    root = new JSDOM(text, { contentType: 'image/svg+xml' }).window.document.documentElement;
  } catch {
    throw refused; // not well-formed XML: an HTML page, a text file
  }
  if (root.namespaceURI !== SVG_NAMESPACE || root.localName !== 'svg') throw refused;
  const fragment = purifier.sanitize(text, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: FORBIDDEN_ELEMENTS,
    RETURN_DOM_FRAGMENT: true,
  });
  const svg = (fragment as { firstElementChild: ParsedElement | null }).firstElementChild;
  const count = (fragment as { childElementCount: number }).childElementCount;
  if (!svg || count !== 1 || svg.namespaceURI !== SVG_NAMESPACE || svg.localName !== 'svg' || stillUnsafe(svg)) {
    throw notALogo('logo: the SVG has nothing left to show once scripts and external references are removed');
  }
  return Buffer.from(new window.XMLSerializer().serializeToString(svg), 'utf8');
}

/**
 * The logo `bytes` are (docs/branding.md#logo): PNG or JPEG as uploaded, SVG sanitised.
 * @throws DomainError `unsupported_file_type` (400, naming `logo`) for an empty file or any other type (a GIF, an HTML
 *   page renamed `.png`, an SVG with a document type declaration); `file_too_large` (413) when a sanitised SVG is
 *   still over 512 kB
 */
export async function inspectLogo(bytes: Buffer): Promise<InspectedLogo> {
  if (bytes.length === 0) throw notALogo('logo is empty');
  const detected = await fileTypeFromBuffer(bytes);
  if (detected?.mime === 'image/png' || detected?.mime === 'image/jpeg') {
    return { contentType: detected.mime, bytes };
  }
  if (detected && detected.mime !== 'application/xml') {
    throw notALogo(`logo must be a PNG, JPEG or SVG image; the file is ${detected.mime}`);
  }
  const svg = await sanitizedSvg(bytes);
  if (svg.length > MAX_LOGO_BYTES) throw logoTooLarge();
  return { contentType: 'image/svg+xml', bytes: svg };
}
