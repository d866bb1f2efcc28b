// Checks a live answer against an OpenAPI 3.1 document: the route is in it, the status is one the
// route declares, the content type is declared for that status, and a JSON body validates against
// the declared schema (Ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const pointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: Array<{ template: string; pattern: RegExp }>;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Each `METHOD template status` a live answer was checked against. */
  readonly seen = new Set<string>();

  constructor(private readonly doc: Doc) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, 'doc');
    this.routes = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws, naming what is wrong, unless the answer is one the document declares. */
  check(method: string, url: string, status: number, contentType: string | null, body: string): void {
    const path = new URL(url, 'http://x').pathname;
    const m = method.toLowerCase();
    const route = this.routes.find((r) => r.pattern.test(path) && this.doc.paths[r.template]![m]);
    if (!route) throw new Error(`${method} ${path} is not in the document`);
    const op = this.doc.paths[route.template]![m]!;
    const declared = op.responses[String(status)];
    if (!declared)
      throw new Error(`${method} ${route.template} answered ${status}, which it does not declare (it declares ${Object.keys(op.responses).join(', ')})`);
    this.seen.add(`${m} ${route.template} ${status}`);
    if (!declared.content) {
      if (body.length) throw new Error(`${method} ${route.template} ${status} declares no body, and answered ${body.length} bytes`);
      return;
    }
    const media = (contentType ?? '').split(';')[0]!.trim();
    const key = Object.keys(declared.content).find((k) => k === media || k === '*/*' || (k.endsWith('/*') && media.startsWith(k.slice(0, -1))));
    if (!key)
      throw new Error(`${method} ${route.template} ${status} answered ${media || 'no content type'}, declared ${Object.keys(declared.content).join(', ')}`);
    if (key !== 'application/json') return;
    const ref = `doc#/paths/${pointer(route.template)}/${m}/responses/${status}/content/${pointer(key)}/schema`;
    let validate = this.compiled.get(ref);
    if (!validate) this.compiled.set(ref, (validate = this.ajv.compile({ $ref: ref })));
    if (!validate(JSON.parse(body)))
      throw new Error(`${method} ${path} ${status}: the body does not match its schema: ${this.ajv.errorsText(validate.errors)}`);
  }
}
