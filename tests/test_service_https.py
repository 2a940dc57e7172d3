"""Issue 25: HTTPS on the Pi. A real nginx with the installer's site file (systemd/
nginx-game-companion.conf) ends TLS in front of a real `companion serve` running with
`[web] tls_proxy = true`; phones at other addresses bind 127.0.0.x source addresses."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest
from serving import ServeProcess

from companion.appliance.config import ConfigError, load_config
from web.bounds import LARGEST_BODY

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "systemd" / "nginx-game-companion.conf"
PIN = "246813"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Proxied:
    """nginx on two free ports (HTTP, HTTPS) in front of `companion serve`."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.cert, self.key = tmp / "cert.pem", tmp / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "1", "-keyout", str(self.key), "-out", str(self.cert),
                        "-subj", "/CN=gametable.local", "-addext", "subjectAltName=DNS:gametable.local,IP:127.0.0.1"],
                       check=True, capture_output=True)
        config = tmp / "config.toml"
        config.write_text(f'[host]\npin = "{PIN}"\n[web]\ntls_proxy = true\nthreads = 16\n', encoding="utf-8")
        self.served = ServeProcess(config, tmp / "data")
        self.http_port, self.https_port = free_port(), free_port()
        site = SITE.read_text(encoding="utf-8")
        for key, value in {"HTTP_PORT": self.http_port, "HTTPS_PORT": self.https_port,
                           "HTTPS_SUFFIX": f":{self.https_port}", "UPSTREAM_PORT": self.served.port,
                           "TLS_CERT": self.cert, "TLS_KEY": self.key}.items():
            site = site.replace(f"@{key}@", str(value))
        if not Path("/proc/net/if_inet6").exists():  # as the installer does without IPv6
            site = "\n".join(line for line in site.splitlines() if "listen [::]" not in line)
        (tmp / "site.conf").write_text(site, encoding="utf-8")
        for folder in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (tmp / folder).mkdir()
        (tmp / "nginx.conf").write_text(
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"daemon off;\npid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;\nevents {{ worker_connections 256; }}\n"
            f"http {{\n access_log off;\n client_body_temp_path {tmp}/body;\n proxy_temp_path {tmp}/proxy;\n"
            f" fastcgi_temp_path {tmp}/fastcgi;\n uwsgi_temp_path {tmp}/uwsgi;\n scgi_temp_path {tmp}/scgi;\n"
            f" include {tmp}/site.conf;\n}}\n", encoding="utf-8")
        self.nginx = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.https_port), timeout=1).close()
                break
            except OSError:
                if self.nginx.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"nginx did not start: {self.nginx.stdout.read()}"
                                         f"{(tmp / 'error.log').read_text() if (tmp / 'error.log').exists() else ''}")
                time.sleep(0.05)
        self.tls = ssl.create_default_context(cafile=str(self.cert))

    def https(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
              source: str = "127.0.0.1") -> tuple[int, dict, bytes]:
        conn = http.client.HTTPSConnection("127.0.0.1", self.https_port, context=self.tls, timeout=5,
                                           source_address=(source, 0))
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def stop(self) -> None:
        self.nginx.terminate()
        self.nginx.wait(10)
        self.served.process.terminate()
        self.served.process.wait(10)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    if NGINX is None or shutil.which("openssl") is None:
        if os.environ.get("CI"):
            pytest.fail("nginx and openssl must be installed under CI (.ci/run installs them)")
        pytest.skip("nginx and openssl are Debian packages (.ci/run installs them)")
    running = Proxied(tmp_path_factory.mktemp("https"))
    yield running
    running.stop()


def test_plain_http_only_redirects_to_https(proxied):
    conn = http.client.HTTPConnection("127.0.0.1", proxied.http_port, timeout=5)
    conn.request("GET", "/host?x=1")
    response = conn.getresponse()
    assert response.status == 301
    assert response.getheader("Location") == f"https://127.0.0.1:{proxied.https_port}/host?x=1"
    assert b"PIN" not in response.read()


def test_the_slate_is_served_over_tls_and_its_qr_code_names_https(proxied):
    status, headers, page = proxied.https("GET", "/")
    assert status == 200
    assert "content-security-policy" in headers
    urls = set(re.findall(rb'(https?://[^"<\s]+)', page))
    assert any(url.startswith(b"https://") and url.endswith(b"/") for url in urls), urls
    assert not any(url.startswith(b"http://") and b":%d" % proxied.served.port in url for url in urls), urls


def test_the_host_cookie_is_secure_and_the_log_names_the_phone_not_the_proxy(proxied):
    phone = "127.0.0.9"
    status, headers, page = proxied.https("GET", "/host", source=phone)
    cookie = headers["set-cookie"]
    assert "Secure" in cookie
    token = re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()
    # A forged X-Forwarded-For is replaced by nginx: the service still sees the phone.
    status, headers, _ = proxied.https(
        "POST", "/host/login", json.dumps({"pin": PIN}).encode(),
        {"Content-Type": "application/json", "X-CSRF-Token": token, "Cookie": cookie.split(";")[0],
         "X-Forwarded-For": "203.0.113.7"}, source=phone)
    assert status == 200
    assert "Secure" in headers["set-cookie"]
    deadline = time.monotonic() + 5
    while not any("host logged in" in line for line in proxied.served.output) and time.monotonic() < deadline:
        time.sleep(0.05)
    logins = [line for line in proxied.served.output if "host logged in" in line]
    assert logins and logins[-1].rstrip().endswith(f"from {phone}"), logins
    assert PIN not in "".join(proxied.served.output)


def test_the_live_feed_passes_through_the_proxy_at_once(proxied):
    sock = socket.create_connection(("127.0.0.1", proxied.https_port), timeout=5)
    with proxied.tls.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
        tls.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        started, seen = time.monotonic(), b""
        while b"\ndata:" not in seen and time.monotonic() - started < 5:
            seen += tls.recv(65536)
        assert seen.startswith(b"HTTP/1.1 200")
        assert b"\ndata:" in seen  # the first message came through, not held in nginx's buffer


def test_a_body_over_the_largest_limit_is_refused_at_the_door(proxied):
    status, _, _ = proxied.https("POST", "/host/import", b"x" * (LARGEST_BODY + 1),
                                 {"Content-Type": "application/json"})
    assert status == 413


def test_the_site_file_matches_the_services_largest_body():
    size = re.search(r"client_max_body_size (\d+)m;", SITE.read_text(encoding="utf-8")).group(1)
    assert int(size) * 1024 * 1024 == LARGEST_BODY


def test_tls_proxy_keeps_the_server_on_loopback(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[web]\ntls_proxy = true\n', encoding="utf-8")
    assert load_config(config).web.host == "127.0.0.1"
    config.write_text('[web]\ntls_proxy = true\nhost = "0.0.0.0"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="127.0.0.1"):
        load_config(config)
    config.write_text('[web]\ntls_proxy = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="true or false"):
        load_config(config)
