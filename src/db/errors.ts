/**
 * Which PostgreSQL errors are about the data rather than the database: SQLSTATE class 22 (data
 * exceptions: NUL in text 22021 or jsonb 22P05, a number out of range 22003, a malformed date
 * 22007, invalid text for a type 22P02, …). Retrying such a statement gives the same answer, so
 * activities fail it non-retryably (src/activities/index.ts) and the API answers 400 for it.
 * The one place that classifies PostgreSQL errors by code; outages are `lib/outage.ts`.
 */

/** SQLSTATE codes of class 22 PostgreSQL raises for values sent by this service, by condition name. */
const DATA_ERROR_NAMES: Readonly<Record<string, string>> = {
  '22000': 'data_exception',
  '22001': 'string_data_right_truncation',
  '22003': 'numeric_value_out_of_range',
  '22004': 'null_value_not_allowed',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22012': 'division_by_zero',
  '22021': 'character_not_in_repertoire',
  '22023': 'invalid_parameter_value',
  '22030': 'duplicate_json_object_key_value',
  '22032': 'invalid_json_text',
  '22P02': 'invalid_text_representation',
  '22P05': 'untranslatable_character',
};

/** A SQLSTATE: five characters, digits and upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** A PostgreSQL data exception as this service reports it: the SQLSTATE and its condition name, never the values. */
export interface DataErrorSummary {
  /** SQLSTATE of class 22, e.g. `22021`. */
  sqlState: string;
  /** PostgreSQL's condition name, e.g. `character_not_in_repertoire` (`data_exception` for codes not listed). */
  condition: string;
}

/**
 * The data exception `error` is or wraps (through `cause`, at most 4 levels), or undefined for any
 * other error. PostgreSQL's own message is left out on purpose: it can quote the refused value
 * (`invalid input syntax for type integer: "…"`).
 */
export function dataErrorOf(error: unknown, depth = 0): DataErrorSummary | undefined {
  if (!error || typeof error !== 'object' || depth > 4) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('22') && SQLSTATE.test(code)) {
    return { sqlState: code, condition: DATA_ERROR_NAMES[code] ?? 'data_exception' };
  }
  return dataErrorOf((error as { cause?: unknown }).cause, depth + 1);
}

/** True when `error` is or wraps a PostgreSQL data exception (SQLSTATE class 22). */
export function isDataError(error: unknown): boolean {
  return dataErrorOf(error) !== undefined;
}

/**
 * A message for logs and failures that names the data exception and nothing of the data: `PostgreSQL refused a value
 * (SQLSTATE 22021 character_not_in_repertoire)`.
 */
export function describeDataError(summary: DataErrorSummary): string {
  return `PostgreSQL refused a value (SQLSTATE ${summary.sqlState} ${summary.condition})`;
}
