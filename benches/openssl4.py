#!/usr/bin/env python3
"""Times public-key operations on OpenSSL 4.0, the OpenSSL that Python's `cryptography`
wheel bundles (the system's `openssl` is 3.0), for `montmul bench --pk --openssl4`.

    python3 benches/openssl4.py OP KEY.pem [PEER.pem] [--rounds R] [--stat median|min] [--json]
    python3 benches/openssl4.py --version

OP is one of rsa-sign, rsa-verify, dsa-sign, dsa-verify, dh-derive; KEY.pem a private
key in PEM (PKCS#8 or traditional), PEER.pem the peer's public key for dh-derive. The
message is the one `montmul bench --pk` signs. The result of one operation is checked
first (a signature must verify, a derivation must give a secret), then R rounds are
timed, each round long enough for about 20 ms, and the median round's time per
operation (or, with `--stat min`, the fastest round's) is printed, in microseconds, with
the OpenSSL version. `--version` prints only the version (and
fails, status 2, where `cryptography` is missing). The Python call adds about a microsecond to
each operation, against the hundreds that the operations take.
"""

import argparse
import json
import statistics
import sys
import time

MESSAGE = b"montmul bench --pk"


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, private):
    from cryptography.hazmat.primitives import serialization

    data = open(path, "rb").read()
    if private:
        return serialization.load_pem_private_key(data, password=None)
    return serialization.load_pem_public_key(data)


def operation(op, key_path, peer_path):
    """The operation as a closure, after one checked run."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    key = load(key_path, private=True)
    sha256 = hashes.SHA256()
    if op == "rsa-sign":
        pkcs1 = padding.PKCS1v15()
        key.public_key().verify(key.sign(MESSAGE, pkcs1, sha256), MESSAGE, pkcs1, sha256)
        return lambda: key.sign(MESSAGE, pkcs1, sha256)
    if op == "rsa-verify":
        pkcs1 = padding.PKCS1v15()
        sig, public = key.sign(MESSAGE, pkcs1, sha256), key.public_key()
        public.verify(sig, MESSAGE, pkcs1, sha256)
        return lambda: public.verify(sig, MESSAGE, pkcs1, sha256)
    if op == "dsa-sign":
        key.public_key().verify(key.sign(MESSAGE, sha256), MESSAGE, sha256)
        return lambda: key.sign(MESSAGE, sha256)
    if op == "dsa-verify":
        sig, public = key.sign(MESSAGE, sha256), key.public_key()
        public.verify(sig, MESSAGE, sha256)
        return lambda: public.verify(sig, MESSAGE, sha256)
    if op == "dh-derive":
        if peer_path is None:
            fail("dh-derive needs the peer's public key")
        peer = load(peer_path, private=False)
        if not key.exchange(peer):
            fail("empty shared secret")
        return lambda: key.exchange(peer)
    fail(f"unknown operation {op}")


def measure(run, rounds, stat):
    """Microseconds per call in the median round (or the fastest, `stat` = "min") of
    `rounds` rounds of about 20 ms each."""
    iters, start = 1, time.perf_counter()
    while True:
        t = time.perf_counter()
        for _ in range(iters):
            run()
        if time.perf_counter() - t > 0.02 or time.perf_counter() - start > 1:
            break
        iters *= 2
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters):
            run()
        times.append((time.perf_counter() - t) / iters * 1e6)
    return min(times) if stat == "min" else statistics.median(times)


def main():
    if sys.argv[1:] == ["--version"]:
        try:
            from cryptography.hazmat.backends.openssl import backend
        except ImportError:
            fail("Python's cryptography package is not installed")
        print(backend.openssl_version_text())
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op")
    ap.add_argument("key")
    ap.add_argument("peer", nargs="?")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        from cryptography.hazmat.backends.openssl import backend
    except ImportError:
        fail("Python's cryptography package is not installed")
    try:
        us = measure(operation(args.op, args.key, args.peer), max(1, args.rounds), args.stat)
    except Exception as e:  # a bad key or a failed check: one line, status 2
        fail(str(e).splitlines()[0] if str(e) else type(e).__name__)
    version = backend.openssl_version_text()
    if args.json:
        print(json.dumps({"op": args.op, "us": us, "stat": args.stat, "openssl": version}))
    else:
        print(f"{args.op}: {us:.1f} us, {args.stat} ({version})")


if __name__ == "__main__":
    main()
