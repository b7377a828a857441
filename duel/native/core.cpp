// duel._native: the Python bindings of the native core (pybind11). Thin on purpose: states
// cross as dicts of the GameState's own field names (duel/native/__init__.py converts), moves
// as the ints of engine.h, generators as random.Random.getstate()'s words. The loops that
// matter (playouts, the search) run wholly inside C++.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine.h"
#include "search.h"

namespace py = pybind11;
using namespace duel;

template <class V> static py::list to_list(const V& v) {
    py::list out;
    for (int i = 0; i < v.n; i++) out.append((int)v[i]);
    return out;
}
template <class V> static py::tuple to_tuple(const V& v) {
    py::tuple out(v.n);
    for (int i = 0; i < v.n; i++) out[i] = (int)v[i];
    return out;
}
template <class V> static void fill(V& v, py::handle seq) {
    v.clear();
    for (auto x : seq) v.push(static_cast<std::remove_reference_t<decltype(v.v[0])>>(x.cast<int>()));
}

static void load_need(Vec<Need, 5>& needs, py::handle seq) {
    needs.clear();
    for (auto pair : seq) {
        auto t = pair.cast<py::tuple>();
        needs.push(Need{t[0].cast<int>(), t[1].cast<int>()});
    }
}

// duel.engine.data's and layout's tables (see duel/native/__init__.py: _load_data).
static void load_data(py::list cards, py::list wonders, py::list covers, py::list face_up,
                      py::list age_cards, py::list guild_cards) {
    D.n_cards = (int)cards.size();
    if (D.n_cards > MAX_CARDS) throw std::runtime_error("too many cards for the native core");
    for (int i = 0; i < D.n_cards; i++) {
        py::dict c = cards[i];
        CardData& d = D.cards[i];
        d.color = c["color"].cast<int>(); d.coins = c["coins"].cast<int>();
        d.chain_from = c["chain_from"].cast<int>(); d.symbol = c["symbol"].cast<int>();
        d.vp = c["vp"].cast<int>(); d.shields = c["shields"].cast<int>();
        d.discount_mask = c["discount_mask"].cast<int>(); d.wild = c["wild"].cast<int>();
        d.gain = c["gain"].cast<int>(); d.gain_amount = c["gain_amount"].cast<int>();
        d.instant_coins = c["instant_coins"].cast<int>(); d.guild_kind = c["guild_kind"].cast<int>();
        d.has_resource_cost = c["has_resource_cost"].cast<bool>(); d.age = c["age"].cast<int>();
        auto prod = c["produces"].cast<py::tuple>();
        for (int r = 0; r < 5; r++) d.produces[r] = prod[r].cast<int>();
        load_need(d.needs, c["needs"]);
        fill(d.guild_colors, c["guild_colors"]);
    }
    for (int i = 0; i < N_WONDERS; i++) {
        py::dict w = wonders[i];
        WonderData& d = D.wonders[i];
        d.vp = w["vp"].cast<int>(); d.shields = w["shields"].cast<int>();
        d.play_again = w["play_again"].cast<bool>(); d.coins = w["coins"].cast<int>();
        d.opp_loses = w["opp_loses"].cast<int>(); d.destroy = w["destroy"].cast<int>();
        d.wild = w["wild"].cast<int>(); d.library = w["library"].cast<bool>();
        d.mausoleum = w["mausoleum"].cast<bool>();
        load_need(d.needs, w["needs"]);
    }
    for (int a = 0; a < 3; a++) {
        py::list by_age = covers[a];
        for (int s = 0; s < 20; s++) {
            py::tuple pair = by_age[s];  // (covers, covered_by length)
            fill(D.covers[a][s], pair[0]);
            D.covered_by_len[a][s] = pair[1].cast<int>();
        }
        D.face_up_mask[a] = face_up[a].cast<uint32_t>();
        py::list deck = age_cards[a];
        D.n_age_cards[a] = (int)deck.size();
        for (int i = 0; i < D.n_age_cards[a]; i++) D.age_cards[a][i] = deck[i].cast<int>();
    }
    D.n_guilds = (int)guild_cards.size();
    for (int i = 0; i < D.n_guilds; i++) D.guild_cards[i] = guild_cards[i].cast<int>();
}

