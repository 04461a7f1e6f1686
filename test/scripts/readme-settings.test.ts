/**
 * README.md#settings tells the truth: its table names every setting of the service (src/config.ts), every variable
 * the commands read themselves (scripts/, src/cli/, bench/, the test helpers), and each row's files exist and read
 * the variables it names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SETTING_NAMES } from '../../src/config';

const ROOT = path.resolve(__dirname, '../..');

/** The rows of the README's settings table: the variables each names and the files it says read them. */
function settingsTable(): { names: string[]; files: string[] }[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Settings'),
    readme.indexOf('\n## ', readme.indexOf('## Settings') + 3),
  );
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variables = '', , readIn = ''] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
      return {
        names: [...variables.matchAll(/`([A-Z][A-Z0-9_]*)(\*?)`/g)].map((match) => match[1] + match[2]),
        files: [...readIn.matchAll(/`([a-z][\w./*-]*\.ts)`/g)].map((match) => match[1] as string),
      };
    });
}

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file));
}

/** The files a path of the table names: itself, or those its `*` matches (a folder name or a file name stem). */
function expand(file: string): string[] {
  if (!file.includes('*')) return [file];
  const pattern = new RegExp(`^${file.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]+')}$`);
  const matches = sources(file.slice(0, file.indexOf('/*'))).filter((candidate) => pattern.test(candidate));
  expect(matches, file).to.have.length.above(0);
  return matches;
}

/** The variables the commands read from `process.env` by name. */
function variablesReadByCommands(): Map<string, string> {
  const found = new Map<string, string>();
  const files = ['scripts', 'src/cli', 'bench', 'test/helpers', 'test/dashboard'].flatMap(sources);
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      found.set((match[1] ?? match[2]) as string, file);
    for (const match of text.matchAll(/integerSetting\('([A-Z][A-Z0-9_]*)'/g)) found.set(match[1] as string, file);
  }
  return found;
}

describe('README.md#settings', () => {
  const rows = settingsTable();
  const listed = new Set(rows.flatMap((row) => row.names));
  const covers = (name: string) =>
    listed.has(name) || [...listed].some((entry) => entry.endsWith('*') && name.startsWith(entry.slice(0, -1)));

  it('names every setting of src/config.ts', () => {
    expect(SETTING_NAMES.length).to.be.above(40);
    expect(SETTING_NAMES.filter((name) => !covers(name))).to.deep.equal([]);
  });

  it('names every variable the commands, the benchmark and the tests read themselves', () => {
    const read = variablesReadByCommands();
    expect(read.has('TEMPORAL_UI_PORT') && read.has('PGPORT')).to.equal(true);
    const missing = [...read]
      .filter(([name]) => !covers(name) && name !== 'CI')
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).to.deep.equal([]);
  });

  it('says where each is read: the files exist and name the variables', () => {
    for (const row of rows) {
      expect(row.files, row.names.join(', ')).to.have.length.above(0);
      const texts = row.files.flatMap(expand).map((file) => {
        expect(fs.existsSync(path.join(ROOT, file)), file).to.equal(true);
        return fs.readFileSync(path.join(ROOT, file), 'utf8');
      });
      for (const name of row.names) {
        const stem = name.replace(/\*$/, '');
        const readSomewhere = texts.some((text) => text.includes(stem)) || SETTING_NAMES.includes(name);
        expect(readSomewhere, `${name} in ${row.files.join(', ')}`).to.equal(true);
      }
    }
  });
});
