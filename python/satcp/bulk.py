"""``satcp-bulk`` (``python -m satcp.bulk``): the bundled workload of
``satcp emulate``, on the kernel's own TCP (docs/emulation.md).

- ``serve``: accepts connections; each asks for a number of bytes (8 bytes,
  big-endian) and gets them. The congestion control is the socket's
  (``--cc``: ``TCP_CONGESTION``, e.g. reno, cubic, bbr). With ``--out``, the
  sending socket's ``TCP_INFO`` is sampled every ``--sample-ms`` into
  ``flow_series.csv``: the columns of ``satcp run``'s flow series that the
  kernel reports (cwnd, ssthresh, flight size and pipe in bytes, smoothed
  RTT, RTO, segments retransmitted, bytes acknowledged as bytes_delivered
  and snd_una, bytes sent as snd_max: sequence numbers from 0, as satcp's)
  and the kernel's own (ca_state, rttvar_s, min_rtt_s, delivery_rate_bps,
  pacing_rate_bps); ``satcp plot`` draws them.
- ``get ADDR``: downloads ``--bytes`` from a server; prints and writes
  (``transfer.json``) the download time, goodput and handshake RTT.
- ``http-serve`` / ``http-get ADDR``: HTTP/1.1 (persistent connection):
  a page and its objects, fetched one after the other; ``http.json`` has
  the page's time and each object's.
- ``quic-serve`` / ``quic-get ADDR``: the download over QUIC (aioquic;
  ``satcp.bulk_quic``), for QUIC against TCP on the same path.
- ``blast ADDR`` / ``sink``: UDP datagrams at a set rate, and their one-way
  delays (``make bench-emu``).
- ``echo`` / ``ping ADDR``: UDP probes and their echo; ``ping`` writes each
  probe's send time (on the emulation's clock: ``$SATCP_T0_NS``), its
  round trip and its one-way delay to ``ping.csv``, from the kernels'
  receive times (the hosts share the machine's clock).

Only the standard library: it runs wherever the hosts' Python does.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import http.client
import http.server
import json
import math
import os
import select
import socket
import struct
import sys
import threading
import time

from . import bulk_quic

__all__ = ["TcpInfo", "main", "tcp_info"]

TCP_INFO_BYTES = 232
INFINITE_SSTHRESH = 0x7FFFFFFF
CHUNK = 1 << 16
CONNECT_RETRY_S = 10.0
AVAILABLE_CC = "/proc/sys/net/ipv4/tcp_available_congestion_control"


class TcpInfo:
    """The fields of Linux's ``struct tcp_info`` (include/uapi/linux/tcp.h)
    this tool reads, from the bytes ``getsockopt(TCP_INFO)`` returns."""

    def __init__(self, raw: bytes):
        self.ca_state = raw[1]
        (
            self.rto_us,
            _ato,
            self.snd_mss,
            _rcv_mss,
            self.unacked,
            _sacked,
            self.lost,
            self.retrans,
        ) = struct.unpack_from("8I", raw, 8)
        (self.rtt_us, self.rttvar_us, self.snd_ssthresh, self.snd_cwnd) = struct.unpack_from(
            "4I", raw, 68
        )
        (self.total_retrans,) = struct.unpack_from("I", raw, 100)
        (self.sacked, self.lost) = struct.unpack_from("2I", raw, 28)
        (self.pacing_rate, _max_pacing) = struct.unpack_from("2Q", raw, 104)
        (self.bytes_acked,) = struct.unpack_from("Q", raw, 120)
        (self.min_rtt_us,) = struct.unpack_from("I", raw, 148)
        (self.delivery_rate,) = struct.unpack_from("Q", raw, 160)
        (self.bytes_sent,) = struct.unpack_from("Q", raw, 200)


def tcp_info(sock: socket.socket) -> TcpInfo:
    return TcpInfo(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_BYTES))


FLOW_SERIES_COLUMNS = (
    "time_s",
    "conn",
    "cwnd",
    "ssthresh",
    "flight_size",
    "pipe",
    "srtt_s",
    "rto_s",
    "retransmitted_segments",
    "bytes_delivered",
    "snd_una",
    "snd_max",
    "ca_state",
    "rttvar_s",
    "min_rtt_s",
    "delivery_rate_bps",
    "pacing_rate_bps",
)


def _row(t: float, conn: int, i: TcpInfo) -> list[object]:
    mss = i.snd_mss
    return [
        round(t, 6),
        conn,
        i.snd_cwnd * mss,
        # Empty while infinite (TCP_INFINITE_SSTHRESH, before the first loss).
        "" if i.snd_ssthresh >= INFINITE_SSTHRESH else i.snd_ssthresh * mss,
        i.unacked * mss,
        # Linux's packets in flight (tcp_packets_in_flight): the pipe.
        max(0, i.unacked - i.sacked - i.lost + i.retrans) * mss,
        i.rtt_us / 1e6,
        i.rto_us / 1e6,
        i.total_retrans,
        i.bytes_acked,
        i.bytes_acked,
        i.bytes_sent,
        i.ca_state,
        i.rttvar_us / 1e6,
        i.min_rtt_us / 1e6,
        i.delivery_rate * 8,
        i.pacing_rate * 8,
    ]


def _now_s() -> float:
    """Seconds on the emulation's clock (its relay's time zero), else since
    this process started."""
    t0 = int(os.environ.get("SATCP_T0_NS", "0")) or _START_NS
    return (time.monotonic_ns() - t0) / 1e9


_START_NS = time.monotonic_ns()


def _write_atomically(path: str, write) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        write(f)
    os.replace(tmp, path)


class Sampler(threading.Thread):
    """Samples a socket's TCP_INFO every ``interval`` seconds until stopped."""

    def __init__(self, sock: socket.socket, conn: int, interval: float):
        super().__init__(daemon=True)
        self.sock, self.conn, self.interval = sock, conn, interval
        self.rows: list[list[object]] = []
        self.done = threading.Event()

    def run(self) -> None:
        next_t = time.monotonic()
        while not self.done.is_set():
            self.sample()
            next_t += self.interval
            self.done.wait(max(0.0, next_t - time.monotonic()))

    def sample(self) -> None:
        try:
            self.rows.append(_row(_now_s(), self.conn, tcp_info(self.sock)))
        except OSError:
            self.done.set()


