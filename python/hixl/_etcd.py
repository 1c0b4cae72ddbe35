# SPDX-License-Identifier: MIT
"""A small etcd v3 client over etcd's JSON gateway (HTTP POST /v3/kv/put,
/v3/kv/range, /v3/kv/deleterange; keys and values base64 in JSON; etcd 3.4
and later serve /v3/), with the Python standard library only: what
hixl.mooncake needs to publish and look up Mooncake's metadata keys.

Endpoints are given as Mooncake takes an etcd metadata server:
"etcd://host:port", a bare "host:port", or several of either form's
endpoints separated by ";" (Mooncake's Go etcd wrapper) or "," (etcd's own
clients), each "host:port", "[ipv6]:port" or "http://host:port".  A request
goes to the endpoint that answered last, then to the others in turn.  No
TLS, no authentication.
"""

import base64
import errno
import http.client
import json
import socket

#: seconds to connect to one endpoint and for each of its replies (Mooncake's
#: etcd client dials for 5 s)
TIMEOUT = 5.0


class EtcdError(Exception):
    """A request that failed: .errno is a positive errno - ECONNREFUSED,
    ETIMEDOUT, EHOSTUNREACH, ... when no endpoint could be reached (the
    last endpoint's), EPROTO when one answered with an HTTP error or
    something that is not etcd's JSON; str() says which endpoint and why."""

    def __init__(self, err, message):
        super().__init__(message)
        self.errno = err


def parse_endpoints(server):
    """The (host, port) endpoints of an etcd metadata server string
    ("etcd://h:p", "h:p", lists with ";" or ","), in the order given.
    Raises ValueError naming what is wrong: another scheme than etcd://
    (redis://, http://, ...), no endpoint, an endpoint without a port or
    with a port outside 1..65535."""
    rest = server
    if "://" in server:
        scheme, _, rest = server.partition("://")
        if scheme != "etcd":
            raise ValueError("%r: %s:// metadata servers are not supported: hixl.mooncake "
                             "reaches only etcd (\"etcd://host:port\" or \"host:port\")"
                             % (server, scheme))
    eps = []
    for ep in rest.replace(",", ";").split(";"):
        ep = ep.strip()
        if ep.startswith("http://"):
            ep = ep[len("http://"):]
        ep = ep.rstrip("/")
        if not ep:
            continue
        if ep.startswith("["):
            host, _, port = ep[1:].partition("]")
            port = port[1:] if port.startswith(":") else ""
        else:
            host, _, port = ep.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError("%r: etcd endpoint %r is not host:port" % (server, ep))
        eps.append((host, int(port)))
    if not eps:
        raise ValueError("%r: no etcd endpoint (\"etcd://host:port\")" % (server,))
    return eps


def _b64(data):
    return base64.b64encode(data).decode("ascii")


class Etcd:
    """A client of one etcd cluster: Etcd(parse_endpoints(server)).  Makes
    no connection until a request; a connection per request."""

    def __init__(self, endpoints, timeout=None):
        """endpoints: (host, port) pairs; timeout: seconds, TIMEOUT when
        None, for the connect to each endpoint and each reply."""
        self.endpoints = list(endpoints)
        self.timeout = TIMEOUT if timeout is None else float(timeout)
        self._first = 0

    def _post(self, path, body):
        """POST body (a dict, as JSON) to path on the first endpoint that
        answers; its JSON reply as a dict.  Raises EtcdError."""
        data = json.dumps(body).encode()
        last = None
        n = len(self.endpoints)
        for i in range(n):
            k = (self._first + i) % n
            host, port = self.endpoints[k]
            where = "etcd %s:%d" % ("[%s]" % host if ":" in host else host, port)
            conn = http.client.HTTPConnection(host, port, timeout=self.timeout)
            try:
                conn.request("POST", path, data, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                reply = resp.read()
            except socket.timeout:
                last = EtcdError(errno.ETIMEDOUT, "%s: no answer within %g s (POST %s)"
                                 % (where, self.timeout, path))
                continue
            except OSError as e:
                last = EtcdError(e.errno or errno.EHOSTUNREACH, "%s unreachable: %s"
                                 % (where, e.strerror or e))
                continue
            except http.client.HTTPException as e:
                last = EtcdError(errno.EPROTO, "%s: POST %s: %r" % (where, path, e))
                continue
            finally:
                conn.close()
            self._first = k
            if resp.status != 200:
                raise EtcdError(errno.EPROTO, "%s: POST %s: HTTP %d %s" % (
                    where, path, resp.status, reply[:200].decode("utf-8", "replace")))
            try:
                got = json.loads(reply)
                if not isinstance(got, dict):
                    raise ValueError("not an object")
                return got
            except ValueError as e:
                raise EtcdError(errno.EPROTO, "%s: POST %s: not etcd's JSON (%s)"
                                % (where, path, e))
        raise last

    def put(self, key, value):
        """Set key (bytes) to value (bytes).  Raises EtcdError."""
        self._post("/v3/kv/put", {"key": _b64(key), "value": _b64(value)})

    def get(self, key):
        """key's value (bytes), or None when etcd has no such key.  Raises
        EtcdError."""
        got = self._post("/v3/kv/range", {"key": _b64(key)})
        for kv in got.get("kvs") or ():
            if base64.b64decode(kv.get("key", "")) == key:
                return base64.b64decode(kv.get("value", ""))
        return None

    def delete(self, key):
        """Delete key (bytes).  Returns how many keys went, 0 or 1.  Raises
        EtcdError."""
        got = self._post("/v3/kv/deleterange", {"key": _b64(key)})
        return int(got.get("deleted", 0))
