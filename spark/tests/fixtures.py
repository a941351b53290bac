"""Test material for policy_spark: tokens signed with the repository's test keys (by Python's
`cryptography`, independently of the engine), policies beside their keys, generated logs, and
`policy-run batch` itself as the reference."""

import base64
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import Dict, List, Optional

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_KEYS = os.path.join(REPOSITORY, "Policies", "keys")
ISSUER = "https://issuer.test"
AUDIENCE = "audience-1"
# 2026-11-01T00:00:00Z, the replayed logs' first day.
DAY = 1793491200


def policy_run() -> str:
    """The binary under test: $POLICY_RUN, else the debug build of this checkout."""
    path = os.environ.get("POLICY_RUN") or os.path.join(REPOSITORY, ".build", "debug", "policy-run")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no policy-run at {path}: build it (swift build) or set POLICY_RUN")
    return path


def stand_in_binary(folder: str, body: str) -> str:
    """A binary in `folder` that runs the real one for the driver's check over no records (no
    --summary-json), and the shell commands `body` on the executors."""
    path = os.path.join(folder, "stand-in-policy-run")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(f"#!/bin/bash\ncase \" $* \" in *\" --summary-json \"*) {body} ;; esac\nexec {policy_run()} \"$@\"\n")
    os.chmod(path, 0o755)
    return path


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _private_key(kid: str):
    with open(os.path.join(TEST_KEYS, f"{kid}.key.pem"), "rb") as stream:
        return serialization.load_pem_private_key(stream.read(), password=None)


def sign(claims: dict, kid: str) -> str:
    """A compact JWS of `claims` by the test key `kid` (test-rs256: RS256, test-es256: ES256)."""
    algorithm = "RS256" if kid.endswith("rs256") else "ES256"
    header = {"alg": algorithm, "kid": kid, "typ": "JWT"}
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}".encode()
    key = _private_key(kid)
    if algorithm == "RS256":
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return f"{signing_input.decode()}.{_b64(signature)}"


def token(kid: str, issued: int, lifetime: int = 600, audience: str = AUDIENCE, subject: str = "user-1") -> str:
    """A token issued at `issued` (unix seconds) for `lifetime` seconds."""
    return sign({"iss": ISSUER, "aud": audience, "sub": subject, "iat": issued, "exp": issued + lifetime}, kid)


def record(token_text: str, ts: int, **fields) -> str:
    return json.dumps({"token": token_text, "ts": ts, **fields})


def public_jwks(kids: List[str]) -> bytes:
    """The published JWKS of the test keys `kids`, as a provider would serve it."""
    keys = []
    for kid in kids:
        with open(os.path.join(TEST_KEYS, f"{kid}.jwks.json"), encoding="utf-8") as stream:
            keys += json.load(stream)["keys"]
    return json.dumps({"keys": keys}, sort_keys=True).encode()


class PolicyFolder:
    """A policy in a directory of its own, with its key files and key history."""

    SOURCE = "https://idp.invalid/jwks"

    def __init__(self, root: str, name: str = "policies"):
        self.directory = os.path.join(root, name)
        os.makedirs(os.path.join(self.directory, "keys"), exist_ok=True)

    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.directory, name)
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
        return path

    def policy(self, name: str, keys: str, algorithms: str = "[RS256, ES256]") -> str:
        """A token policy named `name` with the key source `keys` (YAML flow mapping)."""
        return self.write(f"{name}.yaml", f"policy: {name}\ntoken:\n  algorithms: {algorithms}\n  keys: {keys}\n"
                                          f"  issuer: {ISSUER}\n  audience: {AUDIENCE}\n")

    def key_file(self, name: str, kids: List[str]) -> str:
        path = os.path.join(self.directory, "keys", name)
        with open(path, "wb") as stream:
            stream.write(public_jwks(kids))
        return f"keys/{name}"

    def snapshot(self, kids: List[str], seen: str, history: str = "history") -> None:
        """Stores a snapshot of the provider publishing `kids`, as `policy-run keys snapshot`
        would: the set under the SHA-256 of its bytes, and a line in snapshots.jsonl."""
        folder = os.path.join(self.directory, history)
        os.makedirs(folder, exist_ok=True)
        document = public_jwks(kids)
        name = f"sha256-{hashlib.sha256(document).hexdigest()}.json"
        with open(os.path.join(folder, name), "wb") as stream:
            stream.write(document)
        with open(os.path.join(folder, "snapshots.jsonl"), "a", encoding="utf-8") as stream:
            stream.write(json.dumps({"source": f"jwks_uri {self.SOURCE}", "seen": seen, "jwks": name}) + "\n")


def write_log(path: str, lines: List, compress: bool = False) -> str:
    """A log of `lines` (str, or bytes for lines that are not text), gzip-compressed if asked."""
    data = b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)
    with (gzip.open(path, "wb") if compress else open(path, "wb")) as stream:
        stream.write(data)
    return path


def batch(policy: str, inputs: List[str], arguments: Optional[List[str]] = None):
    """`policy-run batch` over `inputs`, one file at a time: {(path, line): verdict} and the
    summary of all of them (one run over every file). It runs beside the policy's directory and
    names the policy DIRECTORY/FILE, as policy_spark does."""
    arguments = arguments or []
    cwd = os.path.dirname(os.path.dirname(policy))
    policy = os.path.relpath(policy, cwd)
    verdicts: Dict[tuple, dict] = {}
    for path in inputs:
        result = subprocess.run([policy_run(), "batch", "--policy", policy, *arguments, path],
                                capture_output=True, cwd=cwd)
        if result.returncode not in (0, 1):
            raise RuntimeError(result.stderr.decode())
        for line in result.stdout.decode().splitlines():
            verdict = json.loads(line)
            verdicts[(path, verdict["line"])] = verdict
    with tempfile.TemporaryDirectory() as folder:
        summary_path = os.path.join(folder, "summary.json")
        subprocess.run([policy_run(), "batch", "--policy", policy, *arguments, "--summary-json", summary_path,
                        "--output", "/dev/null", *inputs], capture_output=True, cwd=cwd)
        with open(summary_path, encoding="utf-8") as stream:
            summary = json.load(stream)
    return verdicts, summary


def file_line(data: bytes, block: int, line: int) -> int:
    """The file line number of a verdict's (block, line): a Spark split other than the first
    starts after the first newline at or past its offset (that line belongs to the split before)."""
    if block == 0:
        return line
    first = data.index(b"\n", block) + 1
    return data.count(b"\n", 0, first) + line


def temporary_folder(test) -> str:
    folder = tempfile.mkdtemp(prefix="policy-spark-test-")
    test.addCleanup(shutil.rmtree, folder, True)
    return folder
