"""The game state, the legal-move generator and the transition function.

`GameState` is mutable inside the engine for speed (rollouts play thousands of moves in place on a
clone), but the public API never mutates what it was given: :meth:`GameState.apply` validates the
move against :meth:`legal_moves`, the one judge of legality, and returns a new state.

Seats are 0 (player 1) and 1 (player 2) internally; the JSON uses 1 and 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .city import PlayerState as PlayerState  # re-exported: a state's cities
from .codes import deal_code
from .data import (
    AGRICULTURE,
    ARCHITECTURE,
    BLUE,
    BROWN,
    CARD_IDS,
    CARDS,
    CHAIN_FROM,
    ECONOMY,
    GAIN_GUILD_MOST,
    GAIN_PER_BROWN,
    GAIN_PER_GREY,
    GAIN_PER_RED,
    GAIN_PER_WONDER,
    GAIN_PER_YELLOW,
    GREY,
    LAW,
    MASONRY,
    RED,
    STRATEGY,
    SYMBOL_NAMES,
    THEOLOGY,
    TOKEN_IDS,
    URBANISM,
    WONDER_IDS,
    WONDERS,
    YELLOW,
)
from .deal import Deal
from .layout import COVERED_BY, COVERS, FACE_UP_MASK
from .moves import (
    BUILD_MOVES,
    DESTROY_MOVES,
    DISCARD_MOVES,
    FROM_DISCARD_MOVES,
    LIBRARY_MOVES,
    SELECT_MOVES,
    START_MOVES,
    TOKEN_MOVES,
    WONDER_MOVES,
    IllegalMoveError,
    Move,
    MoveKind,
)
from .pricing import UNKNOWN, WONDER_KEY, PriceBook, trade_cost
from .result import VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE, Result, points_of
from .scoring import DRAW as DRAW
from .scoring import city_score, civilian_winner, military_vp, most_of_colors
from .seat import Seat
from .steps import (
    ALL_LOOT,
    BUILD_FROM_DISCARD,
    CHOOSE_LIBRARY_TOKEN,
    CHOOSE_START,
    CHOOSE_TOKEN,
    DESTROY_BROWN,
    DESTROY_GREY,
    DRAFT_ORDER,
    GAME_END,
    LOOT2_P1,
    LOOT2_P2,
    LOOT5_P1,
    LOOT5_P2,
    NO_WINNER,
    PLAY_CARD,
    STEP_NAMES,
    WONDER_SELECTION,
)

_AGE_NAMES: Final = ("I", "II", "III")

@dataclass(slots=True, eq=False, repr=False)
class GameState:
    """A complete game position, hidden cards included. Build one with `duel.engine.new_game`.

    The fields are declared once, here; `start`, `clone` and the state loader (``InfoSet``) call
    this constructor, so a field left out of any of them is a type error.
    """

    deal: Deal
    open_box: bool  # tokensUnavailable and wondersUnavailable are shown
    # The game code, or "" until `code` is first read: hashing the deal was a third of a
    # compiled random game's setup, and searches and rollouts never read it.
    given_code: str
    prices: PriceBook  # shared by the game's states (see pricing.PriceBook)
    step: int
    age: int
    current: int  # the seat to move
    players: list[PlayerState]
    military: int  # > 0: towards player 2's capital (player 1 leads)
    loot: int  # loot tokens still on the board (LOOT* bits)
    pyramid: list[int]  # card id by slot, -1 once taken
    face_up: int  # bitmask of face-up slots
    cover: list[int]  # cards still lying on each slot
    accessible: int  # bitmask of slots a player can take
    remaining: int  # cards left in the structure
    discard: list[int]
    tokens_board: list[int]
    tokens_box: list[int]  # in the order the Great Library draws them
    library: list[int]  # the tokens the Great Library drew, during its choice
    wonders_available: list[int]
    draft_pick: int  # wonders drafted so far
    wonders_built: int
    wonders_removed: list[int]  # the 8th wonder, once 7 are built
    play_again: bool
    last_player: int  # who took the last card (starts the next Age when the pawn is at 0)
    winner: int  # a seat index, DRAW or NO_WINNER (see above)
    victory: str
    # previous move: (actor seat, text, seat the text names or -1, values for the text's {}
    # fields); rendered per view. The fields are filled in only then: formatting the text of
    # every move a rollout plays was 3.5% of a compiled search (py-spy).
    prev: tuple[int, str, int, tuple[str | int, ...]]
    ply: int
    # The seat that drafts first and starts Age I: player 1, except in a state read from a
    # view whose labels are swapped (then the draft's order is that of the view).
    first: int
    # The moves from the deal's opening to here, kept by `apply` (one tuple a move, off the
    # search's path: `play`, in place, leaves them behind, and then len(moves) != ply); None
    # for a state no deal's opening leads to (read from a view, or out of turn). The repr
    # replays them.
    moves: tuple[Move, ...] | None = None

    @staticmethod
    def start(deal: Deal, open_box: bool = True, code: str = "DUEL",
              prices: PriceBook | None = None) -> GameState:
        """The opening position of `deal`: the wonder draft's first pick, Age I laid out. Its
        states share `prices` (a new book by default). `code` "" means the deal's own code
        (`deal_code`), computed when first read."""
        state = GameState(
            deal=deal, open_box=open_box, given_code=code,
            prices=PriceBook() if prices is None else prices, step=WONDER_SELECTION,
            age=1, current=0, players=[PlayerState.new(), PlayerState.new()], military=0,
            loot=ALL_LOOT, pyramid=[], face_up=0, cover=[], accessible=0, remaining=0,
            discard=[], tokens_board=list(deal.tokens_board), tokens_box=list(deal.tokens_box),
            library=[], wonders_available=list(deal.wonder_draft[:4]), draft_pick=0,
            wonders_built=0, wonders_removed=[], play_again=False, last_player=0,
            winner=NO_WINNER, victory="", prev=(-1, "", -1, ()), ply=0, first=0, moves=())
        state.lay_out(1)
        return state

    # ------------------------------------------------------------------ as code
    def moves_from_opening(self) -> tuple[Move, ...] | None:
        """The moves that lead from the deal's opening to this state, or None when they are
        not known (see the field `moves`)."""
        moves = self.moves
        return moves if moves is not None and len(moves) == self.ply else None

    def __repr__(self) -> str:
        """Code that gives this position back, with ``from duel.engine import Deal, Move,
        new_game``: the deal and the moves played from its opening,
        ``new_game(deal=Deal.from_json({...}), moves=[Move.from_json({...}), ...])``. A state
        that no list of moves from a deal reaches (read from a view, moved out of turn or in
        place by `play`) says so instead."""
        moves = self.moves_from_opening()
        if moves is None:
            return (f"<GameState at ply {self.ply}, {STEP_NAMES[self.step]}: not reached by "
                    "apply from a deal's opening, so no code gives it back>")
        given = [f"deal=Deal.from_json({json.dumps(self.deal.to_json())})",
                 f"moves=[{', '.join(repr(m) for m in moves)}]"]
        if not self.open_box:
            given.append("open_box=False")
        if self.given_code and self.given_code != deal_code(self.deal):
            given.append(f"code={self.given_code!r}")
        return f"new_game({', '.join(given)})"

    # ------------------------------------------------------------------ copying
    def clone(self) -> GameState:
        """A deep enough copy: every mutable container is copied; the deal, the price book and
        the cities' price tables are shared."""
        # Positional, in the order of the fields above (a test checks it): the clone is on the
        # search's hot path, and keyword arguments cost three times as much.
        return GameState(
            self.deal, self.open_box, self.given_code, self.prices, self.step, self.age,
            self.current, [self.players[0].copy(), self.players[1].copy()], self.military,
            self.loot,
            self.pyramid[:], self.face_up, self.cover[:], self.accessible, self.remaining,
            self.discard[:], self.tokens_board[:], self.tokens_box[:], self.library[:],
            self.wonders_available[:], self.draft_pick, self.wonders_built,
            self.wonders_removed[:], self.play_again, self.last_player, self.winner,
            self.victory, self.prev, self.ply, self.first, self.moves)

    def out_of_turn(self, seat: int, without_slot: int = -1) -> GameState:
        """A copy in which `seat` plays a card now, out of turn, after the card in `without_slot`
        (if given) has left the structure, uncovering what lay under it. No game reaches this
        position: agents use it to ask what a player could build next."""
        s = self.clone()
        s.current = seat
        s.moves = None
        if without_slot >= 0:
            s._take(without_slot)
        return s

    # ------------------------------------------------------------------ queries
    @property
    def code(self) -> str:
        """The game's code (see duel.engine.codes)."""
        if not self.given_code:
            self.given_code = deal_code(self.deal)
        return self.given_code

    @property
    def step_name(self) -> str:
        return STEP_NAMES[self.step]

    @property
    def current_player(self) -> int:
        """1 or 2: the seat to move (meaningless once the game is over)."""
        return self.current + 1

    def is_terminal(self) -> bool:
        return self.step == GAME_END

    def accessible_slots(self) -> list[int]:
        out = []
        m = self.accessible
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out

    def _table(self, seat: int) -> list[int]:
        """`seat`'s prices in the current context, from the book; the city caches the table
        until `_dirty` (callers look there first)."""
        p = self.players[seat]
        o = self.players[1 - seat]
        a, b = p.prod, o.prod
        # The price context: everything trade_cost reads, and the rebate tokens, one field of
        # CONTEXT_BITS each (pricing checks the cards' totals fit) and the discount mask on top.
        rebate = ((p.tokens >> MASONRY) & 1) | (((p.tokens >> ARCHITECTURE) & 1) << 1)
        context = (a[0] | a[1] << 4 | a[2] << 8 | a[3] << 12 | a[4] << 16
                   | b[0] << 20 | b[1] << 24 | b[2] << 28 | b[3] << 32 | b[4] << 36
                   | p.wild_raw << 40 | p.wild_man << 44 | rebate << 48 | p.discount << 52)
        t = self.prices.table(context)
        p.table = t
        return t

    def _dirty(self) -> None:
        """Forget both price tables: production, discounts, wildcards or rebates changed."""
        self.players[0].table = None
        self.players[1].table = None

    def card_price(self, seat: int, card: int) -> int:
        """Coins `seat` pays to build `card` (0 through a chain), ignoring whether it can pay."""
        p = self.players[seat]
        chain = CHAIN_FROM[card]
        if chain >= 0 and (p.built >> chain) & 1:
            return 0
        c = CARDS[card]
        if not c.has_resource_cost:
            return c.coins
        t = p.table
        if t is None:
            t = self._table(seat)
        price = t[card]
        if price == UNKNOWN:
            o = self.players[1 - seat]
            rebate = c.color == BLUE and bool((p.tokens >> MASONRY) & 1)
            price = c.coins + trade_cost(c.needs, p.prod, p.discount, p.wild_raw, p.wild_man,
                                         rebate, o.prod)
            t[card] = price
        return price

    def wonder_price(self, seat: int, wonder: int) -> int:
        p = self.players[seat]
        t = p.table
        if t is None:
            t = self._table(seat)
        key = WONDER_KEY + wonder
        price = t[key]
        if price == UNKNOWN:
            o = self.players[1 - seat]
            price = trade_cost(WONDERS[wonder].needs, p.prod, p.discount, p.wild_raw, p.wild_man,
                               bool((p.tokens >> ARCHITECTURE) & 1), o.prod)
            t[key] = price
        return price

    def price(self, move: Move) -> int:
        """Coins the current player pays for `move` (0 for moves that cost nothing)."""
        if move.kind is MoveKind.CONSTRUCT_BUILDING:
            return self.card_price(self.current, self.pyramid[move.card_index])
        if move.kind is MoveKind.CONSTRUCT_WONDER:
            return self.wonder_price(self.current, WONDER_IDS[move.wonder])
        return 0

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a fixed order. The only judge of legality in duel."""
        step = self.step
        if step == PLAY_CARD:
            seat = self.current
            p = self.players[seat]
            coins = p.coins
            wonder_ids: list[int] = []
            if self.wonders_built < 7:
                for i, w in enumerate(p.wonders):
                    if not p.wonder_age[i] and self.wonder_price(seat, w) <= coins:
                        wonder_ids.append(w)
            moves: list[Move] = []
            m = self.accessible
            while m:
                low = m & -m
                slot = low.bit_length() - 1
                m ^= low
                if self.card_price(seat, self.pyramid[slot]) <= coins:
                    moves.append(BUILD_MOVES[slot])
                moves.append(DISCARD_MOVES[slot])
                if wonder_ids:
                    row = WONDER_MOVES[slot]
                    for w in wonder_ids:
                        moves.append(row[w])
            return moves
        if step == WONDER_SELECTION:
            return [SELECT_MOVES[w] for w in self.wonders_available]
        if step == CHOOSE_TOKEN:
            return [TOKEN_MOVES[t] for t in self.tokens_board]
        if step == CHOOSE_LIBRARY_TOKEN:
            return [LIBRARY_MOVES[t] for t in self.library]
        if step == DESTROY_BROWN or step == DESTROY_GREY:
            color = BROWN if step == DESTROY_BROWN else GREY
            return [DESTROY_MOVES[c] for c in self.players[1 - self.current].cards
                    if CARDS[c].color == color]
        if step == BUILD_FROM_DISCARD:
            return [FROM_DISCARD_MOVES[c] for c in self.discard]
        if step == CHOOSE_START:
            return list(START_MOVES)
        return []

    def priced_moves(self) -> list[tuple[Move, int]]:
        """The legal moves with the coins each would cost."""
        return [(m, self.price(m)) for m in self.legal_moves()]

    # ------------------------------------------------------------------ applying
    def apply(self, move: Move) -> GameState:
        """Return the state after `move`; `self` is untouched.

        Raises:
            IllegalMoveError: the move is not legal here; the message says why.
        """
        legal = self.legal_moves()
        # A move taken from legal_moves() is one of its shared Move objects: identity finds it
        # without Move.__eq__, which compares six fields.
        for m in legal:
            if m is move:
                break
        else:
            if move not in legal:
                raise IllegalMoveError(self.why_illegal(move))
        nxt = self.clone()
        nxt.play(move)
        moves = self.moves_from_opening()
        nxt.moves = None if moves is None else moves + (move,)
        return nxt

    def play(self, move: Move) -> None:
        """Apply a move known to be legal, in place. Unchecked: for search and replay loops."""
        self.ply += 1
        _PLAY[move.kind](self, move)

    # One handler per move kind, in the order of the steps; `_PLAY` below maps kinds to them.
    def _select_wonder(self, move: Move) -> None:
        seat = self.current
        w = WONDER_IDS[move.wonder]
        self.wonders_available.remove(w)
        self.players[seat].draft_wonder(w)
        self.prev = (seat, f"selected wonder {move.wonder}", -1, ())
        self.draft_pick += 1
        if self.draft_pick == 4:
            self.wonders_available = list(self.deal.wonder_draft[4:])
        if self.draft_pick == 8:
            self.step = PLAY_CARD
            self.current = self.first
        else:
            self.current = DRAFT_ORDER[self.draft_pick] ^ self.first

    def _construct_building(self, move: Move) -> None:
        seat = self.current
        card = self._take(move.card_index)
        chain = CHAIN_FROM[card] >= 0 and self.players[seat].has_card(CHAIN_FROM[card])
        price = self.card_price(seat, card)
        self._pay(seat, price, CARDS[card].coins if not chain else 0)
        self.prev = (seat, "constructed {} for {} coins", -1, (CARDS[card].name, price))
        self._built(self._build_card(seat, card, chain))

    def _discard(self, move: Move) -> None:
        seat = self.current
        card = self._take(move.card_index)
        p = self.players[seat]
        gain = 2 + p.color_count[YELLOW]
        p.coins += gain
        self.discard.append(card)
        self.prev = (seat, "discarded {} for {} coins", -1, (CARDS[card].name, gain))
        self._end_turn()

    def _construct_wonder(self, move: Move) -> None:
        seat = self.current
        card = self._take(move.card_index)
        w = WONDER_IDS[move.wonder]
        price = self.wonder_price(seat, w)
        self._pay(seat, price, 0)
        self.prev = (seat, "constructed wonder {} with {} for {} coins", -1,
                     (move.wonder, CARDS[card].name, price))
        self._build_wonder(seat, w)

    def _choose_token(self, move: Move) -> None:
        seat = self.current
        t = TOKEN_IDS[move.token]
        self.tokens_board.remove(t)
        self.prev = (seat, f"chose progress token {move.token}", -1, ())
        self._gain_token(seat, t)
        if self.step != GAME_END:
            self._end_turn()

    def _destroy_card(self, move: Move) -> None:
        seat = self.current
        card = CARD_IDS[move.card_name]
        if self.players[1 - seat].remove_card(card):
            self._dirty()
        self.discard.append(card)
        self.prev = (seat, f"destroyed {move.card_name} of player {{target}}", 1 - seat, ())
        self._end_turn()

    def _choose_library_token(self, move: Move) -> None:
        seat = self.current
        t = TOKEN_IDS[move.token]
        self.library.remove(t)
        self.tokens_box.extend(self.library)  # the other two go back to the box
        self.library = []
        self.prev = (seat, f"chose progress token {move.token} with THE_GREAT_LIBRARY", -1,
                     ())
        self._gain_token(seat, t)
        if self.step != GAME_END:
            self._end_turn()

    def _construct_from_discard(self, move: Move) -> None:
        seat = self.current
        card = CARD_IDS[move.card_name]
        self.discard.remove(card)
        self.prev = (seat, f"constructed {move.card_name} from the discard pile "
                           "with THE_MAUSOLEUM", -1, ())
        self._built(self._build_card(seat, card, False))

    def _choose_starting_player(self, move: Move) -> None:
        starter = move.player_number - 1
        self.prev = (self.current,
                     f"chose player {{target}} to start Age {_AGE_NAMES[self.age - 1]}", starter,
                     ())
        self.current = starter
        self.step = PLAY_CARD

    # ------------------------------------------------------------------ internals
    def lay_out(self, age: int) -> None:
        """Lay out the structure of `age` from the deal: a new Age starts (engine-internal; also
        how an InfoSet sample still in the draft gets its Age I)."""
        self.age = age
        self.pyramid = list(self.deal.age(age))
        self.face_up = FACE_UP_MASK[age - 1]
        self.cover = [len(c) for c in COVERED_BY[age - 1]]
        self.accessible = sum(1 << s for s, n in enumerate(self.cover) if n == 0)
        self.remaining = 20

    def _take(self, slot: int) -> int:
        card = self.pyramid[slot]
        self.pyramid[slot] = -1
        self.accessible &= ~(1 << slot)
        self.remaining -= 1
        cover = self.cover
        pyramid = self.pyramid
        for below in COVERS[self.age - 1][slot]:
            cover[below] -= 1
            # A slot can be empty under a card only in a hand-made position read from JSON.
            if cover[below] == 0 and pyramid[below] >= 0:
                self.accessible |= 1 << below
        self.last_player = self.current
        return card

    def _pay(self, seat: int, price: int, printed_coins: int) -> None:
        self.players[seat].coins -= price
        other = self.players[1 - seat]
        if other.tokens and (other.tokens >> ECONOMY) & 1 and price > printed_coins:
            other.coins += price - printed_coins

    def _build_card(self, seat: int, card: int, chain: bool) -> bool:
        """Put `card` in the city and resolve its effects. True if a token choice is now due."""
        p = self.players[seat]
        c = CARDS[card]
        pair = c.symbol >= 0 and bool((p.sym1 >> c.symbol) & 1)
        if p.add_card(card):
            self._dirty()
        if chain and (p.tokens >> URBANISM) & 1:
            p.coins += 4
        p.coins += c.instant_coins
        gain = c.gain
        if gain:
            if gain == GAIN_PER_GREY:
                p.coins += c.gain_amount * p.color_count[GREY]
            elif gain == GAIN_PER_BROWN:
                p.coins += c.gain_amount * p.color_count[BROWN]
            elif gain == GAIN_PER_RED:
                p.coins += c.gain_amount * p.color_count[RED]
            elif gain == GAIN_PER_YELLOW:
                p.coins += c.gain_amount * p.color_count[YELLOW]
            elif gain == GAIN_PER_WONDER:
                p.coins += c.gain_amount * p.wonders_built()
            elif gain == GAIN_GUILD_MOST:
                p.coins += c.gain_amount * self._most(c.guild_colors)
        if c.shields:
            shields = c.shields + (1 if (p.tokens >> STRATEGY) & 1 else 0)
            if self._advance(seat, shields):
                return False
        if c.symbol >= 0:
            if pair:
                return len(self.tokens_board) > 0
            if p.science_count() >= 6:
                self._finish(seat, VICTORY_SCIENCE)
        return False

    def _built(self, token_due: bool) -> None:
        """After a building: the game may be over, a progress token may be due, or the turn
        ends."""
        if self.step == GAME_END:
            return
        if token_due:
            self.step = CHOOSE_TOKEN
            return
        self._end_turn()

    def _most(self, colors: tuple[int, ...]) -> int:
        return most_of_colors(self.players, colors)

    def _build_wonder(self, seat: int, w: int) -> None:
        p = self.players[seat]
        o = self.players[1 - seat]
        wonder = WONDERS[w]
        if p.build_wonder(w, self.age):
            self._dirty()
        self.wonders_built += 1
        if self.wonders_built == 7:
            for q in self.players:
                for i, other in enumerate(q.wonders):
                    if not q.wonder_age[i]:
                        self.wonders_removed.append(other)
        p.coins += wonder.coins
        if wonder.opp_loses:
            o.coins = max(0, o.coins - wonder.opp_loses)
        self.play_again = wonder.play_again or bool((p.tokens >> THEOLOGY) & 1)
        if wonder.shields and self._advance(seat, wonder.shields):
            return
        if wonder.destroy >= 0:
            if o.color_count[wonder.destroy]:
                self.step = DESTROY_BROWN if wonder.destroy == BROWN else DESTROY_GREY
                return
        elif wonder.library:
            self.library = self.tokens_box[:3]
            del self.tokens_box[:3]
            if self.library:
                self.step = CHOOSE_LIBRARY_TOKEN
                return
        elif wonder.mausoleum:
            if self.discard:
                self.step = BUILD_FROM_DISCARD
                return
        self._end_turn()

    def _gain_token(self, seat: int, t: int) -> None:
        p = self.players[seat]
        if p.add_token(t):
            self._dirty()
        if t == AGRICULTURE or t == URBANISM:
            p.coins += 6
        elif t == LAW and p.science_count() >= 6:  # the scale as a sixth symbol
            self._finish(seat, VICTORY_SCIENCE)

    def _advance(self, seat: int, shields: int) -> bool:
        """Move the pawn; loot tokens on the way. True if this won the game."""
        old = self.military
        o = self.players[1 - seat]
        if seat == 0:
            new = min(9, old + shields)
            if old < 3 <= new and self.loot & LOOT2_P2:
                self.loot &= ~LOOT2_P2
                o.coins = max(0, o.coins - 2)
            if old < 6 <= new and self.loot & LOOT5_P2:
                self.loot &= ~LOOT5_P2
                o.coins = max(0, o.coins - 5)
        else:
            new = max(-9, old - shields)
            if old > -3 >= new and self.loot & LOOT2_P1:
                self.loot &= ~LOOT2_P1
                o.coins = max(0, o.coins - 2)
            if old > -6 >= new and self.loot & LOOT5_P1:
                self.loot &= ~LOOT5_P1
                o.coins = max(0, o.coins - 5)
        self.military = new
        if new == 9 or new == -9:
            self._finish(seat, VICTORY_MILITARY)
            return True
        return False

    def _end_turn(self) -> None:
        """The turn's action is fully resolved: reveal freed cards, then pass the turn on."""
        self.step = PLAY_CARD
        self.face_up |= self.accessible
        if self.remaining == 0:
            self.play_again = False  # a play-again earned with an Age's last card is lost
            if self.age == 3:
                self._finish_civilian()
                return
            self.lay_out(self.age + 1)
            if self.military > 0:
                self.current = 1
            elif self.military < 0:
                self.current = 0
            else:
                self.current = self.last_player
            self.step = CHOOSE_START
            return
        if self.play_again:
            self.play_again = False
        else:
            self.current = 1 - self.current

    def _finish(self, winner: int, victory: str) -> None:
        self.step = GAME_END
        self.winner = winner
        self.victory = victory
        self.play_again = False

    def _finish_civilian(self) -> None:
        self._finish(civilian_winner(self.score(0), self.score(1)), VICTORY_CIVILIAN)

    # ------------------------------------------------------------------ scoring
    def military_vp(self, seat: int) -> int:
        return military_vp(self.military, seat)

    def score(self, seat: int) -> dict[str, int]:
        """The score breakdown (docs/rules.md §10) for `seat`, as it stands now."""
        return city_score(self.players, self.military, seat)

    def scores(self) -> tuple[dict[str, int], dict[str, int]]:
        """Both cities' score breakdowns as they stand now (player 1's, then player 2's)."""
        return self.score(0), self.score(1)

    def points(self, seat: int) -> float:
        """Once the game is over, the score of seat index `seat`: 1 win, 1/2 draw, 0 loss."""
        return points_of(self.winner, seat)

    def result(self) -> Result | None:
        """None while the game goes on, else who won, how, and both score breakdowns."""
        if self.step != GAME_END:
            return None
        winner = None if self.winner == DRAW else Seat.of_index(self.winner)
        return Result(winner, self.victory, self.scores())

    # ------------------------------------------------------------------ explanations
    def why_illegal(self, move: Move) -> str:
        """A sentence in the game's words saying why `move` is not legal here."""
        from .explain import why_illegal  # imported when needed: a refusal's words

        return why_illegal(self, move)


# GameState.play's dispatch: the handler of each move kind.
_PLAY: Final[dict[str, Callable[[GameState, Move], None]]] = {
    MoveKind.SELECT_WONDER: GameState._select_wonder,
    MoveKind.CONSTRUCT_BUILDING: GameState._construct_building,
    MoveKind.DISCARD: GameState._discard,
    MoveKind.CONSTRUCT_WONDER: GameState._construct_wonder,
    MoveKind.CHOOSE_PROGRESS_TOKEN: GameState._choose_token,
    MoveKind.DESTROY_CARD: GameState._destroy_card,
    MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD: GameState._choose_library_token,
    MoveKind.CONSTRUCT_FROM_DISCARD: GameState._construct_from_discard,
    MoveKind.CHOOSE_STARTING_PLAYER: GameState._choose_starting_player,
}


def science_symbols(p: PlayerState) -> list[str]:
    """Names of the distinct science symbols a city holds."""
    return [SYMBOL_NAMES[s] for s in range(7) if (p.sym1 >> s) & 1]

