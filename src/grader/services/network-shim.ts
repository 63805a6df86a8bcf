/** What the test interpreter's network looks like. */
export interface NetworkShimOptions {
  /** Outside host names that resolve, each to a loopback address of its own (127.80.0.0/16). */
  readonly hosts: Readonly<Record<string, string>>;
  /** Where a connection to such an address and port really goes: a loopback stand-in. */
  readonly routes: readonly {
    readonly address: string;
    readonly port: number;
    readonly to: readonly [string, number];
  }[];
  /** A CA certificate (PEM) trusted by every TLS context, as a public CA would be. */
  readonly caPem: string;
}

/**
 * The `sitecustomize` that gives a test run its stand-in network, in every Python process the
 * tests start (PYTHONPATH is inherited). It changes the network, never the code under test:
 * - names: the stand-in hosts resolve to their loopback addresses; any other name except
 *   localhost and this machine's own is unknown (EAI_NONAME), as on a machine without DNS;
 * - routes: a connection to a stand-in address goes to its stand-in; on any other port it is
 *   refused, as by a host with nothing listening there;
 * - everything else off this machine is a blackhole: the connection is sent to a loopback
 *   listener whose accept queue is full, so the kernel drops its SYNs and connect() times out
 *   exactly as towards an unroutable address, and no packet leaves the machine;
 * - the CA is added to whatever a TLS context is told to trust (a bundle file, certifi, the
 *   system store), so certificate checks pass for the stand-ins and nothing else changes.
 * At the end it runs the next `sitecustomize` on sys.path, so the grade's own one still runs.
 */
export function renderNetworkShim(options: NetworkShimOptions): string {
  const config = JSON.stringify({
    hosts: options.hosts,
    routes: options.routes.map((route) => [route.address, route.port, route.to[0], route.to[1]]),
    ca: options.caPem,
  });
  return `# lab: the stand-in network of this test run; see lab's docs/design/requests-offline.md.
import json as _json

_CONFIG = _json.loads(${JSON.stringify(config)})


def _lab_network(config):
    import errno
    import socket
    import ssl
    import threading

    hosts = dict(config["hosts"])
    addresses = set(hosts.values())
    routes = dict(((a, p), (h, q)) for a, p, h, q in config["routes"])
    local_names = set(["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"])
    try:
        local_names.add(socket.gethostname().lower())
    except OSError:
        pass
    real_getaddrinfo = socket.getaddrinfo
    real_gethostbyname = socket.gethostbyname
    real_gethostbyname_ex = socket.gethostbyname_ex
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    lock = threading.Lock()
    sinks = {}

    def name_of(host):
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        return host.lower().rstrip(".") if isinstance(host, str) else host

    def is_numeric(host):
        for family in (socket.AF_INET, socket.AF_INET6):
            try:
                socket.inet_pton(family, host.split("%")[0])
                return True
            except (OSError, ValueError):
                pass
        return False

    def unknown():
        return socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        name = name_of(host)
        if name in hosts:
            return real_getaddrinfo(hosts[name], port, family, type, proto, flags)
        if not name or name in local_names or is_numeric(name):
            return real_getaddrinfo(host, port, family, type, proto, flags)
        raise unknown()

    def gethostbyname(host):
        name = name_of(host)
        if name in hosts:
            return hosts[name]
        if not name or name in local_names or is_numeric(name):
            return real_gethostbyname(host)
        raise unknown()

    def gethostbyname_ex(host):
        name = name_of(host)
        if name in hosts:
            return (name, [], [hosts[name]])
        if not name or name in local_names or is_numeric(name):
            return real_gethostbyname_ex(host)
        raise unknown()

    def is_local(host):
        import ipaddress

        ip = ipaddress.ip_address(host.split("%")[0])
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback or ip.is_unspecified

    def sink(family, kind):
        # "refused": bound, never listening. "blackhole": listening with a backlog of 0 and one
        # connection that is never accepted, so the queue is full and new SYNs are dropped.
        with lock:
            if (family, kind) not in sinks:
                loopback = "127.0.0.1" if family == socket.AF_INET else "::1"
                holder = socket.socket(family, socket.SOCK_STREAM)
                holder.bind((loopback, 0))
                held = [holder]
                if kind == "blackhole":
                    holder.listen(0)
                    filler = socket.socket(family, socket.SOCK_STREAM)
                    filler.settimeout(5)
                    real_connect(filler, holder.getsockname()[:2])
                    held.append(filler)
                sinks[(family, kind)] = (held, holder.getsockname()[:2])
            return sinks[(family, kind)][1]

    def target(sock, address):
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
            return address
        host, port = name_of(address[0]), address[1]
        if not host:
            return address
        if not is_numeric(host):
            found = getaddrinfo(host, port, sock.family, socket.SOCK_STREAM)
            host = found[0][4][0]
        if (host, port) in routes:
            return routes[(host, port)]
        if host in addresses:
            return sink(sock.family, "refused")
        if is_local(host):
            return address
        try:
            return sink(sock.family, "blackhole")
        except OSError:
            raise OSError(errno.ENETUNREACH, "Network is unreachable")

    def connect(self, address):
        return real_connect(self, target(self, address))

    def connect_ex(self, address):
        return real_connect_ex(self, target(self, address))

    socket.getaddrinfo = getaddrinfo
    socket.gethostbyname = gethostbyname
    socket.gethostbyname_ex = gethostbyname_ex
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex

    real_load = ssl.SSLContext.load_verify_locations
    real_defaults = ssl.SSLContext.set_default_verify_paths

    def load_verify_locations(self, cafile=None, capath=None, cadata=None):
        real_load(self, cafile, capath, cadata)
        real_load(self, cadata=config["ca"])

    def set_default_verify_paths(self):
        real_defaults(self)
        real_load(self, cadata=config["ca"])

    ssl.SSLContext.load_verify_locations = load_verify_locations
    ssl.SSLContext.set_default_verify_paths = set_default_verify_paths


def _lab_next_sitecustomize():
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_lab_network(_CONFIG)
_lab_next_sitecustomize()
`;
}
