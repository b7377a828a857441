"""Setup, the deal, the JSON state, moves and hidden information.

Sources: docs/rules.md ruling 3, §4 (setup) and §5 (structures); docs/state-format.md;
docs/deal-format.md.
"""

import random

import pytest
from helpers.games import play_out
from helpers.positions import build, coins, discard, play, position, start, token

from duel.engine import (
    Deal,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Move,
    new_game,
    seat_view,
    swap_move,
)
from duel.engine.data import AGE1_CARDS, AGE2_CARDS, AGE3_CARDS, CARD_NAMES, GUILD_CARDS, TOKEN_IDS
from duel.engine.perspective import Perspective

DEAL = {
    "wonderDraft": ["PIRAEUS", "THE_TEMPLE_OF_ARTEMIS", "THE_APPIAN_WAY", "THE_PYRAMIDS",
                    "THE_HANGING_GARDENS", "THE_MAUSOLEUM", "THE_GREAT_LIBRARY",
                    "THE_STATUE_OF_ZEUS"],
    "wondersOut": ["THE_GREAT_LIGHTHOUSE", "CIRCUS_MAXIMUS", "THE_SPHINX", "THE_COLOSSUS"],
    "tokensBoard": ["ECONOMY", "MATHEMATICS", "ARCHITECTURE", "URBANISM", "THEOLOGY"],
    "tokensBox": ["MASONRY", "LAW", "PHILOSOPHY", "AGRICULTURE", "STRATEGY"],
    "age1": ["STONE_PIT", "GUARD_TOWER", "PHARMACIST", "CLAY_POOL", "LOGGING_CAMP", "QUARRY",
             "ALTER", "PRESS", "SCRIPTORIUM", "THEATRE", "STABLE", "APOTHECARY", "GLASSWORKS",
             "WOOD_RESERVE", "CLAY_RESERVE", "WORKSHOP", "GARRISON", "TAVERN", "STONE_RESERVE",
             "LUMBER_YARD"],
    "age2": ["CARAVANSERY", "BREWERY", "SCHOOL", "TEMPLE", "DRYING_ROOM", "HORSE_BREEDERS",
             "SHELF_QUARRY", "PARADE_GROUND", "LIBRARY", "STATUE", "AQUEDUCT", "FORUM",
             "BARRACKS", "DISPENSARY", "BRICKYARD", "CUSTOMS_HOUSE", "COURTHOUSE", "GLASSBLOWER",
             "ARCHERY_RANGE", "LABORATORY"],
    "age3": ["TACTICIANS_GUILD", "PRETORIUM", "GARDENS", "FORTIFICATIONS", "PORT", "ARMORY",
             "PALACE", "OBSERVATORY", "SENATE", "UNIVERSITY", "ACADEMY", "ARSENAL", "CIRCUS",
             "SIEGE_WORKSHOP", "ARENA", "STUDY", "PANTHEON", "OBELISK", "MONEYLENDERS_GUILD",
             "MERCHANTS_GUILD"],
    "removed": {"age1": ["BATHS", "CLAY_PIT", "PALISADE"],
                "age2": ["SAWMILL", "POSTRUM", "WALLS"],
                "age3": ["CHAMBER_OF_COMMERCE", "TOWNHALL", "LIGHTHOUSE"],
                "guilds": ["MAGISTRATES_GUILD", "BUILDERS_GUILD", "SHIPOWNERS_GUILD",
                           "SCIENTISTS_GUILD"]},
}
AGE1_FACE_UP = {0, 1, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19}


def select(name):
    return Move.from_json({"move": "SELECT_WONDER", "moveData": {"wonder": name}})


def drafted(deal=DEAL, **kw):
    """The game of `deal` after the wonder draft (each pick: the first wonder offered)."""
    s = new_game(deal=Deal.from_json(deal), **kw)
    while s.step_name == "WONDER_SELECTION":
        s = s.apply(s.legal_moves()[0])
    return s