def _set_cc(sock: socket.socket, cc: str | None) -> None:
    if cc:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        except OSError as e:
            available = "?"
            with contextlib.suppress(OSError), open(AVAILABLE_CC) as f:
                available = f.read().strip()
            raise SystemExit(
                f"satcp-bulk: --cc: {cc!r}: {e.strerror} (available: {available})"
            ) from None


def serve(args: argparse.Namespace) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    _set_cc(listener, args.cc)
    listener.bind((args.bind, args.port))
    listener.listen(16)
    rows: list[list[object]] = []
    conn_id = 0
    try:
        while True:
            sock, _ = listener.accept()
            with sock:
                rows += _send(sock, conn_id, args)
            conn_id += 1
            if args.out:
                _write_series(os.path.join(args.out, "flow_series.csv"), rows)
            if args.once:
                return 0
    finally:
        listener.close()


def _send(sock: socket.socket, conn: int, args: argparse.Namespace) -> list[list[object]]:
    """Serves one download; the TCP_INFO samples taken meanwhile."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = _recv_exactly(sock, 8)
    (n,) = struct.unpack("!Q", request)
    sampler = Sampler(sock, conn, args.sample_ms / 1e3)
    sampler.start()
    block = bytes(CHUNK)
    left = n
    while left > 0:
        sent = sock.send(block[: min(CHUNK, left)])
        left -= sent
    # Until everything is acknowledged: the client closes after the last byte.
    sock.settimeout(600)
    with contextlib.suppress(OSError):
        sock.recv(1)
    sampler.done.set()
    sampler.join()
    sampler.sample()
    return sampler.rows


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            raise ConnectionError("the peer closed the connection")
        buf += b
    return buf


def _write_series(path: str, rows: list[list[object]]) -> None:
    def write(f) -> None:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(FLOW_SERIES_COLUMNS)
        w.writerows(rows)

    _write_atomically(path, write)


def _connect(addr: str, port: int, cc: str | None) -> tuple[socket.socket, float]:
    """A connection to the server (retried while it is not yet listening);
    the time its handshake took."""
    deadline = time.monotonic() + CONNECT_RETRY_S
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        _set_cc(sock, cc)
        t = time.monotonic()
        try:
            sock.connect((addr, port))
            return sock, time.monotonic() - t
        except ConnectionRefusedError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def get(args: argparse.Namespace) -> int:
    sock, handshake = _connect(args.addr, args.port, args.cc)
    with sock:
        start = time.monotonic()
        sock.sendall(struct.pack("!Q", args.bytes))
        got = 0
        half_at = None
        while got < args.bytes:
            b = sock.recv(1 << 20)
            if not b:
                break
            got += len(b)
            if half_at is None and got >= args.bytes // 2:
                half_at, half_bytes = time.monotonic(), got
        end = time.monotonic()
    if got < args.bytes:
        print(f"satcp-bulk: the server closed after {got} of {args.bytes} bytes", file=sys.stderr)
        return 1
    t = end - start
    second_half = (got - half_bytes) * 8 / (end - half_at) if end > half_at else float("nan")
    result = {
        "bytes": got,
        "cc": args.cc or "default",
        "start_s": round(_now_s() - (time.monotonic() - start), 6),
        "download_time_s": t,
        "goodput_bps": got * 8 / t,
        "second_half_goodput_bps": second_half,
        "handshake_rtt_s": handshake,
    }
    print(
        f"downloaded {got} bytes in {t:.3f} s: goodput {got * 8 / t / 1e6:.3f} Mb/s "
        f"(second half {second_half / 1e6:.3f} Mb/s), handshake {handshake * 1e3:.2f} ms"
    )
    if args.out:
        _write_atomically(
            os.path.join(args.out, "transfer.json"), lambda f: json.dump(result, f, indent=1)
        )
    return 0


#: A probe: its number and the wall-clock time it was sent (ns), then
#: padding; the answer appends when the echo's kernel received it and how
#: long the echo took to answer (ns).
PROBE = struct.Struct("!Iq")
#: Linux's SO_TIMESTAMPNS (asm-generic/socket.h; Python names it from 3.12).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
ANSWER = struct.Struct("!qq")


def _timestamped(sock: socket.socket) -> None:
    """Received datagrams carry the kernel's receive time (SO_TIMESTAMPNS,
    the wall clock): a probe's times are the path's, not the time a
    program took to wake up."""
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)


def _recv_timestamped(sock: socket.socket) -> tuple[bytes, int, object]:
    """A datagram, the kernel's time it arrived (ns) and its sender."""
    data, ancillary, _flags, peer = sock.recvmsg(2048, socket.CMSG_SPACE(16))
    at = time.time_ns()
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", value[:16])
            at = sec * 1_000_000_000 + nsec
    return data, at, peer


