/*
 * Whether a NetworkPolicy's ingress rules admit a connection (kubernetes.io/docs/concepts/services-networking/
 * network-policies): a rule admits it when one of its ports matches (no ports: any) and one of its peers does
 * (no from: any); a peer with both selectors needs both to match. Only label selectors with matchLabels are read.
 */

type Json = Record<string, any>;
type Labels = Readonly<Record<string, string>>;

export interface Connection {
  /** The port the connection reaches, by number, and the container port's name for that number. */
  readonly port: number;
  readonly portName?: string;
  readonly namespaceLabels: Labels;
  readonly podLabels: Labels;
  /** Whether the source pod is in the policy's own namespace. */
  readonly sameNamespace: boolean;
}

const matches = (selector: Json | undefined, labels: Labels) => {
  if (selector?.matchExpressions !== undefined) throw new Error('matchExpressions is not evaluated here');
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
};

function peerAdmits(peer: Json, connection: Connection): boolean {
  if (peer.ipBlock !== undefined) throw new Error('ipBlock is not evaluated here');
  const namespaceOk = peer.namespaceSelector === undefined ? connection.sameNamespace : matches(peer.namespaceSelector, connection.namespaceLabels);
  return namespaceOk && (peer.podSelector === undefined || matches(peer.podSelector, connection.podLabels));
}

const portAdmits = (port: Json, connection: Connection) =>
  (port.protocol ?? 'TCP') === 'TCP' && (port.port === undefined || port.port === connection.port || port.port === connection.portName);

/** Whether the policy lets this connection in to the pods it selects. */
export function ingressAdmits(policy: Json, connection: Connection): boolean {
  return (policy.spec.ingress ?? []).some(
    (rule: Json) =>
      (rule.ports === undefined || rule.ports.some((port: Json) => portAdmits(port, connection))) &&
      (rule.from === undefined || rule.from.some((peer: Json) => peerAdmits(peer, connection))),
  );
}
