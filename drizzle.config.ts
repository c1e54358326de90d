// drizzle-kit configuration: `npx drizzle-kit generate` writes SQL migrations from src/storage/schema.ts.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/storage/schema.ts',
  out: './src/storage/migrations',
});