def echo(args: argparse.Namespace) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _timestamped(sock)
    sock.bind((args.bind, args.port))
    while True:
        data, at, peer = _recv_timestamped(sock)
        turnaround = time.time_ns() - at
        sock.sendto(data[: PROBE.size] + ANSWER.pack(at, turnaround), peer)


#: The number of the probes that only check that the echo answers.
HELLO = 0xFFFFFFFF


def _wait_for_echo(sock: socket.socket) -> None:
    """Until the echo answers (it may start after this program): a probe
    every 50 ms, for at most CONNECT_RETRY_S."""
    deadline = time.monotonic() + CONNECT_RETRY_S
    while time.monotonic() < deadline:
        sock.send(PROBE.pack(HELLO, 0))
        ready, _, _ = select.select([sock], [], [], 0.05)
        if ready:
            try:
                if PROBE.unpack_from(sock.recv(2048))[0] == HELLO:
                    return
            except (ConnectionRefusedError, struct.error):
                time.sleep(0.05)
    raise SystemExit("satcp-bulk ping: no answer from the echo")


def ping(args: argparse.Namespace) -> int:
    """Probes every ``--interval-ms``; for each answered one its send time,
    its one-way delay to the echo and its round trip without the echo's
    turnaround (both from the kernels' receive times)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _timestamped(sock)
    sock.connect((args.addr, args.port))
    _wait_for_echo(sock)
    sock.setblocking(False)
    sent: dict[int, float] = {}
    rows: list[tuple[int, float, float, float]] = []
    interval = args.interval_ms / 1e3
    next_t = time.monotonic()
    seq = 0
    end_wait = None
    padding = bytes(max(0, args.size - PROBE.size))
    while True:
        now = time.monotonic()
        if seq < args.count and now >= next_t:
            sent[seq] = _now_s()
            sock.send(PROBE.pack(seq, time.time_ns()) + padding)
            seq += 1
            next_t += interval
            if seq == args.count:
                end_wait = now + args.wait_s
        if end_wait is not None and (now > end_wait or len(rows) == args.count):
            break
        wake = next_t if seq < args.count else end_wait
        select.select([sock], [], [], max(0.0, wake - time.monotonic()))
        try:
            data, at, _ = _recv_timestamped(sock)
        except (BlockingIOError, ConnectionRefusedError):
            continue
        if len(data) < PROBE.size + ANSWER.size:
            continue
        s, sent_ns = PROBE.unpack_from(data)
        echo_at, turnaround = ANSWER.unpack_from(data, PROBE.size)
        if s in sent:
            rtt = (at - sent_ns - turnaround) / 1e9
            rows.append((s, sent.pop(s), rtt, (echo_at - sent_ns) / 1e9))
    print(f"{len(rows)} of {args.count} probes answered")
    if args.out:

        def write(f) -> None:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(("seq", "time_s", "rtt_s", "one_way_s"))
            w.writerows((s, round(t, 6), round(r, 9), round(o, 9)) for s, t, r, o in sorted(rows))

        _write_atomically(os.path.join(args.out, "ping.csv"), write)
    return 0


#: A datagram of ``blast``: its number and the wall-clock time it was sent (ns).
BLAST = struct.Struct("!Qq")


def blast(args: argparse.Namespace) -> int:
    """UDP datagrams of ``--size`` bytes to ADDR for ``--seconds``: at
    ``--rate-bps`` (sent in bursts every half millisecond), or as fast as
    this process can with a rate of 0."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    sock.connect((args.addr, args.port))
    padding = bytes(max(0, args.size - BLAST.size))
    per_s = args.rate_bps / ((args.size + 28) * 8) if args.rate_bps > 0 else 0.0
    start = time.monotonic()
    end = start + args.seconds
    n = 0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * per_s) + 1 if per_s else n + 64
        while n < due:
            try:
                sock.send(BLAST.pack(n, time.time_ns()) + padding)
            except (BlockingIOError, ConnectionRefusedError, OSError):
                break
            n += 1
        if per_s:
            time.sleep(0.0005)
    # The end marker, a few times: the sink stops on the first it gets.
    for _ in range(20):
        with contextlib.suppress(OSError):
            sock.send(BLAST.pack(2**64 - 1, n))
        time.sleep(0.01)
    print(f"sent {n} datagrams in {time.monotonic() - start:.2f} s")
    return 0


