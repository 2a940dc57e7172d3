"""Issue 24: the runtime dependencies resolve from binary wheels on both Raspberry Pi OS
releases, with pip held to the OS's numpy as the installer holds it.

Bookworm ships Python 3.11 and numpy 1.24.2, Trixie Python 3.13 and numpy 2.2.4. pip
resolves for aarch64 without building anything (`--only-binary=:all:`), so a dependency
whose floor is above the OS numpy, or that has no wheel for that Python, fails here
rather than on a Pi after an hour of compiling. Needs PyPI: skipped offline.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RELEASES = {"bookworm": ("3.11", "1.24.2"), "trixie": ("3.13", "2.2.4")}
PLATFORMS = ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64")


def pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
    except OSError:
        return False
    return True


@pytest.mark.network
@pytest.mark.parametrize("release", sorted(RELEASES))
def test_runtime_dependencies_resolve_from_aarch64_wheels_with_the_os_numpy(tmp_path, release):
    if not pypi_reachable():
        pytest.skip("PyPI is not reachable")
    python, numpy = RELEASES[release]
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(f"numpy=={numpy}\n")
    report = tmp_path / "report.json"
    requirements = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--disable-pip-version-check",
               "--ignore-installed", "--only-binary=:all:", "--implementation", "cp",
               "--python-version", python, "--target", str(tmp_path / "target"),
               "--report", str(report), "--constraint", str(constraints)]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    result = subprocess.run(command + requirements, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text())["install"]}
    assert chosen["numpy"] == numpy
    assert "opencv-python-headless" in chosen
