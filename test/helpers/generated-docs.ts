/**
 * Sections of docs/ generated from code (the state tables, the markets' terms): each sits between its markers,
 * `<!-- {name}:start (generated from {source}) -->` and `<!-- {name}:end -->`, and a test keeps it equal to what the
 * code renders; `UPDATE_STATE_TABLE=1` rewrites it instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

/**
 * Asserts that docs/`docFile` shows `generated` between the markers of `name` (or, with `UPDATE_STATE_TABLE=1`,
 * writes it there).
 * @param docFile the file under docs/ (`payments.md`)
 * @param name the markers' name (`state-table`)
 * @param source the source file the markers say the section is generated from (`src/domain/payment-table.ts`)
 */
export function expectGeneratedSection(docFile: string, name: string, source: string, generated: string): void {
  const file = path.resolve(__dirname, '../../docs', docFile);
  const doc = fs.readFileSync(file, 'utf8');
  const start = `<!-- ${name}:start (generated from ${source}) -->\n`;
  const end = `\n<!-- ${name}:end -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  expect(from, `${name} markers in docs/${docFile}`).to.be.greaterThan(-1);
  expect(to, `${name} end marker in docs/${docFile}`).to.be.greaterThan(from);
  if (process.env.UPDATE_STATE_TABLE === '1')
    fs.writeFileSync(file, doc.slice(0, from + start.length) + generated + doc.slice(to));
  else expect(doc.slice(from + start.length, to)).to.equal(generated);
}
