"""The grading cluster's certificates, made: a certificate authority of the course's own.

:func:`make` writes them with PyCA's ``cryptography`` (the library Dask's own
``Security.temporary`` uses): the authority's certificate ``ca.pem``, and a certificate and a
key for each role of :data:`~roofline_grading.autograde.credentials.ROLES` (``.pem`` and
``.key``; each key readable by its owner only), into a new folder. The authority's own key is
never written, so no one can sign another certificate with it: to add a machine, give it the
set's ``worker`` files; to replace the set, make a new one and give it to every machine.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()) / "certs"
>>> [p.name for p in make(folder)]
['ca.pem', 'scheduler.pem', 'scheduler.key', 'worker.pem', 'worker.key', 'driver.pem', 'driver.key']
>>> oct((folder / "driver.key").stat().st_mode)[-3:], oct(folder.stat().st_mode)[-3:]
('600', '700')
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from roofline_grading.autograde.credentials import ROLES, CredentialsError

__all__ = ["DAYS", "expiry", "make"]

DAYS = 400
"""How long they are valid: a term, with room to spare."""
BOTH_WAYS = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
"""Each end listens and connects: its certificate serves both."""


def make(folder: Path, days: int = DAYS) -> list[Path]:
    """Write a new authority's certificate, and a certificate and key for each of :data:`ROLES`
    signed by it, into ``folder`` (see the module's docstring): the files written. Refuses a
    folder that holds certificates already (machines may be using them)."""
    names = ["ca.pem", *(f"{role}.{kind}" for role in ROLES for kind in ("pem", "key"))]
    there = [name for name in names if (folder / name).exists()]
    if there:
        raise CredentialsError(
            f"{folder} holds certificates already ({', '.join(there)}): every machine of the cluster "
            "uses them; to replace them, remove that folder first, then give the new ones to every machine"
        )
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=days)  # clocks differ
    authority_key = ec.generate_private_key(ec.SECP256R1())
    authority = _name("roofline grading cluster authority")
    extensions: list[tuple[x509.ExtensionType, bool]] = [
        (x509.BasicConstraints(ca=True, path_length=0), True),
        (_usage(certificates=True), True),
    ]
    public = authority_key.public_key()
    ca = _certificate(authority, authority, public, authority_key, (start, end), extensions)
    written = [_write(folder / "ca.pem", ca.public_bytes(serialization.Encoding.PEM), 0o644)]
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        leaf = [
            (x509.BasicConstraints(ca=False, path_length=None), True),
            (_usage(certificates=False), True),
            (x509.ExtendedKeyUsage(BOTH_WAYS), False),
        ]
        certificate = _certificate(
            _name(f"roofline grading {role}"), authority, key.public_key(), authority_key, (start, end), leaf
        )
        shown = certificate.public_bytes(serialization.Encoding.PEM)
        written.append(_write(folder / f"{role}.pem", shown, 0o644))
        private = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        written.append(_write(folder / f"{role}.key", private, 0o600))
    return written


def expiry(folder: Path) -> datetime.date:
    """The day the certificates in ``folder`` stop being valid."""
    certificate = x509.load_pem_x509_certificate((folder / "ca.pem").read_bytes())
    return certificate.not_valid_after_utc.date()


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _usage(*, certificates: bool) -> x509.KeyUsage:
    """What a key may do: sign certificates (the authority's), or sign handshakes (the others')."""
    return x509.KeyUsage(
        digital_signature=not certificates,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=certificates,
        crl_sign=certificates,
        encipher_only=False,
        decipher_only=False,
    )


def _certificate(
    subject: x509.Name,
    issuer: x509.Name,
    public: ec.EllipticCurvePublicKey,
    signer: ec.EllipticCurvePrivateKey,
    valid: tuple[datetime.datetime, datetime.datetime],
    extensions: list[tuple[x509.ExtensionType, bool]],
) -> x509.Certificate:
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), critical=False
        )
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(signer, hashes.SHA256())


def _write(path: Path, content: bytes, mode: int) -> Path:
    """Write a new file ``path`` with ``mode`` from the start (a key is never readable by others)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
    return path
