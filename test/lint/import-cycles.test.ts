/**
 * No import circle among the modules of `src/` (docs/architecture.md#layers: layers only call down,
 * and inside a layer a module that needs another's types or functions takes them from where they
 * belong instead of going round). Type-only imports count: a circle of types is still a circle a
 * reader has to untangle. Relative imports are read with the TypeScript parser and resolved as the
 * compiler does (`x.ts`, `x.tsx`, `x/index.ts`); the second test proves a circle is found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');

/** Every `.ts` file under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The file a relative specifier names from `from`, or undefined for a package or a file that does not exist. */
function resolve(from: string, specifier: string, exists: (file: string) => boolean): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find(exists);
}

/** The modules each module imports or re-exports, type-only imports included. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const targets: string[] = [];
    for (const statement of source.statements) {
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
      if (!specifier || !ts.isStringLiteral(specifier)) continue;
      const target = resolve(file, specifier.text, (candidate) => files.has(candidate));
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * Every circle of the graph, each as the modules it runs through (one entry per strongly connected set of two or more,
 * or a module importing itself).
 */
export function circles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('no import circle in src/', () => {
  it('no module of src/ reaches itself through its imports', () => {
    const files = new Map(sourceFiles(SRC).map((file) => [file, fs.readFileSync(file, 'utf8')]));
    expect(files.size).to.be.greaterThan(100);
    const found = circles(importGraph(files)).map((circle) =>
      circle.map((file) => path.relative(SRC, file)).join(' ↔ '),
    );
    expect(found, found.join('\n')).to.deep.equal([]);
  });

  it('finds a circle of type-only imports, and none in a chain', () => {
    const at = (name: string) => path.join(SRC, 'db', `${name}.ts`);
    const circle = new Map([
      [at('a'), "import type { B } from './b';\nexport interface A { b: B }\n"],
      [at('b'), "import { c } from './c';\nexport interface B { c: typeof c }\n"],
      [at('c'), "export type { A } from './a';\nexport const c = 1;\n"],
    ]);
    expect(circles(importGraph(circle))).to.deep.equal([[at('a'), at('b'), at('c')]]);
    const chain = new Map([...circle].map(([file, text]) => [file, file === at('c') ? 'export const c = 1;\n' : text]));
    expect(circles(importGraph(chain))).to.deep.equal([]);
  });
});
