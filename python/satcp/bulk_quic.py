"""``satcp-bulk quic-serve`` / ``quic-get``: the download of ``satcp-bulk
serve`` / ``get`` over QUIC (aioquic, its own congestion control), for QUIC
against TCP on one emulated path (docs/emulation.md).

The client asks for N bytes on one bidirectional stream (8 bytes,
big-endian, then the end of its side) and reads the answer to its end.
The server's certificate is self-signed and made at start; the client
does not check it (an emulation's hosts are the user's own).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import ssl
import struct
import tempfile
import time

ALPN = ["satcp-bulk"]


def _need_aioquic() -> None:
    try:
        import aioquic  # noqa: F401
    except ImportError:
        raise SystemExit("satcp-bulk: QUIC needs aioquic (pip install aioquic)") from None


def _self_signed(directory: str) -> tuple[str, str]:
    """A certificate and its key for the server, as PEM files in ``directory``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "satcp-bulk")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    return cert_path, key_path


def _configuration(is_client: bool, cc: str | None):
    from aioquic.quic.configuration import QuicConfiguration

    config = QuicConfiguration(is_client=is_client, alpn_protocols=ALPN)
    if cc:
        config.congestion_control_algorithm = cc
    return config


def quic_serve(args: argparse.Namespace) -> int:
    _need_aioquic()
    from aioquic.asyncio import QuicConnectionProtocol, serve
    from aioquic.quic.events import StreamDataReceived

    class Downloads(QuicConnectionProtocol):
        def __init__(self, *a, **k) -> None:
            super().__init__(*a, **k)
            self.requests: dict[int, bytes] = {}

        def quic_event_received(self, event) -> None:
            if not isinstance(event, StreamDataReceived):
                return
            data = self.requests.get(event.stream_id, b"") + event.data
            self.requests[event.stream_id] = data
            if event.end_stream and len(data) >= 8:
                (n,) = struct.unpack_from("!Q", data)
                self._quic.send_stream_data(event.stream_id, bytes(n), end_stream=True)
                self.transmit()

    async def main(config) -> None:
        await serve(args.bind, args.port, configuration=config, create_protocol=Downloads)
        await asyncio.Future()

    with tempfile.TemporaryDirectory() as d:
        config = _configuration(False, args.cc)
        config.load_cert_chain(*_self_signed(d))
        asyncio.run(main(config))
    return 0


def quic_get(args: argparse.Namespace) -> int:
    _need_aioquic()
    from aioquic.asyncio import connect

    async def download() -> tuple[int, float, float]:
        config = _configuration(True, args.cc)
        config.verify_mode = ssl.CERT_NONE
        deadline = time.monotonic() + 10.0
        while True:
            t = time.monotonic()
            try:
                async with connect(args.addr, args.port, configuration=config) as client:
                    handshake = time.monotonic() - t
                    start = time.monotonic()
                    reader, writer = await client.create_stream()
                    writer.write(struct.pack("!Q", args.bytes))
                    writer.write_eof()
                    got = 0
                    while True:
                        b = await reader.read(1 << 16)
                        if not b:
                            break
                        got += len(b)
                    return got, time.monotonic() - start, handshake
            except ConnectionError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    got, t, handshake = asyncio.run(asyncio.wait_for(download(), args.timeout))
    if got < args.bytes:
        print(f"satcp-bulk: QUIC: {got} of {args.bytes} bytes")
        return 1
    result = {
        "bytes": got,
        "protocol": "quic",
        "cc": args.cc or "default",
        "download_time_s": t,
        "goodput_bps": got * 8 / t,
        "handshake_s": handshake,
    }
    print(f"QUIC: downloaded {got} bytes in {t:.3f} s: goodput {got * 8 / t / 1e6:.3f} Mb/s")
    if args.out:
        path = os.path.join(args.out, "quic_transfer.json")
        with open(path + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(path + ".tmp", path)
    return 0


def add_parsers(sub) -> None:
    s = sub.add_parser("quic-serve", help="serve downloads over QUIC (aioquic)")
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--port", type=int, default=4433)
    s.add_argument("--cc", help="aioquic's congestion control: reno, cubic")
    g = sub.add_parser("quic-get", help="download over QUIC (aioquic)")
    g.add_argument("addr")
    g.add_argument("--port", type=int, default=4433)
    g.add_argument("--bytes", type=int, default=10_000_000)
    g.add_argument("--cc", help="aioquic's congestion control: reno, cubic")
    g.add_argument("--timeout", type=float, default=600.0, help="give up after, seconds")
    g.add_argument("--out", help="write quic_transfer.json here")
