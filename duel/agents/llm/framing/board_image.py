"""``image=on``: the seat's board drawn as a PNG from its view, for vision models.

Drawn with Pillow (a dependency of matplotlib, already installed): no browser at play time, the
same bytes for the same view (the default font, no anti-aliasing that depends on the machine),
a few tens of milliseconds a move. It draws what the page's board shows, from the view alone:
the structure in the prompt's slot layout (each card in its colour with its name, a face-down
card as its back, a covered card dimmed), both cities (coins, wonders built or not, progress
tokens, buildings by colour), the conflict pawn and the tokens on the board. Hidden cards are
backs because the view holds nothing else; the game's code is not drawn, so twin games that
differ only in hidden cards give the same bytes.

The browser's board (duel/viewer) was not used: rendering it needs Chromium at every move
(seconds, not milliseconds), and its pictures depend on the browser's fonts.
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
from dataclasses import dataclass
from typing import Any

from duel import words
from duel.engine import CARDS
from duel.engine.data import COLOR_NAMES

WIDTH, HEIGHT = 960, 720
CARD_W, CARD_H = 84, 40
# Cards per row of each Age's structure, far row first (rules.md §5; the prompt's slot order).
ROWS = {1: (2, 3, 4, 5, 6), 2: (6, 5, 4, 3, 2), 3: (2, 3, 4, 2, 4, 3, 2)}
# Age III's two-card middle row sits at the edges (rules.md §5).
GAPS = {(3, 3): 2}
COLOURS = {"BROWN": (139, 90, 43), "GREY": (150, 150, 150), "BLUE": (60, 110, 200),
           "GREEN": (50, 150, 70), "YELLOW": (220, 180, 40), "RED": (200, 50, 50),
           "PURPLE": (130, 70, 160)}
BACK = (70, 60, 50)
_BY_NAME = {c.name: c for c in CARDS}


@dataclass(frozen=True)
class BoardImage:
    """A drawn board: its PNG bytes and size, and its cost in input tokens as the providers
    document it for a picture of this size (OpenAI: 85 + 170 per 512-pixel tile after scaling
    into 2048x2048 and the short side to 768; Anthropic: width x height / 750)."""

    png: bytes
    width: int
    height: int

    def record(self) -> dict[str, Any]:
        return {"bytes": len(self.png), "width": self.width, "height": self.height,
                "sha256": hashlib.sha256(self.png).hexdigest()[:16],
                "tokens_openai": openai_tokens(self.width, self.height),
                "tokens_anthropic": math.ceil(self.width * self.height / 750)}


def openai_tokens(width: int, height: int) -> int:
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def _colour(card: str) -> tuple[int, int, int]:
    c = _BY_NAME.get(card)
    return COLOURS.get(COLOR_NAMES[c.color], BACK) if c is not None else BACK


def render(view: dict[str, Any]) -> BoardImage:
    """The board of `view` (the seat is player2, drawn at the bottom)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH, HEIGHT), (245, 240, 228))
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"  # no anti-aliasing: the same pixels everywhere
    _city(draw, view.get("player1") or {}, "Opponent (player 1)", 8)
    _structure(draw, view)
    _military(draw, view, 440)
    _city(draw, view.get("player2") or {}, "You (player 2)", HEIGHT - 150)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return BoardImage(out.getvalue(), WIDTH, HEIGHT)


def _structure(draw: Any, view: dict[str, Any]) -> None:
    pyramid = view.get("visiblePyramid") or {}
    age = int(view.get("age") or 1)
    step = str(view.get("step", ""))
    top = 150
    if step == "WONDER_SELECTION":
        draw.text((20, top), "Wonder draft: " + ", ".join(
            words.name(w) for w in view.get("wondersAvailable") or []), fill=(0, 0, 0))
        return
    slot = 0
    for r, count in enumerate(ROWS.get(age, ROWS[1])):
        gap = GAPS.get((age, r), 0)
        width = count * CARD_W + (count - 1) * 6 + gap * CARD_W
        x = (WIDTH - width) // 2
        y = top + r * (CARD_H - 8)
        for k in range(count):
            cell = pyramid.get(str(slot))
            if cell is not None:
                name = str(cell.get("cardName", ""))
                back = name.endswith("_BACK")
                fill = BACK if back else _colour(name)
                if not cell.get("isActive"):
                    fill = ((fill[0] + 245) // 2, (fill[1] + 245) // 2, (fill[2] + 245) // 2)
                draw.rectangle((x, y, x + CARD_W, y + CARD_H - 10), fill=fill, outline=(0, 0, 0))
                label = "?" if back else words.name(name)
                draw.text((x + 3, y + 3), f"{slot}", fill=(255, 255, 255))
                draw.text((x + 3, y + 15), label[:13], fill=(255, 255, 255))
            x += CARD_W + 6 + (gap * CARD_W if k == 0 and gap else 0)
            slot += 1


def _military(draw: Any, view: dict[str, Any], y: int) -> None:
    m = view.get("military") or {}
    pos = int(m.get("militaryPosition") or 0)
    x0, step = 200, 30
    for k in range(-9, 10):
        x = x0 + (k + 9) * step
        draw.rectangle((x, y, x + step - 2, y + 16), outline=(0, 0, 0),
                       fill=(200, 60, 60) if k == pos else (235, 225, 200))
    draw.text((20, y + 2), "conflict pawn: " + (f"{abs(pos)} towards you" if pos > 0 else
                                                f"{abs(pos)} towards player 1" if pos < 0
                                                else "centre"), fill=(0, 0, 0))
    tokens = ", ".join(words.name(t) for t in view.get("tokensAvailable") or [])
    draw.text((20, y + 24), f"progress tokens on the board: {tokens or 'none'}", fill=(0, 0, 0))


def _city(draw: Any, player: dict[str, Any], title: str, y: int) -> None:
    wonders = player.get("wonders") or {}
    built = ", ".join(f"{words.name(w)} ({'built' if age else 'not built'})"
                      for w, age in wonders.items())
    draw.text((20, y), f"{title}: {player.get('money', 0)} coins", fill=(0, 0, 0))
    draw.text((20, y + 16), f"wonders: {built or 'none'}", fill=(0, 0, 0))
    tokens = ", ".join(words.name(t) for t in player.get("tokens") or [])
    draw.text((20, y + 32), f"progress tokens: {tokens or 'none'}", fill=(0, 0, 0))
    line = y + 50
    for cards in (player.get("sortedHand") or {}).values():
        x = 20
        for card in cards:
            draw.rectangle((x, line, x + 10, line + 10), fill=_colour(card), outline=(0, 0, 0))
            x += 14
        draw.text((x + 4, line), ", ".join(words.name(c) for c in cards)[:110], fill=(0, 0, 0))
        line += 14


def image_parts(form: str, text: str, png: bytes) -> list[dict[str, Any]]:
    """A user message's content: the text, then the picture, in the provider's image `form`
    (its capability: Anthropic's base64 image block; else Chat Completions' image_url data
    URL, which a provider whose API differs converts)."""
    data = base64.b64encode(png).decode("ascii")
    if form == "anthropic":
        image: dict[str, Any] = {"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": data}}
    else:
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}
    return [{"type": "text", "text": text}, image]