def sink(args: argparse.Namespace) -> int:
    """Receives ``blast``'s datagrams until its end marker (or
    ``--seconds`` of silence); writes ``sink.json``: datagrams sent and
    received, the rate they came at, the median gap between two, and their
    one-way delays (the kernel's receive time against the send time in the
    datagram)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    _timestamped(sock)
    sock.bind((args.bind, args.port))
    sock.settimeout(args.seconds)
    delays: list[int] = []
    gaps: list[int] = []
    first = last = 0
    sent = None
    while True:
        try:
            data, at, _ = _recv_timestamped(sock)
        except TimeoutError:
            break
        seq, sent_ns = BLAST.unpack_from(data)
        if seq == 2**64 - 1:
            sent = sent_ns
            break
        delays.append(at - sent_ns)
        if last:
            gaps.append(at - last)
        first = first or at
        last = at
    delays.sort()
    gaps.sort()

    def q(p: float) -> float:
        return delays[min(len(delays) - 1, int(p * len(delays)))] / 1e9 if delays else math.nan

    result = {
        "sent": sent,
        "received": len(delays),
        "rate_pps": (len(delays) - 1) / ((last - first) / 1e9) if last > first else math.nan,
        "one_way_p50_s": q(0.5),
        "one_way_p99_s": q(0.99),
        "one_way_min_s": q(0.0),
        "one_way_max_s": delays[-1] / 1e9 if delays else math.nan,
        # On a busy link: the transmission time of one datagram.
        "gap_p50_s": gaps[len(gaps) // 2] / 1e9 if gaps else math.nan,
    }
    if args.out:
        _write_atomically(os.path.join(args.out, "sink.json"), lambda f: json.dump(result, f))
    print(json.dumps(result))
    return 0


class _Objects(http.server.BaseHTTPRequestHandler):
    """GET /N answers N bytes (HTTP/1.1, persistent connections)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        try:
            n = int(self.path.strip("/"))
        except ValueError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(n))
        self.end_headers()
        block = bytes(CHUNK)
        while n > 0:
            self.wfile.write(block[: min(CHUNK, n)])
            n -= min(CHUNK, n)

    def log_message(self, *args: object) -> None:
        pass


def http_serve(args: argparse.Namespace) -> int:
    """An HTTP/1.1 server of generated objects, with ``--cc``."""

    class Server(http.server.ThreadingHTTPServer):
        def server_bind(self) -> None:
            _set_cc(self.socket, args.cc)
            super().server_bind()

    with Server((args.bind, args.port), _Objects) as server:
        server.serve_forever()
    return 0


