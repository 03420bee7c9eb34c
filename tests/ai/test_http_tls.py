"""Which TLS setup a model endpoint gets: the system's certificates for https, and for plain
http (a local model server) a context that loads none, yet still refuses an unverified peer."""

from __future__ import annotations

import ssl

import pytest

from pith.ai._http_stream import _tls_for


@pytest.mark.parametrize("url", ["https://api.example.com/v1", "HTTPS://API.EXAMPLE.COM/v1"])
def test_https_endpoints_verify_with_the_system_certificates(url: str) -> None:
    assert _tls_for(url) is True


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434/v1", "HTTP://localhost:8080"])
def test_plain_http_endpoints_load_no_certificates_but_still_verify(url: str) -> None:
    context = _tls_for(url)
    assert isinstance(context, ssl.SSLContext)
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