static py::dict player_fields(const Player& p) {
    py::dict d;
    d["coins"] = p.coins;
    d["built"] = py::make_tuple(p.built.lo, p.built.hi);
    d["cards"] = to_list(p.cards);
    py::list cc;
    for (int c = 0; c < 7; c++) cc.append(p.color_count[c]);
    d["color_count"] = cc;
    d["prod"] = py::make_tuple(p.prod[0], p.prod[1], p.prod[2], p.prod[3], p.prod[4]);
    d["discount"] = p.discount; d["wild_raw"] = p.wild_raw; d["wild_man"] = p.wild_man;
    d["sym1"] = p.sym1; d["sym2"] = p.sym2; d["tokens"] = p.tokens;
    d["token_list"] = to_tuple(p.token_list);
    d["wonders"] = to_tuple(p.wonders);
    d["wonder_age"] = to_tuple(p.wonder_age);
    return d;
}

static void load_player(Player& p, py::dict d) {
    p.coins = d["coins"].cast<int>();
    auto built = d["built"].cast<py::tuple>();
    p.built.lo = built[0].cast<uint64_t>(); p.built.hi = built[1].cast<uint64_t>();
    fill(p.cards, d["cards"]);
    auto cc = d["color_count"].cast<py::list>();
    for (int c = 0; c < 7; c++) p.color_count[c] = cc[c].cast<int>();
    auto prod = d["prod"].cast<py::tuple>();
    for (int r = 0; r < 5; r++) p.prod[r] = prod[r].cast<int>();
    p.discount = d["discount"].cast<int>(); p.wild_raw = d["wild_raw"].cast<int>();
    p.wild_man = d["wild_man"].cast<int>(); p.sym1 = d["sym1"].cast<int>();
    p.sym2 = d["sym2"].cast<int>(); p.tokens = d["tokens"].cast<int>();
    fill(p.token_list, d["token_list"]);
    fill(p.wonders, d["wonders"]);
    fill(p.wonder_age, d["wonder_age"]);
}

static py::dict state_fields(const State& s) {
    py::dict d;
    d["step"] = s.step; d["age"] = s.age; d["current"] = s.current;
    d["players"] = py::make_tuple(player_fields(s.players[0]), player_fields(s.players[1]));
    d["military"] = s.military; d["loot"] = s.loot;
    py::list pyramid, cover;
    for (int i = 0; i < 20; i++) { pyramid.append((int)s.pyramid[i]); cover.append(s.cover[i]); }
    d["pyramid"] = pyramid; d["cover"] = cover;
    d["face_up"] = s.face_up; d["accessible"] = s.accessible; d["remaining"] = s.remaining;
    d["discard"] = to_list(s.discard);
    d["tokens_board"] = to_list(s.tokens_board); d["tokens_box"] = to_list(s.tokens_box);
    d["library"] = to_list(s.library); d["wonders_available"] = to_list(s.wonders_available);
    d["draft_pick"] = s.draft_pick; d["wonders_built"] = s.wonders_built;
    d["wonders_removed"] = to_list(s.wonders_removed);
    d["play_again"] = s.play_again; d["last_player"] = s.last_player; d["winner"] = s.winner;
    d["victory"] = s.victory; d["ply"] = s.ply; d["first"] = s.first;
    d["prev"] = py::make_tuple(s.prev_actor, s.prev_move, s.prev_card, s.prev_value,
                               s.prev_target);
    return d;
}

