"""docs/rules.md says what the engine does: its card, guild, wonder, chain, symbol and structure
tables are read here and compared with duel/engine/data.py and layout.py, so neither can change
without the other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from duel.engine.data import (
    CARD_IDS,
    CARDS,
    CHAIN_FROM,
    COLOR_NAMES,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    WONDER_IDS,
    WONDERS,
)
from duel.engine.layout import COVERED_BY, FACE_UP_MASK

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def section(title: str) -> str:
    """The text of the section whose heading starts with `title`, up to the next heading of the
    same or a higher level."""
    text = RULES.read_text(encoding="utf-8")
    match = re.search(rf"^(#+) {re.escape(title)}.*$", text, re.MULTILINE)
    assert match, f"docs/rules.md has no section {title!r}"
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[:end.start()] if end else rest


def rows(text: str) -> list[list[str]]:
    """The cells of every table row in `text`, header and rule rows left out."""
    out = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            out.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return out[1:] if out else out


def cost(cell: str) -> tuple[int, tuple[int, ...]]:
    """'3c + 1 BRICK' -> (3, (0, 1, 0, 0, 0)); 'free' -> (0, (0, 0, 0, 0, 0))."""
    coins, units = 0, [0] * 5
    if cell != "free":
        for part in cell.split(" + "):
            if part.endswith("c") and part[:-1].isdigit():
                coins = int(part[:-1])
            else:
                n, name = part.split(" ")
                units[RESOURCE_NAMES.index(name)] = int(n)
    return coins, tuple(units)


@pytest.mark.parametrize("title, age", [("1.1 Age I", 1), ("1.2 Age II", 2), ("1.3 Age III", 3)])
def test_the_card_tables_are_the_engine_s_cards(title: str, age: int) -> None:
    table = rows(section(title))
    assert sorted(r[0] for r in table) == sorted(
        c.name for c in CARDS if c.age == age and COLOR_NAMES[c.color] != "PURPLE")
    for name, colour, price, effect, vp in table:
        card = CARDS[CARD_IDS[name]]
        assert colour == COLOR_NAMES[card.color].lower(), name
        assert cost(price) == (card.coins, card.cost), name
        assert int(vp or 0) == card.vp, name
        shields = re.search(r"(\d) shields?", effect)
        assert (int(shields.group(1)) if shields else 0) == card.shields, name
        symbol = SYMBOL_NAMES[card.symbol] if card.symbol >= 0 else None
        assert (symbol in effect.split("; ")) if symbol else not any(
            s in effect.split("; ") for s in SYMBOL_NAMES), name
        made = [f"+{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(card.produces) if n]
        assert made == [p for p in effect.split("; ") if re.fullmatch(r"\+\d [A-Z]+", p)], name


def test_the_guild_table_is_the_engine_s_guilds() -> None:
    table = rows(section("1.4 Guilds"))
    guilds = [c for c in CARDS if COLOR_NAMES[c.color] == "PURPLE"]
    assert sorted(r[0] for r in table) == sorted(c.name for c in guilds)
    for name, price, *_ in table:
        card = CARDS[CARD_IDS[name]]
        assert cost(price) == (card.coins, card.cost), name


def test_the_chain_table_is_the_engine_s_17_links() -> None:
    links = set()
    for row in rows(section("1.5 Chains")):
        for owned, free in zip(row[::2], row[1::2], strict=True):
            if owned:
                links.add((owned, free))
    engine = {(CARDS[src].name, CARDS[dst].name) for dst, src in enumerate(CHAIN_FROM) if src >= 0}
    assert links == engine and len(links) == 17


def test_the_symbol_table_is_the_engine_s_green_cards() -> None:
    for symbol, cards in rows(section("1.6 Science symbols")):
        expected = sorted(c.name for c in CARDS if c.symbol == SYMBOL_NAMES.index(symbol))
        listed = sorted(cards.split(", ")) if symbol != "SCALE" else []
        assert listed == expected, symbol


def test_the_wonder_table_is_the_engine_s_wonders() -> None:
    table = rows(section("2. Wonders"))
    assert sorted(r[0] for r in table) == sorted(WONDER_IDS)
    for name, price, effect, vp in table:
        wonder = WONDERS[WONDER_IDS[name]]
        assert cost(price) == (0, wonder.cost), name
        assert int(vp) == wonder.vp, name
        assert ("play again" in effect) == wonder.play_again, name
        shields = re.search(r"(\d) shields?", effect)
        assert (int(shields.group(1)) if shields else 0) == wonder.shields, name


@pytest.mark.parametrize("title, age", [("5.1 Age I", 1), ("5.2 Age II", 2), ("5.3 Age III", 3)])
def test_the_structure_tables_are_the_engine_s_layout(title: str, age: int) -> None:
    covered_by: dict[int, tuple[int, ...]] = {}
    face_up = 0
    for _row, slots, face, cells in rows(section(title)):
        first, last = (int(s) for s in slots.split("-"))
        if face == "up":
            face_up |= sum(1 << s for s in range(first, last + 1))
        for slot in range(first, last + 1):
            covered_by[slot] = ()
        for cell in cells.split("; "):
            found = re.fullmatch(r"(\d+) by ([\d+]+)", cell)
            if found:
                covered_by[int(found.group(1))] = tuple(int(s) for s in found.group(2).split("+"))
    assert face_up == FACE_UP_MASK[age - 1]
    assert [covered_by[s] for s in range(20)] == list(COVERED_BY[age - 1])
