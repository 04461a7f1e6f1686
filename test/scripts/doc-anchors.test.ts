/**
 * Every anchor of a document (`docs/payments.md#states`, or one of README's) that a source, a test, a document or a
 * configuration file cites leads somewhere: an `<a id="…">` or a heading of that file. Recorded histories and bench
 * results, which quote what older code said, are left out.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../..');

/** The anchors of a Markdown file: its `<a id>`s and its headings as GitHub slugs them. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8');
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"/g)].map((match) => match[1] as string));
  for (const match of text.matchAll(/^#+ (.+)$/gm)) {
    const heading = (match[1] as string).trim().toLowerCase();
    anchors.add(heading.replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}

/** The Markdown file a citation in `from` names, or undefined when there is none. */
function targetOf(from: string, cited: string): string | undefined {
  const candidates = [
    path.join(ROOT, cited),
    path.join(ROOT, 'docs', path.basename(cited)),
    path.join(ROOT, path.dirname(from), cited),
  ];
  return candidates.find((candidate) => fs.existsSync(candidate));
}

describe('citations of docs anchors (docs/, README.md)', () => {
  it('every file.md#anchor cited in the repository exists', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|tsx|md|ya?ml|mjs)$/.test(file))
      .filter((file) => !file.startsWith('test/replay/histories/') && !file.startsWith('bench/results/'));
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    let cited = 0;
    for (const file of tracked) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/((?:docs\/)?[\w-]+\.md)#([\w-]+)/g)) {
        const target = targetOf(file, match[1] as string);
        if (!target) continue; // another project's file, named in prose
        cited += 1;
        if (!anchors.has(target)) anchors.set(target, anchorsOf(target));
        if (!anchors.get(target)?.has(match[2] as string)) broken.push(`${file}: ${match[0]}`);
      }
    }
    expect(cited).to.be.greaterThan(100);
    expect(broken).to.deep.equal([]);
  });

  it('bench figures and their recorded results say what they measure, never a decision id (D…) in place of it', () => {
    const files = [
      ...fs.readdirSync(path.join(ROOT, 'bench/results')).map((name) => `bench/results/${name}`),
      ...fs.readdirSync(path.join(ROOT, 'bench/figures')).map((name) => `bench/figures/${name}`),
    ];
    const citing = files.filter((file) => /\bD\d{1,3}\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(files.length).to.be.greaterThan(5);
    expect(citing).to.deep.equal([]);
  });
});
