/**
 * QR codes of a text (a payment link's address, docs/payment-links.md#qr): the symbol is made by `qrcode`
 * (error correction M, the quiet zone of 4 modules the standard asks), drawn as SVG by `qrcode` and as a PNG by
 * `pngjs` at exactly the asked size, so a phone's camera reads it from a print or a screen.
 */
import { PNG } from 'pngjs';
import QRCode from 'qrcode';

/** The quiet zone around the symbol, in modules (ISO/IEC 18004 asks for 4). */
const QUIET_ZONE = 4;
const ERROR_CORRECTION = 'M' as const;

/** The QR code of `text` as an SVG document (scalable; black modules on white). */
export async function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', margin: QUIET_ZONE, errorCorrectionLevel: ERROR_CORRECTION });
}

/**
 * The QR code of `text` as a square PNG of exactly `size` × `size` pixels, black modules on white with the quiet zone.
 * Each module covers ⌊size / modules⌋ or one more pixel, so no size is refused for rounding.
 * @param size the side in pixels; at least the symbol's modules with its quiet zone (a link's address needs about 40)
 * @throws RangeError when `size` is smaller than the symbol
 */
export function qrPng(text: string, size: number): Buffer {
  const symbol = QRCode.create(text, { errorCorrectionLevel: ERROR_CORRECTION });
  const modules = symbol.modules.size;
  const side = modules + 2 * QUIET_ZONE;
  if (!Number.isInteger(size) || size < side)
    throw new RangeError(`a PNG of this QR code needs at least ${side} pixels`);
  const png = new PNG({ width: size, height: size, colorType: 0, inputColorType: 0, inputHasAlpha: false });
  // Pixel p of a row or column falls on module ⌊p · side / size⌋ of the symbol with its quiet zone.
  const moduleOf = Array.from({ length: size }, (_, p) => Math.floor((p * side) / size) - QUIET_ZONE);
  const dark = (m: number, n: number) =>
    m >= 0 && n >= 0 && m < modules && n < modules && symbol.modules.get(m, n) === 1;
  const data = Buffer.alloc(size * size, 255);
  for (let y = 0; y < size; y += 1)
    for (let x = 0; x < size; x += 1) if (dark(moduleOf[y] as number, moduleOf[x] as number)) data[y * size + x] = 0;
  png.data = data;
  return PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false });
}
