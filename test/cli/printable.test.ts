/** Stored text printed safely in a reviewer's terminal (src/cli/printable.ts; docs/live-access.md#admin-command). */
import { expect } from 'chai';
import { printable, printableJson } from '../../src/cli/printable';

describe('printable text for the admin command', () => {
  it('escapes a clear-screen sequence and a carriage return as JSON writes them', () => {
    expect(printable('Evil\u001b[2J\rCorp')).to.equal('Evil\\u001b[2J\\rCorp');
  });

  it('escapes C1 controls (the 8-bit CSI), DEL, NUL, BEL, line breaks and tabs', () => {
    expect(printable('a\u009b31mb\u007fc\u0000d\u0007e\nf\tg')).to.equal(
      'a\\u009b31mb\\u007fc\\u0000d\\u0007e\\nf\\tg',
    );
  });

  it('escapes the characters that reorder text on screen (bidi overrides, isolates, separators)', () => {
    expect(printable('invoice\u202egnp.exe')).to.equal('invoice\\u202egnp.exe');
    expect(printable('\u2066x\u2069\u200f\u2028')).to.equal('\\u2066x\\u2069\\u200f\\u2028');
  });

  it('leaves letters of any script, emoji and punctuation as they are, and doubles backslashes', () => {
    expect(printable('Café Kigali — 東京 👩🏽‍💻 "quoted" 100%')).to.equal('Café Kigali — 東京 👩🏽‍💻 "quoted" 100%');
    expect(printable('C:\\u001b is text')).to.equal('C:\\\\u001b is text');
  });

  it('prints JSON with every unsafe character escaped, which parses back to the stored strings', () => {
    const value = { name: 'Evil\u001b[2J\rCorp', note: 'x\u009by\u202ez', lines: 'a\nb' };
    const text = printableJson(value);
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(text).not.to.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).to.include('"name": "Evil\\u001b[2J\\rCorp"');
    expect(JSON.parse(text)).to.deep.equal(value);
  });
});
