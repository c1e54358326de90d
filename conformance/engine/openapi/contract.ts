/**
 * The OpenAPI contracts as the engine reads them: every operation of `specs/<surface>.openapi.yaml` with its
 * parameters (path-item and operation level merged), request body, responses and security requirements,
 * `$ref`s resolved in place (the contracts are acyclic).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { resolveRefs, type Schema } from '../core/schema.ts';

/** The OpenAPI surfaces the engine derives cases from, and the contract file of each. */
export const ENGINE_SURFACES = {
  institutional: 'institutional.openapi.yaml',
  explorer: 'explorer.openapi.yaml',
  wallet: 'wallet.openapi.yaml',
  admin: 'admin.openapi.yaml',
} as const;

/** One surface name. */
export type EngineSurface = keyof typeof ENGINE_SURFACES;

/** One parameter of an operation. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  example?: unknown;
}

/** One documented response. */
export interface ResponseSpec {
  /** The JSON schema of `application/json` content, if any. */
  schema?: Schema;
  /** Media types documented for the response. */
  mediaTypes: string[];
  /** Documented headers, lower-cased name → { required, schema }. */
  headers: Record<string, { required: boolean; schema?: Schema }>;
  /** OpenAPI links by name: the operation (by operationId) an answer leads to and its parameters' runtime expressions. */
  links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
}

/** One operation of a contract. */
export interface Operation {
  surface: EngineSurface;
  method: string;
  /** The route as written in the contract, e.g. `/accounts/{id}`. */
  route: string;
  /** `METHOD /route`. */
  id: string;
  /** The contract's operationId, the name links use. */
  operationId?: string;
  parameters: Parameter[];
  /** The JSON request body schema, when the operation takes one. */
  body?: { required: boolean; schema: Schema; examples: unknown[] };
  /** Documented statuses (`default` kept as is) → response. */
  responses: Record<string, ResponseSpec>;
  /** Security requirement alternatives; empty: no credential needed. */
  security: Record<string, string[]>[];
}

/** A parsed contract: its operations and the path prefix of its first server URL. */
export interface Contract {
  surface: EngineSurface;
  /** `/wallet/api/v1`, `/api`, `/admin/v1` or `` (the wallet origin's root). */
  basePath: string;
  /** Every path of the contract with its documented methods (upper case). */
  paths: Record<string, string[]>;
  operations: Operation[];
  /** Names of the security schemes → scheme object. */
  securitySchemes: Record<string, Schema>;
  /** The surface's error shape (`components.schemas.Error`), if the contract has one. */
  errorSchema?: Schema;
}

/** A node of the parsed contract, walked by the OpenAPI 3.1 structure (the contracts pass `npm run lint:specs`). */
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, shaped by the OpenAPI structure checked by redocly
type Yaml = any;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Parses the contract of `surface` from `specsDir` (a directory path). */
export function loadContract(specsDir: string, surface: EngineSurface): Contract {
  const raw = parseYaml(readFileSync(`${specsDir}/${ENGINE_SURFACES[surface]}`, 'utf8')) as Record<string, unknown>;
  const doc = resolveRefs(raw, raw) as Yaml;
  const serverUrl = String(doc.servers?.[0]?.url ?? '/');
  const basePath = new URL(serverUrl.replace(/\{[^}]+\}/g, 'x')).pathname.replace(/\/$/, '');
  const operations: Operation[] = [];
  const paths: Record<string, string[]> = {};
  for (const [route, item] of Object.entries<Yaml>(doc.paths ?? {})) {
    paths[route] = [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      paths[route].push(method.toUpperCase());
      const merged = new Map<string, Parameter>();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        merged.set(`${p.in}:${p.name}`, {
          name: p.name,
          in: p.in,
          required: p.in === 'path' || p.required === true,
          schema: p.schema ?? {},
          ...(p.example !== undefined ? { example: p.example } : {}),
        });
      }
      const json = op.requestBody?.content?.['application/json'];
      const responses: Record<string, ResponseSpec> = {};
      for (const [status, res] of Object.entries<Yaml>(op.responses ?? {})) {
        const headers: ResponseSpec['headers'] = {};
        for (const [name, h] of Object.entries<Yaml>(res.headers ?? {}))
          headers[name.toLowerCase()] = { required: h.required === true, schema: h.schema };
        responses[status] = {
          mediaTypes: Object.keys(res.content ?? {}),
          headers,
          ...(res.links ? { links: res.links } : {}),
          ...(res.content?.['application/json']?.schema ? { schema: res.content['application/json'].schema } : {}),
        };
      }
      operations.push({
        surface,
        method: method.toUpperCase(),
        route,
        id: `${method.toUpperCase()} ${route}`,
        ...(op.operationId ? { operationId: op.operationId } : {}),
        parameters: [...merged.values()],
        ...(json?.schema
          ? { body: { required: op.requestBody.required === true, schema: json.schema, examples: bodyExamples(json) } }
          : {}),
        responses,
        security: op.security ?? doc.security ?? [],
      });
    }
  }
  const errorSchema = doc.components?.schemas?.Error as Schema | undefined;
  return {
    surface,
    basePath,
    paths,
    operations,
    securitySchemes: doc.components?.securitySchemes ?? {},
    ...(errorSchema ? { errorSchema } : {}),
  };
}

function bodyExamples(media: Yaml): unknown[] {
  const out: unknown[] = [];
  if (media.example !== undefined) out.push(media.example);
  for (const ex of Object.values<Record<string, unknown>>(media.examples ?? {}))
    if (ex && 'value' in ex) out.push(ex.value);
  if (out.length === 0 && media.schema?.example !== undefined) out.push(media.schema.example);
  for (const ex of media.schema?.examples ?? []) out.push(ex);
  return out;
}

const contracts = new Map<string, Contract>();

/** The contract of `surface` in `specsDir` (a folder path), parsed once per folder and surface (the files do not change during a process). */
export function contractOf(specsDir: string, surface: EngineSurface): Contract {
  const key = `${specsDir}\u0000${surface}`;
  let contract = contracts.get(key);
  if (!contract) {
    contract = loadContract(specsDir, surface);
    contracts.set(key, contract);
  }
  return contract;
}