def strings(obj):
    """Every string in a JSON value, keys included."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set(obj) | set().union(*(strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


# ---------------------------------------------------------------- setup (docs/rules.md ruling 3)
def test_setup_seven_coins_five_board_tokens_pawn_centre():
    """docs/rules.md ruling 3: 7 coins each; 5 tokens on the board; pawn at 0 with all 4 loot tokens."""
    s = new_game(deal=Deal.from_json(DEAL))
    v = seat_view(s)
    assert v["step"] == "WONDER_SELECTION" and v["age"] == 1
    assert v["player1"]["money"] == 7 and v["player2"]["money"] == 7
    assert v["tokensAvailable"] == DEAL["tokensBoard"]
    assert v["military"]["militaryPosition"] == 0
    assert all(v["military"][k] for k in ("loot5Player1Available", "loot2Player1Available",
                                          "loot2Player2Available", "loot5Player2Available"))
    assert v["previousMove"] == ""
    assert v["currentPlayerNumber"] == 1


def test_wonder_draft_order_and_hidden_second_round():
    """docs/rules.md ruling 3: draft P1 1, P2 2, P1 1; then P2 1, P1 2, P2 1. The second round's four wonders
    stay hidden until that round starts: neither named nor deducible, so the (open-box) wonders
    out of the game, the complement of the draft, show only from round 2 on."""
    s = new_game(deal=Deal.from_json(DEAL))
    round2 = set(DEAL["wonderDraft"][4:])
    pickers = []
    for pick in range(8):
        v = seat_view(s)
        if pick < 4:
            assert not (strings(v) & round2)
            assert not (strings(v) & set(DEAL["wondersOut"]))
            assert v["wondersUnavailable"] == []
            assert v["wondersAvailable"] == DEAL["wonderDraft"][pick:4]
        else:
            assert sorted(v["wondersUnavailable"]) == sorted(DEAL["wondersOut"])
            assert v["wondersAvailable"] == DEAL["wonderDraft"][pick:8]
        pickers.append(s.current_player)
        s = s.apply(select(v["wondersAvailable"][0]))
    assert pickers == [1, 2, 2, 1, 2, 1, 1, 2]
    v = seat_view(s)
    assert list(v["player1"]["wonders"]) == ["PIRAEUS", "THE_PYRAMIDS", "THE_MAUSOLEUM",
                                             "THE_GREAT_LIBRARY"]
    assert list(v["player2"]["wonders"]) == ["THE_TEMPLE_OF_ARTEMIS", "THE_APPIAN_WAY",
                                             "THE_HANGING_GARDENS", "THE_STATUE_OF_ZEUS"]
    assert all(a == 0 for a in v["player1"]["wonders"].values())


def test_selecting_a_wonder_not_offered_is_illegal():
    """Prompt: valid wonders are those in wondersAvailable."""
    s = new_game(deal=Deal.from_json(DEAL))
    with pytest.raises(IllegalMoveError, match="not in wondersAvailable"):
        s.apply(select("THE_SPHINX"))


def test_player_1_starts_age_1_with_the_deals_structure():
    """docs/rules.md ruling 3 / §5.1: P1 starts Age I; slots by the deal; rows 1, 3, 5 face up;
    14-19 accessible; others show AGE_ONE_BACK."""
    s = drafted()
    v = seat_view(s)
    assert v["step"] == "PLAY_CARD" and v["currentPlayerNumber"] == 1 and v["age"] == 1
    pyr = v["visiblePyramid"]
    assert len(pyr) == 20
    for slot in range(20):
        expected = DEAL["age1"][slot] if slot in AGE1_FACE_UP else "AGE_ONE_BACK"
        assert pyr[str(slot)] == {"cardName": expected, "isActive": slot >= 14}


def test_random_deals_remove_3_cards_per_age_and_keep_3_guilds():
    """docs/rules.md ruling 3: 3 unseen cards removed from each Age; 3 of the 7 guilds in Age III; 5 + 5
    tokens; 8 + 4 wonders."""
    for seed in range(20):
        d = new_game(seed).deal
        assert len(d.age1) == len(d.age2) == len(d.age3) == 20
        assert set(d.age1) | set(d.removed1) == set(AGE1_CARDS) and len(d.removed1) == 3
        assert set(d.age2) | set(d.removed2) == set(AGE2_CARDS) and len(d.removed2) == 3
        assert len(set(d.age3) & set(GUILD_CARDS)) == 3 and len(d.removed_guilds) == 4
        assert len(set(d.age3) - set(GUILD_CARDS)) == 17 and len(d.removed3) == 3
        assert set(d.age3) | set(d.removed3) | set(d.removed_guilds) == \
            set(AGE3_CARDS) | set(GUILD_CARDS)
        assert len(d.tokens_board) == 5 and len(set(d.tokens_board) | set(d.tokens_box)) == 10
        assert len(d.wonder_draft) == 8 and len(set(d.wonder_draft) | set(d.wonders_out)) == 12


def test_same_seed_same_game():
    """docs/deal-format.md "Deals from seeds": new_game(seed) is deterministic."""
    assert new_game(5).deal == new_game(5).deal
    assert seat_view(new_game(5)) == seat_view(new_game(5))


# ---------------------------------------------------------------- deal and replay
def random_game(seed):
    rng = random.Random(seed)
    s = new_game(seed)
    moves = []
    while not s.is_terminal():
        m = rng.choice(s.legal_moves())
        moves.append(m)
        s = s.apply(m)
    return s, moves


def test_deal_plus_moves_replays_the_game_exactly():
    """docs/deal-format.md: a game is fully determined by its deal and its move list."""
    for seed in (1, 2, 3):
        end, moves = random_game(seed)
        deal = Deal.from_json(end.deal.to_json())
        again = play_out(deal, moves)
        assert again.is_terminal()
        assert again.result() == end.result()
        a, b = seat_view(again), seat_view(end)
        a.pop("code"), b.pop("code")  # the game code is not part of the deal
        assert a == b


def test_deal_json_round_trip_and_validation():
    """docs/deal-format.md "What makes a deal valid": the deal JSON format; a deal naming a card twice is rejected."""
    d = Deal.from_json(DEAL)
    assert d.to_json() == DEAL
    bad = {**DEAL, "age1": ["LUMBER_YARD"] * 20}
    with pytest.raises(InvalidStateError):
        Deal.from_json(bad)
    bad = {**DEAL, "age3": DEAL["age3"][:-1] + ["SCIENTISTS_GUILD"]}  # a 4th guild, wrong removed
    with pytest.raises(InvalidStateError):
        Deal.from_json(bad)


def test_great_library_draws_in_the_deals_box_order():
    """docs/deal-format.md "Format": tokensBox is the order the Great Library draws them."""
    s = drafted()
    assert s.tokens_box == [TOKEN_IDS[t] for t in DEAL["tokensBox"]]


# ---------------------------------------------------------------- JSON state
def test_score_is_empty_until_the_game_ends_and_won_is_false():
    """docs/state-format.md "Players": score is {} until the game ends; won false meanwhile."""
    v = seat_view(drafted())
    for p in ("player1", "player2"):
        assert v[p]["score"] == {} and v[p]["won"] is False


def test_sorted_hand_groups_brown_and_grey_together_and_lists_only_nonempty_groups():
    """docs/state-format.md "Players": sortedHand groups; brown and grey share one; only groups with cards."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "GLASSBLOWER"},
                 p1={"cards": ["QUARRY", "TAVERN"]})
    s = play(s, build(19))
    v = seat_view(s)
    assert v["player1"]["sortedHand"] == {
        "COMMERCIAL_BUILDING": ["TAVERN"],
        "RAW_MATERIAL_AND_MANUFACTURED_GOOD": ["QUARRY", "GLASSBLOWER"]}
    assert v["player2"]["sortedHand"] == {}


