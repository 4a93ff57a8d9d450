/*
 * The Pod Security Standards' "restricted" profile (kubernetes.io/docs/concepts/security/pod-security-standards),
 * baseline controls included, as checks on a pod spec: what the admission controller would refuse, one message each.
 */

type Json = Record<string, any>;

const ALLOWED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const SELINUX_TYPES = [undefined, '', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
];

/** What the restricted profile refuses in this pod spec; empty when it admits it. */
export function restrictedViolations(pod: Json): string[] {
  const podContext: Json = pod.securityContext ?? {};
  const containers: Json[] = [...(pod.containers ?? []), ...(pod.initContainers ?? []), ...(pod.ephemeralContainers ?? [])];
  const contexts = containers.map((container) => [container.name as string, (container.securityContext ?? {}) as Json] as const);
  const found: string[] = [];
  const check = (ok: boolean, message: string) => ok || found.push(message);
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) check(pod[field] !== true, `${field} is set`);
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    check(ALLOWED_VOLUMES.includes(type ?? ''), `volume ${volume.name} is of type ${type}`);
  }
  for (const sysctl of podContext.sysctls ?? []) check(SAFE_SYSCTLS.includes(sysctl.name), `sysctl ${sysctl.name} is not safe`);
  for (const [where, context] of [['pod', podContext] as const, ...contexts]) {
    check(context.windowsOptions?.hostProcess !== true, `${where}: hostProcess`);
    check(context.runAsUser !== 0, `${where}: runAsUser 0`);
    check(SELINUX_TYPES.includes(context.seLinuxOptions?.type) && !context.seLinuxOptions?.user && !context.seLinuxOptions?.role, `${where}: seLinuxOptions`);
    check(context.seccompProfile?.type !== 'Unconfined', `${where}: seccompProfile Unconfined`);
    check(context.appArmorProfile?.type !== 'Unconfined', `${where}: appArmorProfile Unconfined`);
  }
  for (const [index, [name, context]] of contexts.entries()) {
    check(context.privileged !== true, `${name}: privileged`);
    check(context.allowPrivilegeEscalation === false, `${name}: allowPrivilegeEscalation is not false`);
    check(context.runAsNonRoot === true || (podContext.runAsNonRoot === true && context.runAsNonRoot !== false), `${name}: runAsNonRoot is not true`);
    const seccomp = context.seccompProfile?.type ?? podContext.seccompProfile?.type;
    check(seccomp === 'RuntimeDefault' || seccomp === 'Localhost', `${name}: seccompProfile is not RuntimeDefault or Localhost`);
    check((context.capabilities?.drop ?? []).includes('ALL'), `${name}: capabilities do not drop ALL`);
    check((context.capabilities?.add ?? []).every((cap: string) => cap === 'NET_BIND_SERVICE'), `${name}: capabilities add more than NET_BIND_SERVICE`);
    check(context.procMount === undefined || context.procMount === 'Default', `${name}: procMount`);
    for (const port of containers[index]!.ports ?? []) check(!port.hostPort, `${name}: hostPort ${port.hostPort}`);
  }
  return found;
}
