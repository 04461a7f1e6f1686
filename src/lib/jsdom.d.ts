/**
 * The part of jsdom's API the logo check uses (src/lib/logo-file.ts). The project compiles without the DOM library,
 * whose global types `@types/jsdom` would pull into every file, so the few shapes used are declared here.
 */
declare module 'jsdom' {
  /** An attribute of a parsed element. */
  export interface ParsedAttribute {
    readonly name: string;
    readonly value: string;
  }

  /** An element of a parsed document. */
  export interface ParsedElement {
    readonly namespaceURI: string | null;
    readonly localName: string;
    readonly attributes: Iterable<ParsedAttribute>;
    querySelectorAll(selectors: string): Iterable<ParsedElement>;
  }

  /** A jsdom window: the DOM an XML or HTML text was parsed into. */
  export interface ParsedWindow {
    readonly document: { readonly documentElement: ParsedElement };
    readonly XMLSerializer: new () => { serializeToString(node: ParsedElement): string };
  }

  /** A document parsed by jsdom; it runs no script and fetches nothing unless asked to. */
  export class JSDOM {
    constructor(text?: string, options?: { contentType?: string });
    readonly window: ParsedWindow;
  }
}
