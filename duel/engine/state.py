"""The game state, the legal-move generator and the transition function.

`GameState` is mutable inside the engine for speed (rollouts play thousands of moves in place on a
clone), but the public API never mutates what it was given: :meth:`GameState.apply` validates the
move against :meth:`legal_moves`, the one judge of legality, and returns a new state.

Seats are 0 (player 1) and 1 (player 2) internally; the JSON uses 1 and 2.
"""

from __future__ import annotations

from typing import Final

from .data import (
    AGRICULTURE,
    ARCHITECTURE,
    BLUE,
    BROWN,
    CARD_IDS,
    CARDS,
    CHAIN_FROM,
    COLOR_NAMES,
    ECONOMY,
    GAIN_GUILD_MOST,
    GAIN_PER_BROWN,
    GAIN_PER_GREY,
    GAIN_PER_RED,
    GAIN_PER_WONDER,
    GAIN_PER_YELLOW,
    GREEN,
    GREY,
    GUILD_COINS,
    GUILD_WONDERS,
    LAW,
    MASONRY,
    MATHEMATICS,
    PHILOSOPHY,
    PURPLE,
    RED,
    SCALE,
    STRATEGY,
    SYMBOL_NAMES,
    THEOLOGY,
    TOKEN_IDS,
    TOKEN_NAMES,
    URBANISM,
    WONDER_IDS,
    WONDERS,
    YELLOW,
)
from .deal import Deal
from .layout import COVERED_BY, COVERS, FACE_UP_MASK
from .moves import (
    BUILD_MOVES,
    CHOOSE_PROGRESS_TOKEN,
    CHOOSE_PROGRESS_TOKEN_FROM_DISCARD,
    CHOOSE_STARTING_PLAYER,
    CONSTRUCT_BUILDING,
    CONSTRUCT_FROM_DISCARD,
    CONSTRUCT_WONDER,
    DESTROY_CARD,
    DESTROY_MOVES,
    DISCARD,
    DISCARD_MOVES,
    FROM_DISCARD_MOVES,
    LIBRARY_MOVES,
    SELECT_MOVES,
    SELECT_WONDER,
    START_MOVES,
    TOKEN_MOVES,
    WONDER_MOVES,
    IllegalMoveError,
    Move,
)
from .pricing import trade_cost
from .result import VICTORY_CIVILIAN, VICTORY_MILITARY, VICTORY_SCIENCE, Result, points_of
from .seat import Seat

# Steps (ints inside, the prompt's names outside).
WONDER_SELECTION: Final = 0
PLAY_CARD: Final = 1
CHOOSE_TOKEN: Final = 2
DESTROY_GREY: Final = 3
DESTROY_BROWN: Final = 4
CHOOSE_LIBRARY_TOKEN: Final = 5
BUILD_FROM_DISCARD: Final = 6
CHOOSE_START: Final = 7
GAME_END: Final = 8
STEP_NAMES: Final = ("WONDER_SELECTION", "PLAY_CARD", "CHOOSE_PROGRESS_TOKEN", "DESTROY_GREY",
                     "DESTROY_BROWN", "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD",
                     "CONSTRUCT_FROM_DISCARD", "CHOOSE_STARTING_PLAYER", "GAME_END")
STEP_IDS: Final = {n: i for i, n in enumerate(STEP_NAMES)}
# The moves each step accepts (the prompt's table plus CHOOSE_STARTING_PLAYER).
STEP_MOVES: Final = (
    (SELECT_WONDER,), (CONSTRUCT_BUILDING, DISCARD, CONSTRUCT_WONDER), (CHOOSE_PROGRESS_TOKEN,),
    (DESTROY_CARD,), (DESTROY_CARD,), (CHOOSE_PROGRESS_TOKEN_FROM_DISCARD,),
    (CONSTRUCT_FROM_DISCARD,), (CHOOSE_STARTING_PLAYER,), (),
)

# Who picks at each of the 8 draft picks: P1, P2, P2, P1, then P2, P1, P1, P2.
DRAFT_ORDER: Final = (0, 1, 1, 0, 1, 0, 0, 1)

