#!/usr/bin/env node
// The `svckit` command. TypeScript sources run through tsx's loader: the server, the CLI and the conformance
// harness use extensionless imports and constructor parameter properties, which Node's own type stripping
// refuses (the package's `exports` avoid both, D-162).
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