def http_get(args: argparse.Namespace) -> int:
    """Fetches objects of ``--sizes`` bytes one after the other on one
    persistent connection (a page and its embedded objects); prints and
    writes (``http.json``) the page's time and each object's."""
    sizes = [int(x) for x in args.sizes.split(",")]
    deadline = time.monotonic() + CONNECT_RETRY_S
    while True:
        conn = http.client.HTTPConnection(args.addr, args.port, timeout=600)
        try:
            conn.connect()
            break
        except ConnectionRefusedError:
            conn.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    start = time.monotonic()
    objects = []
    for n in sizes:
        t = time.monotonic()
        conn.request("GET", f"/{n}")
        body = conn.getresponse().read()
        if len(body) != n:
            print(f"satcp-bulk: /{n}: {len(body)} bytes", file=sys.stderr)
            return 1
        objects.append({"bytes": n, "time_s": time.monotonic() - t})
    page = time.monotonic() - start
    conn.close()
    print(f"page of {len(sizes)} objects ({sum(sizes)} bytes) in {page:.3f} s")
    if args.out:
        result = {"page_time_s": page, "objects": objects}
        _write_atomically(os.path.join(args.out, "http.json"), lambda f: json.dump(result, f))
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="satcp-bulk", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve downloads")
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--cc", help="congestion control (TCP_CONGESTION): reno, cubic, bbr, ...")
    s.add_argument("--sample-ms", type=float, default=10.0, help="TCP_INFO sampling interval")
    s.add_argument("--out", help="write flow_series.csv here")
    s.add_argument("--once", action="store_true", help="exit after one download")
    g = sub.add_parser("get", help="download from a server")
    g.add_argument("addr")
    g.add_argument("--port", type=int, default=5001)
    g.add_argument("--bytes", type=int, default=10_000_000)
    g.add_argument("--cc", help="the client's congestion control (its ACKs only)")
    g.add_argument("--out", help="write transfer.json here")
    e = sub.add_parser("echo", help="answer UDP probes")
    e.add_argument("--bind", default="0.0.0.0")
    e.add_argument("--port", type=int, default=5002)
    q = sub.add_parser("ping", help="send UDP probes, measure their round trip")
    q.add_argument("addr")
    q.add_argument("--port", type=int, default=5002)
    q.add_argument("--count", type=int, default=10)
    q.add_argument("--interval-ms", type=float, default=100.0)
    q.add_argument("--size", type=int, default=64, help="UDP payload bytes (at least 12)")
    q.add_argument("--wait-s", type=float, default=2.0, help="wait for answers after the last")
    q.add_argument("--out", help="write ping.csv here")
    h = sub.add_parser("http-serve", help="an HTTP/1.1 server: GET /N answers N bytes")
    h.add_argument("--bind", default="0.0.0.0")
    h.add_argument("--port", type=int, default=8080)
    h.add_argument("--cc", help="congestion control (TCP_CONGESTION)")
    hg = sub.add_parser("http-get", help="fetch a page's objects on one connection")
    hg.add_argument("addr")
    hg.add_argument("--port", type=int, default=8080)
    hg.add_argument("--sizes", default="100000,20000,20000", help="object sizes, bytes")
    hg.add_argument("--out", help="write http.json here")
    bulk_quic.add_parsers(sub)
    b = sub.add_parser("blast", help="send UDP datagrams at a rate (benchmarks)")
    b.add_argument("addr")
    b.add_argument("--port", type=int, default=5003)
    b.add_argument("--size", type=int, default=1472, help="UDP payload bytes (at least 16)")
    b.add_argument("--rate-bps", type=float, default=0.0, help="IP bits per second; 0: flat out")
    b.add_argument("--seconds", type=float, default=2.0)
    k = sub.add_parser("sink", help="receive blast's datagrams, measure their delays")
    k.add_argument("--bind", default="0.0.0.0")
    k.add_argument("--port", type=int, default=5003)
    k.add_argument("--seconds", type=float, default=10.0, help="give up after this silence")
    k.add_argument("--out", help="write sink.json here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    commands = {"serve": serve, "get": get, "echo": echo, "ping": ping, "blast": blast}
    commands |= {"sink": sink, "http-serve": http_serve, "http-get": http_get}
    commands |= {"quic-serve": bulk_quic.quic_serve, "quic-get": bulk_quic.quic_get}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