static State load_state(py::dict d) {
    State s;
    s.step = d["step"].cast<int>(); s.age = d["age"].cast<int>();
    s.current = d["current"].cast<int>();
    auto players = d["players"].cast<py::sequence>();
    load_player(s.players[0], players[0].cast<py::dict>());
    load_player(s.players[1], players[1].cast<py::dict>());
    s.military = d["military"].cast<int>(); s.loot = d["loot"].cast<int>();
    auto pyramid = d["pyramid"].cast<py::sequence>();
    auto cover = d["cover"].cast<py::sequence>();
    for (int i = 0; i < 20; i++) {
        s.pyramid[i] = i < (int)pyramid.size() ? (int8_t)pyramid[i].cast<int>() : -1;
        s.cover[i] = i < (int)cover.size() ? cover[i].cast<int>() : 0;
    }
    s.face_up = d["face_up"].cast<uint32_t>(); s.accessible = d["accessible"].cast<uint32_t>();
    s.remaining = d["remaining"].cast<int>();
    fill(s.discard, d["discard"]);
    fill(s.tokens_board, d["tokens_board"]); fill(s.tokens_box, d["tokens_box"]);
    fill(s.library, d["library"]); fill(s.wonders_available, d["wonders_available"]);
    s.draft_pick = d["draft_pick"].cast<int>(); s.wonders_built = d["wonders_built"].cast<int>();
    fill(s.wonders_removed, d["wonders_removed"]);
    s.play_again = d["play_again"].cast<bool>(); s.last_player = d["last_player"].cast<int>();
    s.winner = d["winner"].cast<int>(); s.victory = d["victory"].cast<int>();
    s.ply = d["ply"].cast<int>(); s.first = d["first"].cast<int>();
    auto draft = d["wonder_draft"].cast<py::sequence>();
    for (int i = 0; i < 8; i++) s.wonder_draft[i] = i < (int)draft.size() ? (int8_t)draft[i].cast<int>() : -1;
    auto ages = d["ages"].cast<py::sequence>();
    for (int a = 0; a < 3; a++) {
        auto deck = ages[a].cast<py::sequence>();
        for (int i = 0; i < 20; i++) s.ages[a][i] = i < (int)deck.size() ? (int8_t)deck[i].cast<int>() : -1;
    }
    return s;
}

static MT mt_of(const std::vector<uint32_t>& words) {
    if (words.size() != 625) throw std::invalid_argument("a generator state is 625 words");
    MT rng;
    rng.set_words(words);
    return rng;
}

static py::list legal_list(const State& s) {
    int moves[MAX_MOVES];
    int n = s.legal(moves);
    py::list out;
    for (int i = 0; i < n; i++) out.append(moves[i]);
    return out;
}

static py::dict score_dict(const Score& s) {
    py::dict d;
    d["CIVILIAN_BUILDING"] = s.civilian; d["SCIENTIFIC_BUILDING"] = s.science;
    d["COMMERCIAL_BUILDING"] = s.commercial; d["GUILD"] = s.guild;
    d["MILITARY_BUILDING"] = s.military; d["WONDER"] = s.wonder; d["MONEY"] = s.money;
    d["PROGRESS_TOKEN"] = s.token; d["TOTAL"] = s.total;
    return d;
}

PYBIND11_MODULE(_native, m) {
    m.doc() = "duel's native core: the rules, random playouts and ISMCTS in C++";
    m.def("load_data", &load_data);
    py::class_<State>(m, "State")
        .def_static("load", &load_state)
        .def("fields", &state_fields)
        .def("legal", &legal_list)
        .def("play", &State::play)
        .def("clone", [](const State& s) { return State(s); })
        .def("score", [](const State& s, int seat) { return score_dict(s.score(seat)); })
        .def_property_readonly("step", [](const State& s) { return s.step; })
        .def("random_game", [](State& s, const std::vector<uint32_t>& words) {
            MT rng = mt_of(words);
            int trail[512];
            int n = random_game(s, rng, trail);
            return py::make_tuple(std::vector<int>(trail, trail + n), rng.words());
        });
    m.def("new_game", [](uint64_t seed) {
        MT rng;
        rng.seed(seed);
        State s;
        deal_random(s, rng);
        return s;
    }, "The opening position of new_game(seed): the same deal from the same seed.");
    m.def("random_games", [](uint64_t first_seed, int count, const std::vector<uint32_t>& words) {
        // `duel bench engine`'s loop: game i's deal from seed first_seed + i, its moves from one
        // shared generator. Returns the moves played and the generator's state.
        MT rng = mt_of(words);
        long moves = 0;
        {
            py::gil_scoped_release release;
            for (int i = 0; i < count; i++) {
                MT deal_rng;
                deal_rng.seed(first_seed + (uint64_t)i);
                State s;
                deal_random(s, deal_rng);
                moves += random_game(s, rng);
            }
        }
        return py::make_tuple(moves, rng.words());
    });
    bind_search(m);
}
