/**
 * Downloading a settlement report as CSV (docs/ledger.md#reports) from a screen: busy while it runs, the API's error
 * if it fails.
 */
import { useState } from 'react';
import { downloadFile, type CallOptions } from './api';
import { saveFile } from './csv';

/** A download's state, and `start(path, options, fallbackName)`, which fetches the file and has the browser save it. */
export function useReportDownload() {
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false });
  const start = async (path: string, options: Pick<CallOptions, 'query' | 'env'>, fallbackName: string) => {
    setState({ busy: true });
    try {
      const { blob, filename } = await downloadFile(path, options, fallbackName);
      saveFile(blob, filename);
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return { ...state, start };
}
