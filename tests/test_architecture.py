"""The rooms of the house (docs/architecture.md, CONTRIBUTING.md), checked on the source.

`companion/` is the referee and the table: outside `companion/appliance/` it imports no
camera, vision, GPIO, web or server code, at any level (an import inside a function
counts as much as one at the top). `hardware/` and `web/` do not import the rooms that
use them. And no module in `companion/`, `hardware/` or `web/`
grows past 450 lines: a module that long is two.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: What the referee and the table may never import (the top-level package names).
FORBIDDEN = ("cv2", "numpy", "hardware", "web", "flask", "waitress", "paho")
#: ... nor the appliance, which imports all of them. `python -m companion` is the
#: appliance's command, so companion/__main__.py is the one module that may.
APPLIANCE = "companion.appliance"
ENTRY_POINT = REPO / "companion" / "__main__.py"
#: The rooms at the edges may not reach up either: hardware never into the web app or
#: the server, the web app never into the appliance that serves it.
EDGES = {
    "hardware": ("web", "flask", "waitress", "paho", APPLIANCE),
    "web": ("waitress", "paho", APPLIANCE),
}
MAX_LINES = 450


def imports_of(source: str) -> list[tuple[int, str]]:
    """Every module `source` imports, with its line: `import x`, `from x import y` and
    `importlib.import_module("x")` / `__import__("x")` with a literal name, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in ("import_module", "__import__"):
                found.append((node.lineno, node.args[0].value))
    return sorted(found)


def refused(module: str, *, entry_point: bool = False) -> bool:
    if module.split(".")[0] in FORBIDDEN:
        return True
    return not entry_point and (module == APPLIANCE or module.startswith(APPLIANCE + "."))


def core_modules() -> list[Path]:
    appliance = REPO / "companion" / "appliance"
    return sorted(p for p in (REPO / "companion").rglob("*.py") if appliance not in p.parents)


def test_the_referee_and_the_table_import_no_camera_gpio_web_or_server_code():
    modules = core_modules()
    assert REPO / "companion" / "table.py" in modules and REPO / "companion" / "rules" / "game.py" in modules
    offences = [
        f"{path.relative_to(REPO)} line {line} imports {module}"
        for path in modules
        for line, module in imports_of(path.read_text(encoding="utf-8"))
        if refused(module, entry_point=path == ENTRY_POINT)
    ]
    assert not offences, "companion/ outside companion/appliance/ must not import these:\n" + "\n".join(offences)


def test_hardware_and_web_do_not_reach_up_into_the_rooms_that_use_them():
    offences = []
    for room, never in EDGES.items():
        for path in sorted((REPO / room).rglob("*.py")):
            offences += [f"{path.relative_to(REPO)} line {line} imports {module}"
                         for line, module in imports_of(path.read_text(encoding="utf-8"))
                         if any(module == n or module.startswith(n + ".") for n in never)]
    assert not offences, "an edge imports a room above it:\n" + "\n".join(offences)


def test_the_import_check_sees_imports_at_any_depth():
    source = (
        "import os\n"
        "from companion.rules import Game\n"
        "def later():\n"
        "    import numpy as np\n"
        "    class Inner:\n"
        "        def deeper(self):\n"
        "            from hardware.vision import read_dice\n"
        "    importlib.import_module('cv2')\n"
        "    from companion.appliance.service import TableService\n"
    )
    found = [(line, module) for line, module in imports_of(source) if refused(module)]
    assert found == [(4, "numpy"), (7, "hardware.vision"), (8, "cv2"), (9, "companion.appliance.service")]
    assert not refused("companion.rules") and not refused("webbrowser") and not refused("numpyish")
    assert not refused("companion.appliance.cli", entry_point=True) and refused("cv2", entry_point=True)


def test_no_module_is_longer_than_450_lines():
    modules = [p for room in ("companion", "hardware", "web") for p in sorted((REPO / room).rglob("*.py"))]
    assert len(modules) > 50
    too_long = [f"{p.relative_to(REPO)}: {n} lines" for p in modules
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not too_long, f"split these modules (at most {MAX_LINES} lines each):\n" + "\n".join(too_long)


def rooms_table(path: Path) -> list[tuple[str, str, str]]:
    """(room, may import, never) from each row of a page's table of rooms."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows.append((cells[0], cells[2], cells[3]))
    return rows


def test_the_architecture_page_and_the_contributing_guide_give_the_same_rules():
    rules = rooms_table(REPO / "docs" / "architecture.md")
    assert [room for room, _, _ in rules] == ["`companion/appliance/`", "`web/`", "`hardware/`", "`companion/` (the rest)"]
    assert rooms_table(REPO / "CONTRIBUTING.md") == rules
    core_never = rules[-1][2]  # what the pages tell a newcomer is what the test above checks
    assert all(name in core_never for name in FORBIDDEN + (APPLIANCE,))

