"""Issue 25: `scripts/install-pi.sh --https` on a scratch root: a certificate made on the
Pi (or the club's own), nginx's site, the config behind the proxy, and back out again."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
import xml.etree.ElementTree as ET

import pytest
from test_appliance_installer import fake_bin, install, listing, ok, planned  # noqa: F401  (fake_bin: a fixture)

from companion.appliance.config import load_config

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the certificate")

SITE = "etc/nginx/sites-available/game-companion"


def test_https_makes_a_private_key_and_the_nginx_site_and_puts_the_service_behind_it(tmp_path, fake_bin):
    root = tmp_path / "root"
    default = root / "etc/nginx/sites-enabled/default"
    default.parent.mkdir(parents=True)
    default.symlink_to("../sites-available/default")
    out = ok(install(root, fake_bin, "--https"))
    key, cert = root / "etc/game-companion/tls/key.pem", root / "etc/game-companion/tls/cert.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-text"], capture_output=True,
                          text=True, check=True).stdout
    assert ".local" in text and "DNS:" in text
    site = (root / SITE).read_text()
    assert not re.search(r"@[A-Z_]+@", site)  # every placeholder filled in
    assert "proxy_pass http://127.0.0.1:8000;" in site
    assert "ssl_certificate /etc/game-companion/tls/cert.pem;" in site
    assert (root / "etc/nginx/sites-enabled/game-companion").readlink().as_posix() == "/" + SITE
    assert not default.is_symlink()
    web = load_config(root / "etc/game-companion/config.toml").web
    assert web.tls_proxy and web.host == "127.0.0.1"
    advert = ET.fromstring((root / "etc/avahi/services/game-companion.service").read_text()).find("service")
    assert (advert.findtext("type"), advert.findtext("port")) == ("_https._tcp", "443")
    steps = [" ".join(step) for step in planned(out)]
    assert any("apt-get install" in step and " nginx" in step for step in steps)
    assert "nginx -t" in steps and "systemctl reload-or-restart nginx" in steps
    assert "https://" in out


def test_https_stays_on_and_a_second_run_changes_nothing(tmp_path, fake_bin):
    root = tmp_path / "root"
    ok(install(root, fake_bin, "--https"))
    before = listing(root)
    out = ok(install(root, fake_bin))
    assert listing(root) == before
    assert "HTTPS stays on" in out and "kept the certificate" in out and "wrote" not in out


def test_a_kept_config_with_a_web_section_gets_the_proxy_key_once(tmp_path, fake_bin):
    root = tmp_path / "root"
    config = root / "etc/game-companion/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[host]\npin = "424242"\n\n[web]\nthreads = 40\n')
    ok(install(root, fake_bin, "--https"))
    ok(install(root, fake_bin, "--https"))
    assert config.read_text().count("tls_proxy") == 1
    web = load_config(config).web
    assert web.tls_proxy and web.threads == 40


def test_a_kept_config_listening_on_the_network_is_put_behind_the_proxy(tmp_path, fake_bin):
    root = tmp_path / "root"
    config = root / "etc/game-companion/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[host]\npin = "424242"\n\n[web]\nhost = "0.0.0.0"\nthreads = 40\n')
    out = ok(install(root, fake_bin, "--https"))
    assert "turned off the [web] host line" in out
    web = load_config(config).web  # the service would start: loopback, the rest kept
    assert (web.host, web.tls_proxy, web.threads) == ("127.0.0.1", True, 40)
    assert '# host = "0.0.0.0"' in config.read_text()


def test_the_clubs_own_certificate_is_used_and_a_wrong_file_refused(tmp_path, fake_bin):
    own_key, own_cert = tmp_path / "own.key", tmp_path / "own.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "1", "-keyout", str(own_key), "-out", str(own_cert), "-subj", "/CN=club.example"],
                   check=True, capture_output=True)
    root = tmp_path / "root"
    refused = install(root, fake_bin, "--tls-cert", str(own_key), "--tls-key", str(own_key))
    assert refused.returncode != 0 and "not a PEM certificate" in refused.stderr
    assert not (root / SITE).exists()
    ok(install(root, fake_bin, "--tls-cert", str(own_cert), "--tls-key", str(own_key)))
    assert (root / "etc/game-companion/tls/cert.pem").read_bytes() == own_cert.read_bytes()
    assert stat.S_IMODE((root / "etc/game-companion/tls/key.pem").stat().st_mode) == 0o600


def test_uninstall_removes_the_site_and_turns_the_proxy_off_in_the_kept_config(tmp_path, fake_bin):
    root = tmp_path / "root"
    ok(install(root, fake_bin, "--https"))
    out = ok(install(root, fake_bin, "--uninstall"))
    assert not (root / SITE).exists() and not (root / "etc/nginx/sites-enabled/game-companion").exists()
    assert not load_config(root / "etc/game-companion/config.toml").web.tls_proxy
    assert "tls_proxy is off" in out