# Loot tokens, as bits of GameState.loot: (seat that loses, coins).
LOOT2_P1: Final = 1  # pawn at -3..-5: player 1 loses 2
LOOT5_P1: Final = 2  # pawn at -6..-8: player 1 loses 5
LOOT2_P2: Final = 4
LOOT5_P2: Final = 8
ALL_LOOT: Final = 15

# GameState.winner is an int for the search's hot path: a seat index (0 or 1), DRAW, or
# NO_WINNER while the game goes on. Everything outside the engine reads `result()` instead.
NO_WINNER: Final = -1
DRAW: Final = -2

_AGE_NAMES: Final = ("I", "II", "III")

# Price tables shared by every state with the same price context (see GameState._table). The
# context fixes every card's and wonder's price, so sharing is safe; the bound keeps memory flat.
_PRICE_MEMO: dict[tuple[int, ...], dict[int, int]] = {}
_PRICE_MEMO_LIMIT: Final = 200_000
WONDER_KEY_OFFSET: Final = 1000


class PlayerState:
    """One city: coins, buildings, wonders, tokens and the caches derived from them."""

    __slots__ = ("coins", "built", "cards", "color_count", "prod", "discount", "wild_raw",
                 "wild_man", "sym1", "sym2", "tokens", "token_list", "wonders", "wonder_age",
                 "table")

    def __init__(self) -> None:
        self.coins: int = 7
        self.built: int = 0  # bitmask of card ids
        self.cards: list[int] = []  # in the order built (the JSON lists them so)
        self.color_count: list[int] = [0] * 7
        self.prod: list[int] = [0, 0, 0, 0, 0]  # brown + grey production
        self.discount: int = 0  # resources bought at 1 coin
        self.wild_raw: int = 0
        self.wild_man: int = 0
        self.sym1: int = 0  # science symbols owned
        self.sym2: int = 0  # symbols owned twice (pairs)
        self.tokens: int = 0  # bitmask of token ids
        self.token_list: list[int] = []
        self.wonders: list[int] = []  # wonder ids in the order drafted
        self.wonder_age: list[int] = []  # Age built in, 0 if not built
        self.table: dict[int, int] | None = None  # price memo for the current context

    def copy(self) -> PlayerState:
        p = PlayerState.__new__(PlayerState)
        p.coins = self.coins
        p.built = self.built
        p.cards = self.cards[:]
        p.color_count = self.color_count[:]
        p.prod = self.prod[:]
        p.discount = self.discount
        p.wild_raw = self.wild_raw
        p.wild_man = self.wild_man
        p.sym1 = self.sym1
        p.sym2 = self.sym2
        p.tokens = self.tokens
        p.token_list = self.token_list[:]
        p.wonders = self.wonders[:]
        p.wonder_age = self.wonder_age[:]
        p.table = self.table
        return p

    def has_token(self, token: int) -> bool:
        return bool((self.tokens >> token) & 1)

    def has_card(self, card: int) -> bool:
        return bool((self.built >> card) & 1)

    def wonders_built(self) -> int:
        return sum(1 for a in self.wonder_age if a)


# `GameState.prev` actor for a previous move known only as text (a state read from a view).
PREV_AS_WRITTEN: Final = -2


