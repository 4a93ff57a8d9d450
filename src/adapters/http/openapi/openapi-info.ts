/** What the interface document and the operations document share: their info, addresses and options. */

export interface OpenApiServers {
  readonly production: string;
  readonly staging: string;
  /** The environment serving the documents (APP_ENV), named in their first server. */
  readonly serving?: string;
}

/** The first server of both documents: relative, so it resolves against wherever the document was fetched. */
export const servingServer = (url: string, servers: OpenApiServers) => ({
  url,
  description: servers.serving === undefined ? 'The service serving this document' : `The service serving this document (${servers.serving})`,
});

export interface OpenApiOptions {
  /** Whether GET /metrics is served on the API port (and so belongs in the operations document). */
  readonly metrics: boolean;
}

/** Where the operations document is served: at the origin, beside the endpoints it describes. */
export const OPERATIONS_DOCUMENT_PATH = '/openapi-operations.json';

export const INFO = {
  version: '1.0.0',
  contact: { name: 'Animal Store API team', url: 'https://api.animal-store.example/docs' },
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
};