def test_wonders_map_to_the_age_they_were_built_in():
    """docs/state-format.md "Players": each wonder maps to 0 or the Age (1-3) it was built in."""
    s = position(age=3, pyramid={18: "PALACE", 19: "OBELISK"},
                 p1={"coins": 50, "wonders": {"THE_SPHINX": 1, "THE_COLOSSUS": 0}})
    s = play(s, Move.from_json({"move": "CONSTRUCT_WONDER",
                                "moveData": {"cardIndex": 19, "wonder": "THE_COLOSSUS"}}))
    w = seat_view(s)["player1"]["wonders"]
    assert w["THE_SPHINX"] == 1 and w["THE_COLOSSUS"] == 3


def test_open_box_shows_box_tokens_and_out_wonders():
    """docs/state-format.md "Open box": by default tokensUnavailable lists the 5 boxed tokens and
    wondersUnavailable the 4 undrafted wonders."""
    v = seat_view(drafted())
    assert sorted(v["tokensUnavailable"]) == sorted(DEAL["tokensBox"])
    assert sorted(v["wondersUnavailable"]) == sorted(DEAL["wondersOut"])
    assert Perspective.of_player(1).view(drafted())["tokensUnavailable"] == v["tokensUnavailable"]


def test_hidden_box_option_shows_neither():
    """docs/state-format.md "Open box": with the option to hide them both lists are empty."""
    v = seat_view(drafted(open_box=False))
    assert v["tokensUnavailable"] == [] and v["wondersUnavailable"] == []
    assert not (strings(v) & set(DEAL["tokensBox"]))


