/** The form of every time in an answer. */
import { z } from '../lib/zod';

/** An ISO 8601 UTC date-time (`2026-11-24T10:00:00.000Z`). */
export const timestamp = z.iso.datetime();
