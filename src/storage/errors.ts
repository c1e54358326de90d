/** PostgreSQL errors, as PGlite and node-postgres report them (Drizzle wraps the driver's error in `cause`). */

/** A PostgreSQL unique violation (SQLSTATE 23505) on a constraint or key that names `column`. */
export function isUniqueViolation(error: unknown, column: string): boolean {
  for (
    let e = error as
      | { code?: string; constraint?: string; detail?: string; message?: string; cause?: unknown }
      | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === '23505') return `${e.constraint ?? ''} ${e.detail ?? ''} ${e.message ?? ''}`.includes(column);
  }
  return false;
}