def test_view_relabelled_for_player_1_as_player2():
    """docs/state-format.md "Perspective": the LLM seat's view swaps the players, negates militaryPosition,
    swaps the loot flags and maps currentPlayerNumber."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "POSTRUM"}, military=4, current=1,
                 loot={"loot2Player2Available": False},
                 p1={"coins": 3, "cards": ["QUARRY"]}, p2={"coins": 9, "cards": ["TAVERN"]})
    plain = seat_view(s)
    assert Perspective.of_player(2).view(s) == plain
    flip = Perspective.of_player(1).view(s)
    assert flip["player2"]["money"] == 3 and flip["player1"]["money"] == 9
    assert flip["player2"]["sortedHand"] == plain["player1"]["sortedHand"]
    assert flip["player2"]["id"] == 2 and flip["player1"]["id"] == 1
    assert flip["military"]["militaryPosition"] == -4
    assert flip["military"]["loot2Player1Available"] is False
    assert flip["military"]["loot2Player2Available"] is True
    assert flip["currentPlayerNumber"] == 2
    s = play(s, discard(19))
    assert seat_view(s)["previousMove"].startswith("Player 1 ")
    assert Perspective.of_player(1).view(s)["previousMove"].startswith("Player 2 ")


def test_choose_starting_player_number_is_relabelled_for_a_flipped_view():
    """docs/state-format.md "Moves": playerNumber is as the receiving view sees it; swap_move maps it."""
    assert swap_move(start(2)) == start(1)
    assert swap_move(start(1)) == start(2)
    assert swap_move(discard(3)) == discard(3)


def test_choose_starting_player_step_in_the_view():
    """docs/state-format.md "Steps": step CHOOSE_STARTING_PLAYER, with the new Age shown."""
    s = position(age=1, pyramid={19: "LUMBER_YARD"}, military=2, current=1)
    s = play(s, discard(19))
    v = seat_view(s)
    assert v["step"] == "CHOOSE_STARTING_PLAYER" and v["age"] == 2
    assert v["currentPlayerNumber"] == 2
    assert Perspective.of_player(2).view(s)["currentPlayerNumber"] == 2


def test_previous_move_describes_the_last_move():
    """docs/state-format.md "previousMove": previousMove, a one-line description ("" at the start)."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "POSTRUM"})
    assert seat_view(s)["previousMove"] == ""
    s = play(s, discard(19))
    text = seat_view(s)["previousMove"]
    assert "POSTRUM" in text and "\n" not in text


# ---------------------------------------------------------------- moves
def test_move_json_round_trip():
    """docs/state-format.md "Moves": exactly the prompt's {"move", "moveData"} forms."""
    forms = [
        {"move": "SELECT_WONDER", "moveData": {"wonder": "THE_PYRAMIDS"}},
        {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 13}},
        {"move": "DISCARD", "moveData": {"cardIndex": 0}},
        {"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 10, "wonder": "CIRCUS_MAXIMUS"}},
        {"move": "CHOOSE_PROGRESS_TOKEN", "moveData": {"progressToken": "THEOLOGY"}},
        {"move": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD", "moveData": {"progressToken": "LAW"}},
        {"move": "DESTROY_CARD", "moveData": {"cardName": "STONE_PIT"}},
        {"move": "CONSTRUCT_FROM_DISCARD", "moveData": {"cardName": "HORSE_BREEDERS"}},
        {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 2}},
    ]
    for f in forms:
        assert Move.from_json(f).to_json() == f


