/**
 * Comments cite the repository's own docs (`docs/<page>.md#<anchor>`) or say the point in their own
 * words: never a document outside the repository, a numbered decision of the team's notes, a
 * numbered rule of the team's guide, or an issue number, none of which a reader of this repository
 * can open. Every comment of the TypeScript and JavaScript sources is found with the TypeScript
 * parser's help (so strings, templates and regular expressions are never mistaken for comments) and
 * matched against {@link FORBIDDEN}; the second test proves each pattern finds what it is for and
 * leaves alone the look-alikes the sources hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** Folders whose sources are read, relative to the repository (bench/results holds measured output, not source). */
const FOLDERS = ['src', 'test', 'scripts', 'migrations', 'bench', 'clients', 'web/src'];
const SKIPPED = new Set(['node_modules', 'results', 'dist', 'var']);
const EXTENSIONS = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** What a comment must not cite, each with the name a failure shows. */
const FORBIDDEN: Array<{ name: string; pattern: RegExp }> = [
  { name: 'a decision id', pattern: /\bD\d{1,3}\b/ },
  { name: 'a document outside the repository', pattern: /\b(?:interface|decisions|runtime|style)\.md\b/i },
  { name: 'a shared folder outside the repository', pattern: /\/work\/shared\b/ },
  { name: "a rule of the team's guide", pattern: /\bstyle[ -](?:rule|guide)\b/i },
  { name: 'an issue number', pattern: /\bissues?\s*(?:#\s*)?\d+/i },
];

/** Every source file under {@link FOLDERS}, as absolute paths. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (EXTENSIONS.test(entry.name)) files.push(full);
    }
  };
  for (const folder of FOLDERS) walk(path.join(ROOT, folder));
  return files;
}

/** Syntax kinds whose text may hold `//` or `/*` without being a comment. */
const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.JsxText,
]);

/**
 * The comments of one source text, each with its 1-based line and its text (`//` and block
 * comments). The parser finds the literals (strings, templates, regular expressions, JSX text);
 * everything else that starts with `//` or `/*` is a comment.
 */
export function commentsOf(fileName: string, text: string): Array<{ line: number; text: string }> {
  const kind = fileName.endsWith('x')
    ? ts.ScriptKind.TSX
    : /\.[mc]?js$/.test(fileName)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const literalEnds = new Map<number, number>();
  const visit = (node: ts.Node) => {
    if (LITERALS.has(node.kind)) literalEnds.set(node.getStart(source), node.end);
    ts.forEachChild(node, visit);
  };
  visit(source);
  const comments: Array<{ line: number; text: string }> = [];
  let at = 0;
  while (at < text.length) {
    const literalEnd = literalEnds.get(at);
    if (literalEnd !== undefined && literalEnd > at) {
      at = literalEnd;
    } else if (text.startsWith('//', at) || text.startsWith('/*', at)) {
      const lineComment = text.startsWith('//', at);
      const close = lineComment ? text.indexOf('\n', at) : text.indexOf('*/', at + 2);
      const end = close === -1 ? text.length : lineComment ? close : close + 2;
      comments.push({ line: source.getLineAndCharacterOfPosition(at).line + 1, text: text.slice(at, end) });
      at = end;
    } else {
      at += 1;
    }
  }
  return comments;
}

/** The forbidden citations in one comment, by name. */
function citationsIn(comment: string): string[] {
  return FORBIDDEN.filter(({ pattern }) => pattern.test(comment)).map(({ name }) => name);
}

describe('comments cite docs/ anchors, never outside documents, decision ids or issue numbers', () => {
  it('no comment in the sources cites what a reader of the repository cannot open', () => {
    const found: string[] = [];
    const files = sourceFiles();
    expect(files.length).to.be.greaterThan(100);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      for (const comment of commentsOf(file, text)) {
        const relative = path.relative(ROOT, file);
        const lines = comment.text
          .split('\n')
          .map((line, offset) => ({ at: comment.line + offset, line: line.trim(), names: citationsIn(line) }));
        const cited = lines.filter(({ names }) => names.length > 0);
        // A citation broken over two lines ("issue" at the end of one, its number on the next).
        if (cited.length === 0 && citationsIn(comment.text).length > 0)
          cited.push({ at: comment.line, line: comment.text, names: citationsIn(comment.text) });
        for (const { at, line, names } of cited) {
          found.push(`${relative}:${at}: ${names.join(', ')}: ${line}`);
        }
      }
    }
    expect(found, found.join('\n')).to.deep.equal([]);
  });

  it('each pattern finds its citation in a comment and leaves strings, code and look-alikes alone', () => {
    const cited = [
      '/** Payment statuses (interface.md, States). */',
      '// see decisions.md',
      '/* as D12 amended says */',
      '// the runtime.md notes',
      '/** once per run (style rule 10) */',
      '// only reader of the environment (style guide)',
      '// issue 15 item 9',
      '// fixed in Issue #26',
      '// see /work/shared/spec',
    ];
    for (const comment of cited) {
      const found = commentsOf('fixture.ts', `${comment}\nexport const x = 1;\n`);
      expect(found, comment).to.have.length(1);
      expect(citationsIn(found[0]!.text), comment).to.not.deep.equal([]);
    }
    const clean = [
      "const spec = 'interface.md'; // a string is not a comment",
      'const re = /D12|issue 5/; // a regular expression is not a comment',
      'const t = `/* issue 5 */ D12`; // nor is a template',
      '// a 2D grid, a 3DS check, PDF12, the D-Bus, an ID1 field, docs/payments.md#idempotency',
      '// tissue 5, issues found, the issuer, an issued refund',
      '// DEV12 and CD123 are not decision ids; neither is D1234',
    ];
    for (const code of clean) {
      const comments = commentsOf('fixture.ts', `${code}\n`);
      expect(
        comments.flatMap((c) => citationsIn(c.text)),
        code,
      ).to.deep.equal([]);
    }
    const jsx = commentsOf('fixture.tsx', 'export const A = () => <div>{/* see issue 7 */}</div>;\n');
    expect(jsx.flatMap((c) => citationsIn(c.text))).to.deep.equal(['an issue number']);
  });
});
