"""SSH signatures of a report's manifest, in OpenSSH's SSHSIG format.

Signing calls ``ssh-keygen -Y sign -n diptych-report`` — the tool an auditor already has, which
also signs with a key held in an agent or on a hardware token — and verifying uses the
``sshsig`` library in-process, which checks exactly what ``ssh-keygen -Y verify`` checks. No
cryptography is written here. The namespace ``diptych-report`` keeps a signature made for a
report from passing for one made for anything else with the same key (a git commit, a file).
"""

from __future__ import annotations

import fnmatch
import getpass
import io
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.errors import EvidenceError, ManifestError, MissingDependencyError

if TYPE_CHECKING:
    from sshsig import PublicKey

#: The SSHSIG namespace of a report's signature (``ssh-keygen -Y … -n diptych-report``).
NAMESPACE = "diptych-report"
#: The largest key, allowed-signers or signature file read.
MAX_KEY_FILE_BYTES = 1024**2


def _ssh_keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise ManifestError(
            "signing needs OpenSSH's ssh-keygen, which is not on PATH: install openssh-client"
        )
    return found


def _sshsig() -> Any:
    try:
        import sshsig
    except ImportError as error:
        raise MissingDependencyError("sshsig", "evidence", "verifying a signed report") from error
    return sshsig


def _read_small(path: Path, option: str) -> str:
    if not path.is_file():
        raise ManifestError(f"{option} {path}: no such file; give the path of the key file")
    if path.stat().st_size > MAX_KEY_FILE_BYTES:
        raise ManifestError(f"{option} {path}: far larger than a key file; give the key file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(f"{option} {path}: cannot read it as text ({error})") from None


def signing_key(key: Path) -> tuple[str, str]:
    """The public key line and the signer's name (the key's comment, else the user's name)
    of the private key at ``key``, checked before any report is written. The public key is
    taken from ``KEY.pub`` or, failing that, asked of ``ssh-keygen -y``."""
    if not key.is_file():
        raise ManifestError(
            f"--sign {key}: no such key file; give an SSH private key "
            "(make one with `ssh-keygen -t ed25519`)"
        )
    pub = key.with_name(key.name + ".pub")
    line = _read_small(pub, "--sign").strip() if pub.is_file() else ""
    if not line:
        done = subprocess.run(
            [_ssh_keygen(), "-y", "-P", "", "-f", str(key)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if done.returncode != 0:
            raise ManifestError(
                f"--sign {key}: not an SSH private key ssh-keygen can read without a "
                f"passphrase, and no {pub.name} beside it; give the key with its .pub"
            )
        line = done.stdout.strip()
    public = parse_public_key(line, f"--sign {key}")
    parts = line.split(maxsplit=2)
    signer = parts[2].strip() if len(parts) > 2 and parts[2].strip() else getpass.getuser()
    return public.openssh_str(), signer


def parse_public_key(line: str, where: str) -> PublicKey:
    sshsig = _sshsig()
    try:
        return sshsig.PublicKey.from_openssh_str(" ".join(line.split()[:2]))
    except (ValueError, NotImplementedError, IndexError) as error:
        raise ManifestError(
            f"{where}: not an OpenSSH public key line ({error}); give a .pub file (ed25519 or RSA)"
        ) from None


def fingerprint(public_key: str) -> str:
    """The key's ``SHA256:…`` fingerprint, as ``ssh-keygen -l`` prints it."""
    return str(parse_public_key(public_key, "key").sha256_str())


def sign_file(path: Path, key: Path) -> Path:
    """Sign ``path`` with the private ``key`` in the ``diptych-report`` namespace; the
    signature is written beside it as ``PATH.sig`` (what ``ssh-keygen`` writes)."""
    signature = path.with_name(path.name + ".sig")
    signature.unlink(missing_ok=True)  # ssh-keygen would ask before writing over it
    done = subprocess.run(
        [_ssh_keygen(), "-Y", "sign", "-q", "-f", str(key), "-n", NAMESPACE, str(path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0 or not signature.is_file():
        signature.unlink(missing_ok=True)
        said = " ".join(done.stderr.split())[:200] or f"exit status {done.returncode}"
        raise ManifestError(
            f"--sign {key}: ssh-keygen could not sign ({said}); give a key it can use "
            "(a passphrase key needs ssh-agent)"
        )
    return signature


def keys_from_file(key: Path) -> list[PublicKey]:
    """The one public key of ``--key PUB``."""
    text = _read_small(key, "--key")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if "PRIVATE KEY-----" in text:
        raise ManifestError(
            f"--key {key}: this is a private key; give its public half ({key.name}.pub)"
        )
    if len(lines) != 1:
        raise ManifestError(
            f"--key {key}: holds {len(lines)} key lines, not one; give one .pub file, or "
            "several keys as --allowed-signers FILE"
        )
    return [parse_public_key(lines[0], f"--key {key}")]


def keys_from_allowed_signers(path: Path, signer: str) -> list[PublicKey]:
    """The keys an OpenSSH allowed-signers file lets sign a report as ``signer``: lines whose
    principals match it and whose ``namespaces`` (when given) admit ``diptych-report``.
    Certificate authorities are not followed."""
    sshsig = _sshsig()
    from sshsig.allowed_signers import load_allowed_signers_file

    text = _read_small(path, "--allowed-signers")
    try:
        entries = load_allowed_signers_file(io.StringIO(text))
    except (ValueError, NotImplementedError, IndexError) as error:
        raise ManifestError(
            f"--allowed-signers {path}: not an allowed-signers file ({error}); see "
            "ssh-keygen(1), ALLOWED SIGNERS"
        ) from None
    keys = []
    for entry in entries:
        options = entry.options or {}
        if "cert-authority" in options:
            continue
        if not _matches(entry.principals.split(","), signer):
            continue
        namespaces = options.get("namespaces")
        if namespaces is not None and not _matches(namespaces.split(","), NAMESPACE):
            continue
        keys.append(sshsig.PublicKey.from_openssh_str(f"{entry.key_type} {entry.base64_key}"))
    return keys


def _matches(patterns: Sequence[str], name: str) -> bool:
    """OpenSSH's pattern lists: any pattern matches, unless a ``!pattern`` does."""
    hit = False
    for pattern in (p.strip() for p in patterns):
        if pattern.startswith("!"):
            if fnmatch.fnmatchcase(name, pattern[1:]):
                return False
        elif fnmatch.fnmatchcase(name, pattern):
            hit = True
    return hit


def check_signature(message: bytes, signature: bytes, keys: list[PublicKey], where: str) -> str:
    """The fingerprint of the key among ``keys`` that made ``signature`` over ``message`` in
    the ``diptych-report`` namespace; :class:`EvidenceError` when none did."""
    sshsig = _sshsig()
    try:
        key = sshsig.verify(message, signature, keys, namespace=NAMESPACE)
    except sshsig.InvalidSignature as error:
        said = f" ({error})" if str(error) else ""
        raise EvidenceError(
            f"the signature of {where} does not verify{said}: the manifest changed after "
            "it was signed, or it was signed by another key than the one given; ask the signer "
            "for their public key"
        ) from None
    except (ValueError, NotImplementedError) as error:
        raise ManifestError(
            f"the signature of {where} cannot be read ({error}); copy manifest.json.sig again "
            "from where the report was signed"
        ) from None
    return str(key.sha256_str())
