"""Reading the host's requests (an HTML form or a JSON body) into the table's terms.

Form fields arrive as text; JSON arrives typed. Both end in the same event objects,
checked by `events.from_dict` (a malformed one is a 400 naming the field); the rules
themselves are only ever applied by the table.
"""

from __future__ import annotations

import json
import re
import reprlib
from typing import Any, Mapping

from flask import abort, request

from companion.rules import BadRecord, DiceObserved, Event, Option, all_games, get_game
from companion.rules.events import from_dict
from web.bounds import check_names, check_unicode

INT_FIELDS = ("seat", "count", "quantity", "amount", "target", "die", "size", "steps")
TRUE_WORDS = ("on", "true", "1", "yes")


def payload() -> dict[str, Any]:
    """The request's fields: a JSON object, or the form (lists kept for repeated keys)."""
    if request.is_json:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            abort(400, "the request body is not a JSON object")
        check_unicode(data)
        return data
    out: dict[str, Any] = {}
    for key in request.form:
        if key == "csrf_token":
            continue
        values = request.form.getlist(key)
        out[key] = values if len(values) > 1 or key in ("values", "player") else values[0]
    return out


#: A whole number as a host types it: the digits 0-9 only, at most a minus before them.
WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def as_int(value: Any, field: str) -> int:
    """A whole number from a form field, or a 400 naming the field.

    Only the ASCII digits 0-9 count: `str.isdigit()` also passes superscripts such as
    '²' (which `int()` then refuses) and fullwidth or Arabic-Indic digits (which `int()`
    reads), none of which a host means to type. A number of thousands of digits is more
    than Python turns into an integer, so it is refused the same way.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and WHOLE_NUMBER.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError:
            pass
    abort(400, f"{field} must be a whole number in the digits 0-9, not {reprlib.repr(value)}")


def face(value: Any) -> Any:
    """A face from a form: digits 0-9 become numbers, colours stay words.

    A face typed in other digits ('²', '３') is a 400 here rather than a word the game
    would puzzle over or a number `int()` would guess.
    """
    if isinstance(value, str):
        text = value.strip().casefold()
        if text.isdigit():
            return as_int(text, "a face")
        return text
    return value


def event_from(data: Mapping[str, Any], kind: str | None = None) -> Event:
    """An event from request fields; `kind` overrides the field of that name."""
    fields = dict(data)
    fields["kind"] = kind or fields.get("kind")
    if not request.is_json:
        for name in list(fields):
            value = fields[name]
            if name in INT_FIELDS and value == "":
                del fields[name]  # an optional number left empty: its default
            elif name in INT_FIELDS:
                fields[name] = as_int(value, name)
            elif name == "dice":
                fields[name] = [as_int(v, name) for v in split_list(value)]
            elif name in ("face",):
                fields[name] = None if value == "" else face(value)
            elif name == "values":
                fields[name] = [face(v) for v in split_list(value)]
    try:
        return from_dict(fields)
    except BadRecord as exc:
        abort(400, unreadable(fields.get("kind"), exc))


#: What the host panel calls each action and each field, for a refusal a host can act on.
ACTION_WORDS = {
    "declaration": "a declaration", "bid": "a bid", "stake": "a stake", "discard": "dropping dice",
    "colour_call": "a colour call", "chip_call": "a chip call", "challenge": "a challenge",
    "upgrade_die": "upgrading a die", "downgrade_die": "downgrading a die", "add_die": "adding a die",
    "remove_die": "removing a die", "wild_face": "making a face wild",
}
FIELD_WORDS = {
    "seat": "the seat", "size": "the die's size (d4, d6, ...)", "steps": "how many steps",
    "face": "the face", "count": "the count", "quantity": "the quantity", "amount": "the stake",
    "dice": "the die sizes", "chip": "the chip", "colour": "the colour", "values": "the dice",
}


def unreadable(kind: Any, exc: BadRecord) -> str:
    """A malformed action in words ("Upgrading a die needs the die's size (d4, d6, ...):
    choose it and try again"), never the record's field syntax."""
    action = ACTION_WORDS.get(kind) if isinstance(kind, str) else None
    if action is None:
        return f"that is not an action the table knows ({kind!r}): choose one from the panel" \
            if kind else "choose what to do first"
    field = FIELD_WORDS.get(exc.field or "", "a value")
    what = action[0].upper() + action[1:]
    if exc.reason == "missing":
        return f"{what} needs {field}: choose it and try again"
    if exc.reason.startswith("unexpected field"):
        return f"{what} takes no {field.removeprefix('the ')}: leave it empty"
    if exc.reason.startswith("expected "):
        return f"{what}: {field} must be {exc.reason.removeprefix('expected ').split(', got ')[0]}"
    return f"{what} could not be read: {exc.reason}"


def dice_values(data: Mapping[str, Any]) -> list[Any]:
    """The dice the host entered. A die left unset (an empty value: the panel sends one for
    each die not yet picked) refuses them all: nothing is entered for a die nobody set."""
    values = data.get("values")
    if values is None:
        abort(400, "no dice values were sent")
    if request.is_json:
        if not isinstance(values, list):
            abort(400, "values must be a list")
        unset = sum(1 for v in values if v is None or (isinstance(v, str) and not v.strip()))
    else:
        listed = request.form.getlist("values") if "values" in request.form else [values]
        unset = sum(1 for v in listed if not str(v).strip())
    if unset:
        abort(422, f"{unset} {'die is' if unset == 1 else 'dice are'} not set yet: tap each one on the photo, "
                   "or pick its value, then enter the dice")
    if request.is_json:
        return values
    return [face(v) for v in split_list(values)]


def split_list(value: Any) -> list[str]:
    """ "4, 5,6" or ["4", "5"] -> ["4", "5", "6"]."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        out.extend(part.strip() for part in str(item).replace("\n", ",").split(","))
    return [v for v in out if v]


def fixed_dice(live_event: Event, die: int, value: Any) -> DiceObserved:
    """The dice event with one die changed: what an amend of a misread die carries."""
    if not isinstance(live_event, DiceObserved):
        abort(422, "that event is not a dice reading")
    values = list(live_event.values)
    if not 0 <= die < len(values):
        abort(422, f"there is no die {die + 1} in that reading (it has {len(values)})")
    values[die] = face(value) if not request.is_json else value
    return DiceObserved(values=tuple(values), seat=live_event.seat, source="host")


# --- starting a game --------------------------------------------------------------

def option_kind(option: Option) -> str:
    if option.choices is not None:
        return "choice"
    if isinstance(option.default, bool):
        return "bool"
    if isinstance(option.default, int):
        return "int"
    if isinstance(option.default, (list, tuple)):
        return "list"
    return "text"


def game_catalogue() -> list[dict[str, Any]]:
    """Games and their house-rule options as the start form shows them."""
    out = []
    for game in all_games():
        options = [{"name": o.name, "help": o.help, "default": o.default, "kind": option_kind(o),
                    "choices": [c if isinstance(c, (int, str)) else json.dumps(c) for c in o.choices or ()],
                    "minimum": o.minimum, "maximum": o.maximum} for o in game.options]
        out.append({"name": game.name, "title": game.title, "options": options, "cards": class_cards(game),
                    "min_players": game.min_players, "max_players": game.max_players})
    return out


def class_cards(game: Any) -> list[dict[str, str]]:
    """Trickster's Tavern's shipped class cards, for a per-seat choice on the start form."""
    shipped = getattr(game, "shipped", None)
    if shipped is None:
        return []
    return [{"name": card.name, "line": card.line} for card in shipped()]


def start_request(data: Mapping[str, Any]) -> tuple[str, list[str], dict[str, Any]]:
    """(game, players, options) from the start form or JSON."""
    game = data.get("game")
    if not isinstance(game, str) or not game.strip():
        abort(400, "choose a game")
    players = data.get("players", data.get("player"))
    if isinstance(players, str) and not request.is_json:
        players = [p.strip() for p in players.replace(",", "\n").splitlines()]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        abort(400, "players must be a list of names")
    players = [p.strip() for p in players if p.strip()]
    check_names(players)
    if request.is_json:
        options = data.get("options") or {}
        if not isinstance(options, dict):
            abort(400, "options must be an object")
        return game, players, options
    rules = get_game(game)
    options = {}
    for option in rules.options:
        key = f"option.{option.name}"
        kind = option_kind(option)
        if kind == "bool":
            options[option.name] = str(data.get(key, "")).casefold() in TRUE_WORDS
        elif key not in data or data[key] == "":
            continue
        elif kind == "choice":
            match = [c for c in option.choices if str(c) == str(data[key]) or json.dumps(c) == data[key]]
            if not match:
                abort(400, f"{option.name} must be one of {', '.join(str(c) for c in option.choices)}")
            options[option.name] = match[0]
        elif kind == "int":
            options[option.name] = as_int(data[key], option.name)
        elif kind == "list":
            options[option.name] = list_option(data[key], option.name)
        else:
            options[option.name] = data[key]
    return game, players, options


def list_option(value: Any, name: str) -> Any:
    """A per-seat option (e.g. classes) typed as JSON or as "a, b, c" in seat order."""
    text = value if isinstance(value, str) else json.dumps(value)
    if text.strip().startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            abort(400, f"{name} is not a readable list")
    return split_list(value)
