/** The target of the `rel="next"` link in an RFC 8288 Link header, or undefined when there is none. */
export function nextLinkTarget(header: string | null): string | undefined {
  if (header === null) return undefined;
  // link-value = "<" URI-Reference ">" *( ";" link-param ); values are comma-separated.
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[\w!#$%&'*+.^`|~-]+\s*(?:=\s*(?:"[^"]*"|[^\s;,]+))?)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(match[2] ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1];
  }
  return undefined;
}
