// Structured extraction: a page's clean text, cut into its chunks, goes to the configured LLM with
// the user's JSON Schema; the answer is validated against the schema (Ajv) and must say which
// chunk(s) of the page each value came from. An answer that fails is asked for once more with what
// was wrong; a second failure is kept as the page's error, with the validation message.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { chunkText, DEFAULT_CHUNKING } from '../extract/chunks.js';
import { errorMessage } from '../errors.js';
import { schemaValidator, specHash, type ExtractSpec } from './extract-spec.js';
import type { ChatAnswer, ChatClient } from './providers.js';

/** What structured extraction made of a page. */
export interface SchemaExtraction {
  /** The values, valid against the schema (absent when the extraction failed). */
  data?: unknown;
  /** For each value of `data` (by JSON Pointer, `/price`, `/specs/0/name`), the ids of the page's chunks it came from. */
  sources?: Record<string, string[]>;
  /** Why there are no values: the provider failed for good, or its answer was not valid twice (the validation message). */
  error?: string;
  /** Questions asked: 1, or 2 when the first answer was not valid. */
  attempts: number;
  provider: string;
  model: string;
  /** Tokens the provider counted over the attempts (0 when it does not say). */
  inputTokens: number;
  outputTokens: number;
  /** The spec it was made to (`specHash`). */
  spec: string;
}

/** Characters of a page's chunks put in the question at most: the rest of a long page is left out. */
export const MAX_PROMPT_CHARS = 24_000;
/** The longest answer asked for. */
const MAX_ANSWER_TOKENS = 2_000;

const SYSTEM = [
  'You extract structured data from one web page.',
  'The page is given as numbered chunks, each headed by its id in square brackets.',
  'Answer with one JSON object and nothing else: {"data": ..., "sources": {...}}.',
  '"data" must be valid against the JSON Schema you are given. Use only what the page says; where the page does not give a value the schema requires, use null if the schema allows it.',
  '"sources" maps the JSON Pointer of every value you put in "data" (for example "/price" or "/specs/0/name") to the ids of the chunks the value came from.',
].join('\n');

/** The leaves of a value as JSON Pointers: every string, number and boolean (nulls say "not given"). */
export function leafPointers(value: unknown, at = ''): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leafPointers(v, `${at}/${i}`));
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leafPointers(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  return [at];
}

function schemaErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(the data)'} ${e.message ?? 'is not valid'}`);
}

/** The answer's JSON object, from the whole text or a fenced block. */
function parseAnswer(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1]! : text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return JSON.parse(start >= 0 && end > start ? body.slice(start, end + 1) : body) as unknown;
}

/** Structured extraction of pages to one schema with one chat model. */
export class SchemaExtractor {
  private readonly validate: ValidateFunction;
  private readonly schemaText: string;
  /** The spec's hash (`specHash`): kept with each extraction. */
  readonly hash: string;

  get provider(): string {
    return this.chat.provider;
  }

  get model(): string {
    return this.chat.model;
  }

  constructor(
    private readonly chat: ChatClient,
    private readonly spec: ExtractSpec,
  ) {
    this.validate = schemaValidator(spec.schema);
    this.schemaText = JSON.stringify(spec.schema);
    this.hash = specHash(spec);
  }

  /** Extracts the schema's values from a page's markdown (cut into the chunks its extraction stored: the same ids). */
  async extract(page: { url: string; title: string; markdown: string }): Promise<SchemaExtraction> {
    const chunks = chunkText(page.markdown, DEFAULT_CHUNKING);
    const ids = new Set(chunks.map((c) => c.id));
    let text = '';
    for (const c of chunks) {
      const block = `[${c.id}]\n${c.text}\n\n`;
      if (text.length + block.length > MAX_PROMPT_CHARS) break;
      text += block;
    }
    const question = [
      `JSON Schema:\n${this.schemaText}`,
      ...(this.spec.prompt ? [`What to extract: ${this.spec.prompt}`] : []),
      `Page: ${page.url}\nTitle: ${page.title}\n\n${text}`,
    ].join('\n\n');
    const out: SchemaExtraction = { attempts: 0, provider: this.chat.provider, model: this.chat.model, inputTokens: 0, outputTokens: 0, spec: this.hash };
    let problems: string[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      out.attempts = attempt;
      const user =
        attempt === 1
          ? question
          : `${question}\n\nYour previous answer was not valid:\n${problems.map((p) => `- ${p}`).join('\n')}\nAnswer again with one JSON object {"data": ..., "sources": {...}}.`;
      // A provider failure is thrown: the enrichment stage retries the passing ones.
      const answer: ChatAnswer = await this.chat.answer({ system: SYSTEM, user, maxTokens: MAX_ANSWER_TOKENS });
      out.inputTokens += answer.inputTokens ?? 0;
      out.outputTokens += answer.outputTokens ?? 0;
      const checked = this.check(answer.text, ids);
      if ('valid' in checked) {
        const { data, sources } = checked.valid;
        return { ...out, data, sources: Object.fromEntries(leafPointers(data).map((p) => [p, sources[p]!])) };
      }
      problems = checked.problems;
    }
    return { ...out, error: `the answer did not match the schema after ${out.attempts} attempts: ${problems.join('; ')}` };
  }

  /** The answer when it is valid, else what is wrong with it: not JSON, data not valid against the schema, values without chunks. */
  private check(text: string, ids: Set<string>): { valid: { data: unknown; sources: Record<string, string[]> } } | { problems: string[] } {
    let answer: unknown;
    try {
      answer = parseAnswer(text);
    } catch (err) {
      return { problems: [`the answer is not JSON (${errorMessage(err)})`] };
    }
    if (!answer || typeof answer !== 'object' || !('data' in answer)) return { problems: ['the answer has no "data"'] };
    const { data, sources } = answer as { data: unknown; sources?: unknown };
    const problems = this.validate(data) ? [] : schemaErrors(this.validate.errors);
    const named = sources && typeof sources === 'object' ? (sources as Record<string, unknown>) : {};
    for (const pointer of leafPointers(data)) {
      const from = named[pointer];
      if (!Array.isArray(from) || from.length === 0) problems.push(`${pointer} names no chunk in "sources"`);
      else if (from.some((id) => typeof id !== 'string' || !ids.has(id)))
        problems.push(`${pointer} names a chunk the page does not have (${JSON.stringify(from)})`);
    }
    return problems.length ? { problems } : { valid: { data, sources: named as Record<string, string[]> } };
  }
}
