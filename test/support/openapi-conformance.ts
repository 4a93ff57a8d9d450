import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/*
 * Checks responses against the served OpenAPI document: the status must be documented for the operation,
 * the media type must be documented, the body must match the schema and every header this service
 * defines must be documented on that response. Requests that match no operation (unknown routes, other
 * methods) must answer with one of the document's reusable error responses.
 */

type Json = Record<string, any>;

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Headers that carry the contract; standard transport headers (Date, Content-Length ...) are not listed. */
const CONTRACT_HEADERS = [
  'x-request-id',
  'location',
  'link',
  'deprecation',
  'sunset',
  'www-authenticate',
  'allow',
  'retry-after',
  'accept',
  'ratelimit',
  'ratelimit-policy',
  'idempotent-replayed',
];

/** Reusable responses a request that matches no operation may get. */
const UNROUTED_RESPONSES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  501: 'NotImplemented',
};

interface Route {
  readonly pattern: RegExp;
  readonly template: string;
  readonly item: Json;
}

export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: readonly Route[];

  constructor(private readonly document: Json) {
    this.ajv.addFormat('int64', true);
    this.ajv.addSchema(document, 'doc');
    this.routes = Object.entries(document.paths as Json).map(([path, item]) => {
      const servers = (item.servers ?? document.servers) as Json[];
      const prefix = new URL(servers[0]!.url).pathname.replace(/\/$/, '');
      const template = `${prefix}${path}`;
      const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return { pattern, template, item };
    });
  }

  /** Throws an Error naming every way the response departs from the document. */
  check(method: string, url: string, response: ObservedResponse): void {
    // Prefixed, not resolved: a path such as //v1 would otherwise parse as a host.
    const path = new URL(`http://x${url}`).pathname;
    const where = `${method} ${path} -> ${response.status}`;
    const item = this.routes.find((route) => route.pattern.test(path))?.item;
    // RFC 9110 §9.3.2: HEAD is GET without content, so a documented GET documents its HEAD.
    const operation = (item?.[method.toLowerCase()] ?? (method === 'HEAD' ? item?.get : undefined)) as Json | undefined;
    const declared = operation ? this.operationResponse(operation, response.status) : this.unroutedResponse(response.status);
    if (declared === undefined) throw new Error(`${where}: status not documented`);
    const problems = [...this.headerProblems(declared, response), ...this.bodyProblems(declared, method, response)];
    if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
  }

  private operationResponse(operation: Json, status: number): Json | undefined {
    const responses = operation.responses as Json;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    return declared === undefined ? undefined : this.resolve(declared);
  }

  private unroutedResponse(status: number): Json | undefined {
    const name = UNROUTED_RESPONSES[status];
    return name === undefined ? undefined : this.resolve({ $ref: `#/components/responses/${name}` });
  }

  private headerProblems(declared: Json, response: ObservedResponse): string[] {
    const documented = new Set(Object.keys((declared.headers as Json | undefined) ?? {}).map((name) => name.toLowerCase()));
    return CONTRACT_HEADERS.filter((name) => response.headers.has(name) && !documented.has(name)).map(
      (name) => `header ${name} not documented`,
    );
  }

  private bodyProblems(declared: Json, method: string, response: ObservedResponse): string[] {
    const content = declared.content as Json | undefined;
    if (content === undefined || method === 'HEAD') {
      return response.text === '' || method === 'HEAD' ? [] : ['body sent where none is documented'];
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = content[mediaType] as Json | undefined;
    if (media === undefined) return [`content type ${mediaType || '(none)'} not documented`];
    if (!mediaType.endsWith('json')) return [];
    const validate = this.validator(media.schema as Json);
    let body: unknown;
    try {
      // Plain JSON.parse is enough here: schema checks do not depend on the last digits of an int64.
      body = JSON.parse(response.text);
    } catch {
      return ['body is not JSON'];
    }
    return validate(body) ? [] : [`body does not match schema: ${this.ajv.errorsText(validate.errors)}`];
  }

  private resolve(value: Json): Json {
    if (typeof value.$ref !== 'string') return value;
    const target = (value.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json>((node, key) => node[key], this.document);
    return this.resolve(target);
  }

  private readonly validators = new Map<string, ValidateFunction>();

  /** Refs inside the document are relative to it: point a detached schema at the registered document. */
  private validator(schema: Json): ValidateFunction {
    const anchored = JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/');
    let validate = this.validators.get(anchored);
    if (validate === undefined) {
      validate = this.ajv.compile(JSON.parse(anchored) as Json);
      this.validators.set(anchored, validate);
    }
    return validate;
  }
}
