#!/usr/bin/env node
// The `svckit` command. TypeScript sources run through tsx's loader (generated code uses
// extensionless imports, which Node's own type stripping does not resolve).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
