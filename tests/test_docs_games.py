"""Each game's page in docs/games/: every house-rule option with its default, the
designers credited, and the rules told in our own words (the rule texts are
CC BY-NC-ND: no run of 12 words may match them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.rules import get_game

DOCS = Path(__file__).resolve().parents[1] / "docs" / "games"
RULES = Path(__file__).resolve().parents[2] / "shared" / "rules"
PAGES = {
    "tregald": "tregald.txt",
    "val-des": "val-des.txt",
    "gyvahrs": "gyvahrs.txt",
    "leiras-dice": "leiras-dice.md",
    "tricksters-tavern": "tricksters-tavern.md",
}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


@pytest.mark.parametrize("name", PAGES)
def test_the_page_names_every_option_with_its_default(name):
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    for option in get_game(name).options:
        assert f"`{option.name}`" in text, option.name
        if not isinstance(option.default, (tuple, list)) and option.default not in ("", None):
            assert f"`{option.default}`" in text or f"`{option.name} = {option.default}`" in text, option.name


@pytest.mark.parametrize("name", ["tregald", "val-des", "gyvahrs"])
def test_the_page_credits_the_designer_and_the_source(name):
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert "Games of the Galaxy" in text and "gamesofthegalaxy.com" in text
    assert get_game(name).credit.split(" by ")[1].split(" (")[0] in text


@pytest.mark.parametrize("name", PAGES)
def test_the_page_is_in_our_own_words(name):
    rule_text = RULES / PAGES[name]
    if not rule_text.exists():
        pytest.skip("the shared rule texts are not beside this checkout")
    ours, theirs = words((DOCS / f"{name}.md").read_text(encoding="utf-8")), words(rule_text.read_text(encoding="utf-8"))
    runs = {tuple(theirs[i:i + 12]) for i in range(len(theirs) - 11)}
    copied = [" ".join(ours[i:i + 12]) for i in range(len(ours) - 11) if tuple(ours[i:i + 12]) in runs]
    assert not copied, copied[:3]
