/**
 * README's tour runs as written: the Node version it names is the one `engines` declares, every shell variable its
 * commands use is set by an earlier line, and each value a `VAR=$(curl … | node -pe '….data.x')` line extracts is
 * where the real API answers it (register, login, and login with two-factor sign-in on), so no line yields
 * `undefined`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { call } from '../helpers/http';
import { nextCode, turnOnTwoFactor } from '../helpers/security';
import { getStack } from '../helpers/stack';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** README's shell lines (inside ```sh blocks), comments uncommented so their commands count too. */
function shellLines(): string[] {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  return blocks.flatMap((block) => block.split('\n')).map((line) => line.replace(/^\s*#\s{0,3}/, ''));
}

/** The extractions README makes: variable, API path and the JSON path after `data.` its `node -pe` reads. */
function extractions(): { variable: string; path: string; field: string }[] {
  const lines = shellLines();
  const found: { variable: string; path: string; field: string }[] = [];
  lines.forEach((line, index) => {
    const start = /^([A-Z_]+)=\$\(curl -s localhost:3000(\/v1\/[\w/]+)/.exec(line);
    if (!start) return;
    const rest = lines.slice(index, index + 3).join('\n');
    const field = /JSON\.parse\(fs\.readFileSync\(0\)\)\.data\.([\w.]+)'\)/.exec(rest);
    if (field) found.push({ variable: start[1] as string, path: start[2] as string, field: field[1] as string });
  });
  return found;
}

/** The value at dotted `field` of `data`. */
function at(data: unknown, field: string): unknown {
  return field.split('.').reduce<any>((value, key) => (value === undefined ? undefined : value[key]), data);
}

describe("README's tour (README.md#a-short-tour, README.md#try-it)", function () {
  this.timeout(60_000);

  it('names the Node version package.json declares in engines', () => {
    const engines = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const minimum = /^>=(\d+\.\d+)$/.exec(engines)?.[1];
    expect(minimum, engines).to.be.a('string');
    expect(README).to.include(`Node ${minimum} or later`);
    expect(README).to.include(`\`engines\` says \`${engines}\``);
  });

  it('sets every shell variable its commands use ($KEY, $TOKEN, …) before using it', () => {
    const lines = shellLines();
    const set = new Set<string>();
    const prose = README.replace(/```sh\n[\s\S]*?```/g, '');
    for (const match of prose.matchAll(/`([A-Z_]+)=[^`]+`/g)) set.add(match[1] as string);
    for (const line of lines) {
      for (const match of line.matchAll(/\$([A-Z][A-Z_]+)\b/g)) {
        const name = match[1] as string;
        if (name === 'PAYCOLLECT_API_KEY') continue; // exported by its own line, below
        expect(set.has(name), `README uses $${name} before setting it: ${line.trim()}`).to.equal(true);
      }
      for (const match of line.matchAll(/(?:^|\s|export\s)([A-Z][A-Z_]+)=/g)) set.add(match[1] as string);
    }
    expect(set).to.include.members(['KEY', 'TOKEN', 'CHALLENGE']);
  });

  it('extracts only values the real API answers: the key at register, the token at login, the challenge and its token with two-factor on', async () => {
    await getStack();
    const wanted = extractions();
    const byVariable = Object.fromEntries(wanted.map((e) => [e.variable, e]));
    expect(Object.keys(byVariable)).to.include.members(['KEY', 'TOKEN', 'CHALLENGE']);
    const email = `tour-${Date.now()}@example.com`;
    const password = 'a long password';

    const registered = await call(byVariable.KEY!.path, { body: { email, password, name: 'Me' } });
    expect(registered.status).to.equal(201);
    expect(at(registered.body.data, byVariable.KEY!.field)).to.match(/^sk_sandbox_/);

    const tokenLines = wanted.filter((e) => e.variable === 'TOKEN');
    const login = tokenLines.find((e) => e.path === '/v1/auth/login');
    const secondStep = tokenLines.find((e) => e.path !== '/v1/auth/login');
    expect(login, 'a TOKEN line that logs in').to.not.equal(undefined);
    expect(secondStep?.path).to.equal('/v1/auth/login/2fa');
    const signedIn = await call(login!.path, { body: { email, password } });
    expect(signedIn.status).to.equal(200);
    const token = at(signedIn.body.data, login!.field) as string;
    expect(token).to.be.a('string');

    // With two-factor on, the plain login line yields undefined and the README's next lines answer the challenge.
    const developer = await turnOnTwoFactor({
      email,
      password,
      token,
      key: String(at(registered.body.data, byVariable.KEY!.field)),
      merchantId: registered.body.data.developer.merchant_id,
    });
    const challenged = await call(byVariable.CHALLENGE!.path, { body: { email, password } });
    expect(at(challenged.body.data, login!.field)).to.equal(undefined);
    const challenge = at(challenged.body.data, byVariable.CHALLENGE!.field);
    expect(challenge).to.be.a('string');
    const answered = await call(secondStep!.path, { body: { challenge, code: await nextCode(developer.secret) } });
    expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
    expect(at(answered.body.data, secondStep!.field)).to.be.a('string');
  });
});
