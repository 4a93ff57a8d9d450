/*
 * A process that does nothing, started on the servers' CPU with server-probe.ts preloaded (see
 * startMachineProbe in servers.ts). It has no work of its own to be late with, so its event-loop stalls are
 * the machine's: the hypervisor or the host holding the CPU, not any server's garbage collector. The harness
 * reads it around every run, beside the server it measures.
 */
setInterval(() => undefined, 2 ** 30);
process.on('SIGTERM', () => process.exit(0));
