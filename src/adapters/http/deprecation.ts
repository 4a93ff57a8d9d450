/**
 * getPet is deprecated since v1.0.0 and removed at the sunset instant. The header forms follow
 * RFC 9745 (Deprecation: @epoch-seconds) and RFC 8594 (Sunset: IMF-fixdate).
 */
export const GET_PET_DEPRECATED_AT = Date.UTC(2026, 10, 21);
export const GET_PET_SUNSET_AT = Date.UTC(2030, 11, 5);
export const GET_PET_SUCCESSOR = '/v1/pets';

export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  Deprecation: `@${GET_PET_DEPRECATED_AT / 1000}`,
  Sunset: new Date(GET_PET_SUNSET_AT).toUTCString(),
  Link: `<${GET_PET_SUCCESSOR}>; rel="successor-version"`,
});

const GET_PET_PATH = /^\/v1\/pets\/[^/]+$/;

/** Whether a request is for getPet: every such response, the 401s and 404s included, carries the notice. */
export function isGetPet(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && GET_PET_PATH.test(path);
}
