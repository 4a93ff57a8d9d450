/** Identifies an API key without revealing it: safe to log and to scope limits by. */
export type ApiKeyId = string;

export interface ApiKeyVerifier {
  /** The id of the configured key equal to `presentedKey`, or undefined. Runs in constant time per configured key. */
  verify(presentedKey: string): ApiKeyId | undefined;
}