@pytest.mark.parametrize("bad", [
    {"move": "BUILD", "moveData": {"cardIndex": 1}},
    {"move": "DISCARD", "moveData": {}},
    {"move": "DISCARD", "moveData": {"cardIndex": 20}},
    {"move": "DISCARD", "moveData": {"cardIndex": "3"}},
    {"move": "DESTROY_CARD", "moveData": {"cardName": "CLAY"}},
    {"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 3}},
    {"move": "DISCARD"},
])
def test_malformed_moves_are_invalid(bad):
    """docs/state-format.md "Moves": a malformed move is an InvalidMoveError (not an IllegalMoveError)."""
    with pytest.raises(InvalidMoveError):
        Move.from_json(bad)


def test_illegal_move_leaves_the_state_untouched():
    """Engine API: apply raises IllegalMoveError and never changes its input."""
    s = position(age=2, pyramid={17: "WALLS", 18: "COURTHOUSE", 19: "POSTRUM"})
    before = seat_view(s)
    with pytest.raises(IllegalMoveError):
        s.apply(token("LAW"))
    with pytest.raises(IllegalMoveError):
        s.apply(discard(17))
    assert seat_view(s) == before
    after = s.apply(discard(19))
    assert seat_view(s) == before and coins(after) == (9, 7)


def test_no_move_after_the_game_ends():
    """docs/state-format.md "Steps": step GAME_END; no move is legal."""
    s = position(age=3, pyramid={19: "OBELISK"})
    s = play(s, discard(19))
    assert s.step_name == "GAME_END" and s.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply(discard(19))


# ---------------------------------------------------------------- hidden information
def test_views_never_show_face_down_removed_or_future_cards():
    """docs/state-format.md "Hidden information": never in any view: face-down identities, removed cards,
    future decks."""
    s = drafted()
    hidden = {DEAL["age1"][i] for i in range(20) if i not in AGE1_FACE_UP}
    hidden |= set(DEAL["removed"]["age1"]) | set(DEAL["age2"]) | set(DEAL["age3"])
    hidden |= {c for k in ("age2", "age3", "guilds") for c in DEAL["removed"][k]}
    for seat in (None, 1, 2):
        assert not (strings(Perspective.of_player(seat).view(s)) & hidden)


def test_hidden_cards_stay_hidden_through_a_random_game():
    """docs/state-format.md "Hidden information": at every step, every card name in the view is a card that
    is face up, built or discarded."""
    rng = random.Random(11)
    s = new_game(11)
    removed = {CARD_NAMES[c] for c in s.deal.removed1 + s.deal.removed2 + s.deal.removed3
               + s.deal.removed_guilds}
    while not s.is_terminal():
        v = seat_view(s)
        names = strings(v) & set(CARD_NAMES)
        assert not (names & removed)
        later_ages = {CARD_NAMES[c] for a in range(s.age + 1, 4) for c in s.deal.age(a)}
        assert not (names & later_ages)
        for slot, e in v["visiblePyramid"].items():
            if not (s.face_up >> int(slot)) & 1:
                assert e["cardName"].endswith("_BACK")
        s = s.apply(rng.choice(s.legal_moves()))


@pytest.mark.parametrize("theology,next_player", [([], 2), (["THEOLOGY"], 1)])
def test_state_read_at_a_pending_mausoleum_step_keeps_the_theology_extra_turn(theology,
                                                                              next_player):
    """docs/state-format.md "States from other servers" + docs/rules.md §9: a state read from the prompt's JSON in the
    middle of a wonder's choice still gives the Theology extra turn after it."""
    s = position(age=2, step="CONSTRUCT_FROM_DISCARD", pyramid={17: "WALLS", 18: "POSTRUM"},
                 discard=["TAVERN"], p1={"tokens": theology, "wonders": {"THE_MAUSOLEUM": 2}})
    s = play(s, Move.from_json({"move": "CONSTRUCT_FROM_DISCARD",
                                "moveData": {"cardName": "TAVERN"}}))
    assert s.current_player == next_player and coins(s) == (11, 7)


def test_view_keys_are_the_prompts():
    """docs/state-format.md "Keys": keys and nesting as in the prompt's example, plus previousMove."""
    v = seat_view(drafted())
    assert set(v) == {"code", "step", "age", "currentPlayerNumber", "player1", "player2",
                      "military", "discardedCards", "tokensAvailable", "tokensUnavailable",
                      "tokensFromUnavailable", "wondersAvailable", "wondersUnavailable",
                      "visiblePyramid", "previousMove"}
    for p in ("player1", "player2"):
        assert set(v[p]) == {"id", "money", "wonders", "tokens", "won", "score", "sortedHand"}
    assert set(v["military"]) == {"id", "militaryPosition", "loot5Player1Available",
                                  "loot2Player1Available", "loot2Player2Available",
                                  "loot5Player2Available"}
    assert all(set(e) == {"cardName", "isActive"} for e in v["visiblePyramid"].values())
