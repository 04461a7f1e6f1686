/**
 * The page's text colour on a brand colour (docs/branding.md#colours): WCAG 2 contrast ratios of known pairs (the
 * published values of WebAIM's contrast checker), the choice between white and black at the AA boundary, and, for
 * colours across the whole cube, that the chosen pair reaches AA by the WCAG formula computed here independently.
 */
import { expect } from 'chai';
import { AA_CONTRAST, contrastRatio, textColorOn } from '../../src/domain/branding';

/** WCAG 2 relative luminance of `#rrggbb`, written out from the definition. */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const c = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

function wcagContrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('brand colours (docs/branding.md#colours)', () => {
  it('measures known pairs as WCAG does', () => {
    expect(contrastRatio('#000000', '#ffffff')).to.equal(21);
    expect(contrastRatio('#ffffff', '#ffffff')).to.equal(1);
    expect(contrastRatio('#767676', '#ffffff')).to.equal(4.54); // the lightest grey that passes AA on white
    expect(contrastRatio('#777777', '#ffffff')).to.equal(4.47);
    expect(contrastRatio('#0000ff', '#ffffff')).to.equal(8.59);
    expect(contrastRatio('#ff0000', '#ffffff')).to.equal(3.99);
    expect(contrastRatio('#ffff00', '#000000')).to.equal(19.55);
  });

  it('writes white where white reaches AA, black otherwise', () => {
    expect(textColorOn('#767676')).to.equal('#ffffff');
    expect(textColorOn('#777777')).to.equal('#000000');
    expect(textColorOn('#0b6e4f')).to.equal('#ffffff');
    expect(textColorOn('#ff0000')).to.equal('#000000');
    expect(textColorOn('#ffd400')).to.equal('#000000');
    expect(textColorOn('#000000')).to.equal('#ffffff');
    expect(textColorOn('#ffffff')).to.equal('#000000');
    expect(textColorOn('#0B6E4F')).to.equal('#ffffff');
  });

  it('reaches AA on every colour of a grid across the cube', () => {
    const steps = [0, 17, 51, 85, 119, 136, 153, 170, 187, 204, 221, 238, 255];
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    for (const r of steps)
      for (const g of steps)
        for (const b of steps) {
          const color = `#${hex(r)}${hex(g)}${hex(b)}`;
          expect(wcagContrast(color, textColorOn(color)), color).to.be.at.least(AA_CONTRAST);
        }
  });
});
