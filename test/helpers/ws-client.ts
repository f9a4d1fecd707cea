import WebSocket from 'ws';

/** A WebSocket JSON-RPC test client that collects every message. */
export class WsClient {
  readonly messages: unknown[] = [];
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve(new WsClient(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /**
   * Sends raw text and waits for its reply: the message with the request's id (subscription
   * notifications in between are skipped), or, for a request without an id, the next message.
   */
  async request(text: string, timeoutMs = 10_000): Promise<unknown> {
    let id: unknown;
    try {
      const parsed = JSON.parse(text) as { id?: unknown };
      id = !Array.isArray(parsed) && parsed && typeof parsed === 'object' && 'id' in parsed ? parsed.id : undefined;
    } catch {
      id = undefined;
    }
    const from = this.messages.length;
    this.socket.send(text);
    const isReply = (m: unknown): boolean =>
      (m as { method?: string }).method === undefined &&
      (id === undefined || (m as { id?: unknown }).id === id || (m as { id?: unknown }).id === null);
    for (;;) {
      const found = this.messages.slice(from).find(isReply);
      if (found !== undefined) return found;
      await this.waitForCount(this.messages.length + 1, timeoutMs);
    }
  }

  async waitForCount(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(`timed out waiting for ${count} WebSocket messages (have ${this.messages.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
