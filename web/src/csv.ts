/** CSV exports of the dashboard's lists (README.md#dashboard): cells a spreadsheet reads safely, and the download. */
import { csvCell } from './csv-cell';

/** CSV text of a header and rows of cells, lines ended by CRLF. */
export function csvText(header: readonly string[], rows: readonly (string | number | null)[][]): string {
  return [header.join(','), ...rows.map((cells) => cells.map(csvCell).join(','))].join('\r\n') + '\r\n';
}

/** Has the browser save `csv` as `filename`. */
export function saveCsv(csv: string, filename: string): void {
  saveFile(new Blob([csv], { type: 'text/csv' }), filename);
}

/** Has the browser save `blob` as `filename` (a file the API answered, as it came). */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