class GameState:
    """A complete game position, hidden cards included. Build one with `duel.engine.new_game`."""

    __slots__ = ("deal", "open_box", "code", "step", "age", "current", "players", "military",
                 "loot", "pyramid", "face_up", "cover", "accessible", "remaining", "discard",
                 "tokens_board", "tokens_box", "library", "wonders_available", "draft_pick",
                 "wonders_built", "wonders_removed", "play_again", "last_player", "winner",
                 "victory", "prev", "ply", "first")

    def __init__(self, deal: Deal, open_box: bool = True, code: str = "DUEL") -> None:
        self.deal = deal
        self.open_box = open_box
        self.code = code
        self.step: int = WONDER_SELECTION
        self.age: int = 1
        self.current: int = 0
        self.players: list[PlayerState] = [PlayerState(), PlayerState()]
        self.military: int = 0  # > 0: towards player 2's capital (player 1 leads)
        self.loot: int = ALL_LOOT
        self.pyramid: list[int] = []
        self.face_up: int = 0
        self.cover: list[int] = []
        self.accessible: int = 0
        self.remaining: int = 0
        self.discard: list[int] = []
        self.tokens_board: list[int] = list(deal.tokens_board)
        self.tokens_box: list[int] = list(deal.tokens_box)
        self.library: list[int] = []
        self.wonders_available: list[int] = list(deal.wonder_draft[:4])
        self.draft_pick: int = 0
        self.wonders_built: int = 0
        self.wonders_removed: list[int] = []
        self.play_again: bool = False
        self.last_player: int = 0
        self.winner: int = NO_WINNER  # a seat index, DRAW or NO_WINNER (see above)
        self.victory: str = ""
        # previous move: (actor seat, text, seat the text names or -1); rendered per view
        self.prev: tuple[int, str, int] = (-1, "", -1)
        self.ply: int = 0
        # The seat that drafts first and starts Age I: player 1, except in a state read from a
        # view whose labels are swapped (then the draft's order is that of the view).
        self.first: int = 0
        self._layout(1)

    # ------------------------------------------------------------------ copying
    def clone(self) -> GameState:
        """A deep enough copy: every mutable container is copied, tables and the deal shared."""
        s = GameState.__new__(GameState)
        s.deal = self.deal
        s.open_box = self.open_box
        s.code = self.code
        s.step = self.step
        s.age = self.age
        s.current = self.current
        s.players = [self.players[0].copy(), self.players[1].copy()]
        s.military = self.military
        s.loot = self.loot
        s.pyramid = self.pyramid[:]
        s.face_up = self.face_up
        s.cover = self.cover[:]
        s.accessible = self.accessible
        s.remaining = self.remaining
        s.discard = self.discard[:]
        s.tokens_board = self.tokens_board[:]
        s.tokens_box = self.tokens_box[:]
        s.library = self.library[:]
        s.wonders_available = self.wonders_available[:]
        s.draft_pick = self.draft_pick
        s.wonders_built = self.wonders_built
        s.wonders_removed = self.wonders_removed[:]
        s.play_again = self.play_again
        s.last_player = self.last_player
        s.winner = self.winner
        s.victory = self.victory
        s.prev = self.prev
        s.ply = self.ply
        s.first = self.first
        return s

    # ------------------------------------------------------------------ queries
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

    def _table(self, seat: int) -> dict[int, int]:
        p = self.players[seat]
        t = p.table
        if t is None:
            o = self.players[1 - seat]
            key = (p.prod[0], p.prod[1], p.prod[2], p.prod[3], p.prod[4], p.discount, p.wild_raw,
                   p.wild_man, p.tokens & ((1 << MASONRY) | (1 << ARCHITECTURE)),
                   o.prod[0], o.prod[1], o.prod[2], o.prod[3], o.prod[4])
            t = _PRICE_MEMO.get(key)
            if t is None:
                if len(_PRICE_MEMO) >= _PRICE_MEMO_LIMIT:
                    _PRICE_MEMO.clear()
                t = {}
                _PRICE_MEMO[key] = t
            p.table = t
        return t

    def _dirty(self) -> None:
        """Forget both price tables: production, discounts, wildcards or rebates changed."""
        self.players[0].table = None
        self.players[1].table = None

    def card_price(self, seat: int, card: int) -> int:
        """Coins `seat` pays to build `card` (0 through a chain), ignoring whether it can pay."""
        if CHAIN_FROM[card] >= 0 and (self.players[seat].built >> CHAIN_FROM[card]) & 1:
            return 0
        c = CARDS[card]
        if not c.has_resource_cost:
            return c.coins
        t = self._table(seat)
        price = t.get(card)
        if price is None:
            p = self.players[seat]
            o = self.players[1 - seat]
            rebate = c.color == BLUE and bool((p.tokens >> MASONRY) & 1)
            price = c.coins + trade_cost(c.cost, p.prod, p.discount, p.wild_raw, p.wild_man,
                                         rebate, o.prod)
            t[card] = price
        return price

    def wonder_price(self, seat: int, wonder: int) -> int:
        t = self._table(seat)
        key = WONDER_KEY_OFFSET + wonder
        price = t.get(key)
        if price is None:
            p = self.players[seat]
            o = self.players[1 - seat]
            price = trade_cost(WONDERS[wonder].cost, p.prod, p.discount, p.wild_raw, p.wild_man,
                               bool((p.tokens >> ARCHITECTURE) & 1), o.prod)
            t[key] = price
        return price

    def price(self, move: Move) -> int:
        """Coins the current player pays for `move` (0 for moves that cost nothing)."""
        if move.kind == CONSTRUCT_BUILDING:
            return self.card_price(self.current, self.pyramid[move.card_index])
        if move.kind == CONSTRUCT_WONDER:
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
        if move not in self.legal_moves():
            raise IllegalMoveError(self.why_illegal(move))
        nxt = self.clone()
        nxt.play(move)
        return nxt

    def play(self, move: Move) -> None:
        """Apply a move known to be legal, in place. Unchecked: for search and replay loops."""
        self.ply += 1
        kind = move.kind
        seat = self.current
        if kind == CONSTRUCT_BUILDING:
            card = self._take(move.card_index)
            chain = CHAIN_FROM[card] >= 0 and self.players[seat].has_card(CHAIN_FROM[card])
            price = self.card_price(seat, card)
            self._pay(seat, price, CARDS[card].coins if not chain else 0)
            self.prev = (seat, f"constructed {CARDS[card].name} for {price} coins", -1)
            pending = self._build_card(seat, card, chain)
            if self.step == GAME_END:
                return
            if pending:
                self.step = CHOOSE_TOKEN
                return
            self._end_turn()
        elif kind == DISCARD:
            card = self._take(move.card_index)
            p = self.players[seat]
            gain = 2 + p.color_count[YELLOW]
            p.coins += gain
            self.discard.append(card)
            self.prev = (seat, f"discarded {CARDS[card].name} for {gain} coins", -1)
            self._end_turn()
        elif kind == CONSTRUCT_WONDER:
            card = self._take(move.card_index)
            w = WONDER_IDS[move.wonder]
            price = self.wonder_price(seat, w)
            self._pay(seat, price, 0)
            self.prev = (seat, f"constructed wonder {move.wonder} with {CARDS[card].name} "
                               f"for {price} coins", -1)
            self._build_wonder(seat, w)
        elif kind == SELECT_WONDER:
            w = WONDER_IDS[move.wonder]
            self.wonders_available.remove(w)
            p = self.players[seat]
            p.wonders.append(w)
            p.wonder_age.append(0)
            self.prev = (seat, f"selected wonder {move.wonder}", -1)
            self.draft_pick += 1
            if self.draft_pick == 4:
                self.wonders_available = list(self.deal.wonder_draft[4:])
            if self.draft_pick == 8:
                self.step = PLAY_CARD
                self.current = self.first
            else:
                self.current = DRAFT_ORDER[self.draft_pick] ^ self.first
        elif kind == CHOOSE_PROGRESS_TOKEN:
            t = TOKEN_IDS[move.token]
            self.tokens_board.remove(t)
            self.prev = (seat, f"chose progress token {move.token}", -1)
            self._gain_token(seat, t)
            if self.step != GAME_END:
                self._end_turn()
        elif kind == CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
            t = TOKEN_IDS[move.token]
            self.library.remove(t)
            self.tokens_box.extend(self.library)  # the other two go back to the box
            self.library = []
            self.prev = (seat, f"chose progress token {move.token} with THE_GREAT_LIBRARY", -1)
            self._gain_token(seat, t)
            if self.step != GAME_END:
                self._end_turn()
        elif kind == DESTROY_CARD:
            card = CARD_IDS[move.card_name]
            o = self.players[1 - seat]
            o.cards.remove(card)
            o.built &= ~(1 << card)
            c = CARDS[card]
            o.color_count[c.color] -= 1
            for r in range(5):
                o.prod[r] -= c.produces[r]
            self._dirty()
            self.discard.append(card)
            self.prev = (seat, f"destroyed {move.card_name} of player {{target}}", 1 - seat)
            self._end_turn()
        elif kind == CONSTRUCT_FROM_DISCARD:
            card = CARD_IDS[move.card_name]
            self.discard.remove(card)
            self.prev = (seat, f"constructed {move.card_name} from the discard pile "
                               "with THE_MAUSOLEUM", -1)
            pending = self._build_card(seat, card, False)
            if self.step == GAME_END:
                return
            if pending:
                self.step = CHOOSE_TOKEN
                return
            self._end_turn()
        elif kind == CHOOSE_STARTING_PLAYER:
            starter = move.player_number - 1
            self.prev = (seat, f"chose player {{target}} to start Age {_AGE_NAMES[self.age - 1]}",
                         starter)
            self.current = starter
            self.step = PLAY_CARD

    # ------------------------------------------------------------------ internals
    def _layout(self, age: int) -> None:
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
        p.built |= 1 << card
        p.cards.append(card)
        p.color_count[c.color] += 1
        color = c.color
        if color == BROWN or color == GREY:
            for r in range(5):
                p.prod[r] += c.produces[r]
            self._dirty()
        elif color == YELLOW:
            if c.discount_mask or c.wild:
                p.discount |= c.discount_mask
                if c.wild == 1:
                    p.wild_raw += 1
                elif c.wild == 2:
                    p.wild_man += 1
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
            bit = 1 << c.symbol
            if p.sym1 & bit:
                p.sym2 |= bit
                return len(self.tokens_board) > 0
            p.sym1 |= bit
            if bin(p.sym1).count("1") >= 6:
                self._finish(seat, VICTORY_SCIENCE)
        return False

    def _most(self, colors: tuple[int, ...]) -> int:
        a = self.players[0].color_count
        b = self.players[1].color_count
        return max(sum(a[c] for c in colors), sum(b[c] for c in colors))

    def _build_wonder(self, seat: int, w: int) -> None:
        p = self.players[seat]
        o = self.players[1 - seat]
        wonder = WONDERS[w]
        p.wonder_age[p.wonders.index(w)] = self.age
        self.wonders_built += 1
        if self.wonders_built == 7:
            for q in self.players:
                for i, other in enumerate(q.wonders):
                    if not q.wonder_age[i]:
                        self.wonders_removed.append(other)
        p.coins += wonder.coins
        if wonder.opp_loses:
            o.coins = max(0, o.coins - wonder.opp_loses)
        if wonder.wild:
            if wonder.wild == 1:
                p.wild_raw += 1
            else:
                p.wild_man += 1
            self._dirty()
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
        p.tokens |= 1 << t
        p.token_list.append(t)
        if t == AGRICULTURE or t == URBANISM:
            p.coins += 6
        elif t == MASONRY or t == ARCHITECTURE:
            self._dirty()
        elif t == LAW:
            p.sym1 |= 1 << SCALE
            if bin(p.sym1).count("1") >= 6:
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
            self._layout(self.age + 1)
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
        a = self.score(0)
        b = self.score(1)
        if a["TOTAL"] != b["TOTAL"]:
            winner = 0 if a["TOTAL"] > b["TOTAL"] else 1
        elif a["CIVILIAN_BUILDING"] != b["CIVILIAN_BUILDING"]:
            winner = 0 if a["CIVILIAN_BUILDING"] > b["CIVILIAN_BUILDING"] else 1
        else:
            winner = DRAW
        self._finish(winner, VICTORY_CIVILIAN)

    # ------------------------------------------------------------------ scoring
    def military_vp(self, seat: int) -> int:
        pos = self.military if seat == 0 else -self.military
        if pos <= 0:
            return 0
        if pos <= 2:
            return 2
        if pos <= 5:
            return 5
        return 10

    def score(self, seat: int) -> dict[str, int]:
        """The score breakdown (docs/rules.md §10) for `seat`, as it stands now."""
        p = self.players[seat]
        o = self.players[1 - seat]
        by_color = [0] * 7
        for card in p.cards:
            c = CARDS[card]
            if c.color == PURPLE:
                if c.guild_kind == GUILD_WONDERS:
                    by_color[PURPLE] += 2 * max(p.wonders_built(), o.wonders_built())
                elif c.guild_kind == GUILD_COINS:
                    by_color[PURPLE] += max(p.coins, o.coins) // 3
                else:
                    by_color[PURPLE] += self._most(c.guild_colors)
            else:
                by_color[c.color] += c.vp
        wonder_vp = sum(WONDERS[w].vp for i, w in enumerate(p.wonders) if p.wonder_age[i])
        token_vp = 0
        if p.has_token(AGRICULTURE):
            token_vp += 4
        if p.has_token(PHILOSOPHY):
            token_vp += 7
        if p.has_token(MATHEMATICS):
            token_vp += 3 * len(p.token_list)
        out = {
            "CIVILIAN_BUILDING": by_color[BLUE],
            "SCIENTIFIC_BUILDING": by_color[GREEN],
            "COMMERCIAL_BUILDING": by_color[YELLOW],
            "GUILD": by_color[PURPLE],
            "MILITARY_BUILDING": self.military_vp(seat),
            "WONDER": wonder_vp,
            "MONEY": p.coins // 3,
            "PROGRESS_TOKEN": token_vp,
        }
        out["TOTAL"] = sum(out.values())
        return out

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
        step = STEP_NAMES[self.step]
        if self.step == GAME_END:
            return "the game is over; no move is legal"
        allowed = STEP_MOVES[self.step]
        if move.kind not in allowed:
            return (f"{move.kind} is not a move of step {step}; expected "
                    f"{' or '.join(allowed)}")
        seat = self.current
        p = self.players[seat]
        if move.kind in (CONSTRUCT_BUILDING, DISCARD, CONSTRUCT_WONDER):
            slot = move.card_index
            if not 0 <= slot < 20 or self.pyramid[slot] < 0:
                return (f"slot {slot} is empty in the Age {self.age} structure; active slots: "
                        f"{self.accessible_slots()}")
            if not (self.accessible >> slot) & 1:
                covering = [s for s in COVERED_BY[self.age - 1][slot] if self.pyramid[s] >= 0]
                return (f"card {slot} is covered by slot(s) {covering}; active slots: "
                        f"{self.accessible_slots()}")
            if move.kind == CONSTRUCT_BUILDING:
                card = self.pyramid[slot]
                price = self.card_price(seat, card)
                return (f"{CARDS[card].name} costs {price} coins and player {seat + 1} has "
                        f"{p.coins}")
            w = WONDER_IDS[move.wonder]
            if w not in p.wonders:
                mine = [WONDERS[x].name for x in p.wonders]
                return f"{move.wonder} is not one of player {seat + 1}'s wonders {mine}"
            if p.wonder_age[p.wonders.index(w)]:
                return f"{move.wonder} is already built"
            if self.wonders_built >= 7:
                return "7 wonders are built already; no more wonders can be built"
            price = self.wonder_price(seat, w)
            return f"{move.wonder} costs {price} coins and player {seat + 1} has {p.coins}"
        if move.kind == SELECT_WONDER:
            names = [WONDERS[w].name for w in self.wonders_available]
            return f"{move.wonder} is not in wondersAvailable {names}"
        if move.kind == CHOOSE_PROGRESS_TOKEN:
            return (f"{move.token} is not in tokensAvailable "
                    f"{[TOKEN_NAMES[t] for t in self.tokens_board]}")
        if move.kind == CHOOSE_PROGRESS_TOKEN_FROM_DISCARD:
            return (f"{move.token} is not in tokensFromUnavailable "
                    f"{[TOKEN_NAMES[t] for t in self.library]}")
        if move.kind == DESTROY_CARD:
            color = BROWN if self.step == DESTROY_BROWN else GREY
            valid = [CARDS[c].name for c in self.players[1 - seat].cards
                     if CARDS[c].color == color]
            return (f"{move.card_name} is not a {COLOR_NAMES[color].lower()} card of player "
                    f"{2 - seat}; valid: {valid}")
        if move.kind == CONSTRUCT_FROM_DISCARD:
            return (f"{move.card_name} is not in discardedCards "
                    f"{[CARDS[c].name for c in self.discard]}")
        return f"{move} is not legal in step {step}"


def science_symbols(p: PlayerState) -> list[str]:
    """Names of the distinct science symbols a city holds."""
    return [SYMBOL_NAMES[s] for s in range(7) if (p.sym1 >> s) & 1]

