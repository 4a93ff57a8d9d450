import { connect } from 'node:net';

/**
 * Sends the chunks over a raw TCP connection, pausing between them, and resolves with everything the server
 * sent once it closes: for requests fetch cannot make (trickled heads and bodies, bytes that are not HTTP),
 * and for hostile requests whose client must cost next to nothing.
 */
export function rawExchange(url: string, chunks: readonly string[], pauseMs = 0): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    const sendNext = (index: number) => {
      if (index >= chunks.length || socket.destroyed) return;
      socket.write(chunks[index]!);
      timer = setTimeout(() => sendNext(index + 1), pauseMs);
    };
    socket.on('connect', () => sendNext(0));
  });
}
