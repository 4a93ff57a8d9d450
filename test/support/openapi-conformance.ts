import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/*
 * Checks responses against the served OpenAPI documents (the interface at /v1/openapi.json and the
 * operations document at the origin): the status must be documented for the operation, the media type must
 * be documented, the body must match the schema and every header sent must be declared on that response,
 * except the transport headers below. Requests that match no operation (unknown routes, other methods)
 * must answer with one of the interface document's reusable error responses.
 */

type Json = Record<string, any>;

export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Headers of the message and the connection, not of the contract (OpenAPI ignores a declared Content-Type). */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'transfer-encoding']);

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
  readonly document: string;
}

/** The path prefix a document's first server gives its paths; a relative server resolves against the origin. */
export function serverPrefix(document: Json, item?: Json): string {
  const servers = ((item?.servers ?? document.servers) as Json[] | undefined) ?? [{ url: '/' }];
  return new URL(servers[0]!.url as string, 'http://origin/').pathname.replace(/\/$/, '');
}

export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: readonly Route[];
  private readonly documents: readonly Json[];

  /** The interface document first (its components answer unrouted requests), then the operations document. */
  constructor(...documents: Json[]) {
    this.documents = documents;
    this.ajv.addFormat('int64', true);
    documents.forEach((document, index) => this.ajv.addSchema(document, `doc${index}`));
    this.routes = documents.flatMap((document, index) =>
      Object.entries(document.paths as Json).map(([path, item]) => {
        const template = `${serverPrefix(document, item)}${path}`;
        const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
        return { pattern, template, item, document: `doc${index}` };
      }),
    );
  }

  /** Throws an Error naming every way the response departs from the document. */
  check(method: string, url: string, response: ObservedResponse): void {
    // Prefixed, not resolved: a path such as //v1 would otherwise parse as a host.
    const path = new URL(`http://x${url}`).pathname;
    const where = `${method} ${path} -> ${response.status}`;
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const item = route?.item;
    const doc = route?.document ?? 'doc0';
    // RFC 9110 §9.3.2: HEAD is GET without content, so a documented GET documents its HEAD.
    const operation = (item?.[method.toLowerCase()] ?? (method === 'HEAD' ? item?.get : undefined)) as Json | undefined;
    const declared = operation ? this.operationResponse(doc, operation, response.status) : this.unroutedResponse(response.status);
    if (declared === undefined) throw new Error(`${where}: status not documented`);
    const problems = [...this.headerProblems(declared, response), ...this.bodyProblems(doc, declared, method, response)];
    if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
  }

  private operationResponse(doc: string, operation: Json, status: number): Json | undefined {
    const responses = operation.responses as Json;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    return declared === undefined ? undefined : this.resolve(doc, declared);
  }

  private unroutedResponse(status: number): Json | undefined {
    const name = UNROUTED_RESPONSES[status];
    return name === undefined ? undefined : this.resolve('doc0', { $ref: `#/components/responses/${name}` });
  }

  private headerProblems(declared: Json, response: ObservedResponse): string[] {
    const documented = new Set(Object.keys((declared.headers as Json | undefined) ?? {}).map((name) => name.toLowerCase()));
    return [...response.headers.keys()]
      .filter((name) => !TRANSPORT_HEADERS.has(name) && !documented.has(name))
      .map((name) => `header ${name} not documented`);
  }

  private bodyProblems(doc: string, declared: Json, method: string, response: ObservedResponse): string[] {
    const content = declared.content as Json | undefined;
    if (content === undefined || method === 'HEAD') {
      return response.text === '' || method === 'HEAD' ? [] : ['body sent where none is documented'];
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = content[mediaType] as Json | undefined;
    if (media === undefined) return [`content type ${mediaType || '(none)'} not documented`];
    if (!mediaType.endsWith('json')) return [];
    const validate = this.validator(doc, media.schema as Json);
    let body: unknown;
    try {
      // Plain JSON.parse is enough here: schema checks do not depend on the last digits of an int64.
      body = JSON.parse(response.text);
    } catch {
      return ['body is not JSON'];
    }
    return validate(body) ? [] : [`body does not match schema: ${this.ajv.errorsText(validate.errors)}`];
  }

  private resolve(doc: string, value: Json): Json {
    if (typeof value.$ref !== 'string') return value;
    const target = (value.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json>((node, key) => node[key], this.documents[Number(doc.slice(3))]!);
    return this.resolve(doc, target);
  }

  private readonly validators = new Map<string, ValidateFunction>();

  /** Refs inside the document are relative to it: point a detached schema at the registered document. */
  private validator(doc: string, schema: Json): ValidateFunction {
    const anchored = JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${doc}#/`);
    let validate = this.validators.get(anchored);
    if (validate === undefined) {
      validate = this.ajv.compile(JSON.parse(anchored) as Json);
      this.validators.set(anchored, validate);
    }
    return validate;
  }
}
