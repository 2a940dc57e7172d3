"""The builder's guide and the Pi setup guide say what the code does: the commands they
show parse, the paths they name are the ones the units and the installer use, and their
links lead somewhere."""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

from companion.appliance.cli import COMMANDS

REPO = Path(__file__).resolve().parent.parent
GUIDES = [REPO / "docs" / "hardware.md", REPO / "docs" / "pi-setup.md"]
COMPANION = "/opt/game-companion/venv/bin/companion"
# Pages other engineers write (pin map, diagram, config reference): linked before they land.
WRITTEN_ELSEWHERE = {"wiring.md", "wiring.svg", "config.md"}


def shell_lines(text: str) -> list[str]:
    """The commands in the guide's ```sh blocks, continuation lines joined."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        lines += block.replace("\\\n", " ").splitlines()
    return [line.strip() for line in lines if line.strip()]


def companion_calls(text: str) -> list[list[str]]:
    calls = []
    for line in shell_lines(text) + re.findall(r"`(sudo [^`]*companion [^`]*)`", text):
        words = shlex.split(line.split("#")[0].replace("$CONFIG", "/etc/game-companion/config.toml"))
        if COMPANION in words:
            calls.append(words[words.index(COMPANION) + 1:])
    return calls


def test_guides_name_only_commands_the_dispatcher_knows():
    for guide in GUIDES:
        named = set(re.findall(r"`companion ([a-z-]+)", guide.read_text()))
        named |= {call[0] for call in companion_calls(guide.read_text())}
        assert named <= set(COMMANDS), f"{guide.name}: {named - set(COMMANDS)}"


def test_every_companion_command_in_the_builders_guide_parses():
    calls = companion_calls((REPO / "docs" / "hardware.md").read_text())
    assert {call[0] for call in calls} >= {"check-hardware", "calibrate", "teach"}
    for name, *args in calls:
        module = importlib.import_module(COMMANDS[name][0])
        parser = argparse.ArgumentParser(prog=f"companion {name}", exit_on_error=False)
        module.add_arguments(parser)
        try:
            parser.parse_args(args)
        except (argparse.ArgumentError, SystemExit) as exc:
            pytest.fail(f"companion {name} {' '.join(args)}: {exc}")


def test_guides_use_the_paths_of_the_units_and_the_installer():
    unit = (REPO / "systemd" / "game-companion.service").read_text()
    installer = (REPO / "scripts" / "install-pi.sh").read_text()
    text = "\n".join(guide.read_text() for guide in GUIDES)
    for path in ("/etc/game-companion/config.toml", "/var/lib/game-companion", COMPANION):
        assert path in text and path.split("/")[-1] in unit + installer, path
    for option in re.findall(r"`(--[a-z-]+)", (REPO / "docs" / "pi-setup.md").read_text()):
        if option.startswith(("--kiosk", "--no-kiosk", "--uninstall", "--purge", "--root", "--no-system",
                              "--leaderboard", "--tables")):
            assert option in installer, option


def test_local_links_lead_to_files():
    for guide in GUIDES:
        for target in re.findall(r"\]\(([^)#:]+)\)", guide.read_text()):
            if target in WRITTEN_ELSEWHERE:
                continue
            assert (guide.parent / target).exists(), f"{guide.name} links to missing {target}"


def test_wiring_diagram_is_embedded_from_docs():
    text = (REPO / "docs" / "hardware.md").read_text()
    assert re.search(r"!\[[^\]]+\]\(wiring\.svg\)", text)
    assert "](wiring.md)" in text
