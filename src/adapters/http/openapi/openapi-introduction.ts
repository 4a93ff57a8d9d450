import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../../../core/pet-catalog.js';
import { INT64_MAX } from '../../../core/pet.js';
import { OPERATIONS_DOCUMENT_PATH, type OpenApiServers } from './openapi-info.js';

/*
 * The interface document's info.description, the first thing /docs shows: how a consumer starts. What a
 * single field or parameter accepts belongs in its schema's description, not here.
 */

const FROM_LOCAL_INSTANCE = `This instance runs locally (APP_ENV=local), so the examples name its address; with no
\`API_KEYS\` configured, use the key it printed when it started.
`;

/**
 * The consumer's introduction. Its examples name the address of the environment serving it (staging's, else
 * production's), or `localBase`: the address a local instance was reached at (see openapi-routes.ts).
 */
export function introduction(servers: OpenApiServers, localBase?: string): string {
  const base = localBase ?? (servers.serving === 'staging' ? servers.staging : servers.production);
  return `A catalogue of animals for sale: list them, add one, fetch one (deprecated). Requests and responses are JSON.

### Getting a key
Every operation under \`/v1\` needs an API key: ask the Animal Store API team (see Contact) for one. Send it as
\`Authorization: Bearer <API_KEY>\`; a missing or unknown key is 401. Against a service you run yourself,
\`npm run key:new\` makes a key and the \`sha256:\` entry to add to \`API_KEYS\`.

### A first request
${localBase === undefined ? '' : FROM_LOCAL_INSTANCE}\`\`\`sh
curl -H "Authorization: Bearer $API_KEY" '${base}/pets?limit=5'
curl -X POST -H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json' \\
  -H "Idempotency-Key: $(uuidgen)" -d '{"name":"Rex","categoryId":1}' '${base}/pets'
\`\`\`
The create answers 201 with the animal and its assigned \`id\`; \`status\` is optional and has no default.

### Pagination
A list returns at most \`limit\` animals (default ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}), in ascending \`id\`. When more match, the
response carries \`Link: </v1/pets?limit=…&cursor=…>; rel="next"\`: request that address as given (relative to
the request) until a response has no \`next\` link. Each matching animal is visited exactly once, even while
animals are being added. Treat the cursor as opaque.

### Retrying a create
Send an \`Idempotency-Key\` (a UUID, say) with \`POST /pets\` and reuse it when you retry after a timeout, a lost
connection or a 503: the service creates the animal once and answers every retry with it (\`Idempotent-Replayed:
true\`). The same key with another body is 422 for a day by default. Without a key, retrying a create can create the
animal twice.

### Errors
Every error is JSON \`{"code", "message", "status"}\`; \`status\` equals the HTTP status and \`code\` is stable
(the full list is the \`Error\` schema's \`code\` enum). Fix the request on 400 (\`validation_failed\`,
\`malformed_json\`, \`invalid_cursor\`, \`invalid_idempotency_key\`), 413 and 415; fix the key on 401
(\`missing_api_key\`, \`invalid_api_key\`); 404 \`pet_not_found\` is an unknown id; wait \`Retry-After\` and retry on 429
(\`rate_limited\`) and 503 (\`storage_unavailable\`). The \`message\` is for people; branch on \`code\`.

### Exact int64
\`id\` and \`categoryId\` are int64 and the service keeps every digit up to ${INT64_MAX}, reading and
writing them as exact JSON integers. A JSON parser that reads numbers as doubles (\`JSON.parse\`, and so most
generated clients) rounds values above 2^53 (9007199254740992) without an error.
- The first-party TypeScript client, \`@animal-store/client\`, keeps them exact as \`bigint\`.
- openapi-typescript types int64 as \`number\`; with openapi-fetch, read the body with \`parseAs: "text"\` and a
  lossless parser (lossless-json, json-bigint), and map \`format: int64\` to \`bigint\` with its \`transform\` option.
- openapi-generator (typescript-fetch, typescript-axios) types it as \`number\` and parses with \`JSON.parse\`: pass a
  \`fetchApi\` (or axios \`transformResponse\`) that parses losslessly.
- orval types it as \`number\` unless \`override.useBigInt: true\`; it still needs a mutator that parses losslessly.
- Postman's Raw view keeps the digits; \`pm.response.json()\` in scripts rounds.

Browsers: CORS is off unless the deployment lists your origin. Health probes, this reference page (\`/docs\`) and metrics are described in \`${OPERATIONS_DOCUMENT_PATH}\` at the origin.`;
}
