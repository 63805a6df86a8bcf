import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { createSecureContext, TLSSocket } from "node:tls";
import type { ServerCertificate } from "./certificates.js";

/** A running front: one loopback port that speaks HTTP and HTTPS. */
export interface Front {
  /** The port on 127.0.0.1. */
  readonly port: number;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/** What a front serves. */
export interface FrontOptions {
  /** The plain-HTTP server every request is passed to (httpbin). */
  readonly upstream: { readonly host: string; readonly port: number };
  /** What it presents to TLS clients. */
  readonly certificate: ServerCertificate;
}

/** Hop-by-hop headers: they describe one connection, so each side sets its own. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);

function endToEnd(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const key = rawHeaders[index] ?? "";
    if (!HOP_BY_HOP.has(key.toLowerCase())) kept.push(key, rawHeaders[index + 1] ?? "");
  }
  return kept;
}

/**
 * The socket as a plain stream, starting with the bytes already read from it. A TLSSocket over
 * the socket itself would read its handle directly and miss them.
 */
function replay(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  stream.push(first);
  socket.on("data", (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on("end", () => stream.push(null));
  socket.on("close", () => stream.destroy());
  return stream;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts the front on 127.0.0.1. It stands where a public service's web server stands, which
 * werkzeug's development server cannot: it peeks at each connection's first byte (0x16 opens a
 * TLS handshake) so one host:port answers both `http://` and `https://`, keeps connections alive
 * (`Connection: keep-alive`, or `close` when the client asks), and takes chunked request bodies,
 * which httpbin refuses under werkzeug. Request bodies are passed on whole, with a length.
 */
export async function startFront(options: FrontOptions): Promise<Front> {
  const secureContext = createSecureContext({
    cert: options.certificate.certPem,
    key: options.certificate.keyPem,
  });
  const sockets = new Set<Socket>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    const upstream = httpRequest({
      host: options.upstream.host,
      port: options.upstream.port,
      method: request.method,
      path: request.url,
      agent: false,
    });
    const headers = new Map<string, string[]>();
    const raw = endToEnd(request.rawHeaders);
    for (let index = 0; index + 1 < raw.length; index += 2) {
      const key = raw[index] ?? "";
      if (key.toLowerCase() === "content-length") continue;
      const values = headers.get(key) ?? [];
      headers.set(key, [...values, raw[index + 1] ?? ""]);
    }
    for (const [key, values] of headers)
      upstream.setHeader(key, values.length === 1 ? (values[0] ?? "") : values);
    if (body.length > 0 || request.headers["content-length"] !== undefined)
      upstream.setHeader("Content-Length", String(body.length));
    // httpbin reads the scheme the client used from this header, as behind its real proxy.
    if (request.socket instanceof TLSSocket) upstream.setHeader("X-Forwarded-Proto", "https");
    // Else Node adds a Connection header of its own, which httpbin would echo.
    upstream.removeHeader("connection");
    upstream.on("response", (answer) => {
      response.writeHead(
        answer.statusCode ?? 502,
        answer.statusMessage ?? "",
        endToEnd(answer.rawHeaders),
      );
      answer.pipe(response);
    });
    upstream.on("error", () => {
      response.destroy();
    });
    response.on("close", () => {
      upstream.destroy();
    });
    upstream.end(body);
  };

  const http = createHttpServer((request, response) => {
    handle(request, response).catch(() => {
      response.destroy();
    });
  });
  // Idle connections stay open, as a client's pool expects of a real server; close() drops them.
  http.keepAliveTimeout = 0;

  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {
      socket.destroy();
    });
    socket.once("data", (first: Buffer) => {
      if (first[0] === 0x16) {
        const secure = new TLSSocket(replay(socket, first), { isServer: true, secureContext });
        secure.on("error", () => {
          secure.destroy();
        });
        http.emit("connection", secure);
      } else {
        socket.pause();
        socket.unshift(first);
        http.emit("connection", socket);
        socket.resume();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      http.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
