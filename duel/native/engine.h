// The rules engine in C++: a transcription of duel/engine/state.py, city.py, pricing.py and
// scoring.py, step for step, so that the differential test can hold it to the Python engine
// ply by ply. The Python engine stays the reference and the rules' documentation; where this
// file and it disagree, this file is wrong. The card, wonder and layout tables are not written
// here: duel/native/__init__.py hands duel.engine.data's and layout's to load_data() at import.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "mt.h"

namespace duel {

// Fixed-capacity vector: the state is copied on every search iteration, so no heap.
template <class T, int N> struct Vec {
    T v[N];
    int n = 0;
    void push(T x) { v[n++] = x; }
    T& operator[](int i) { return v[i]; }
    const T& operator[](int i) const { return v[i]; }
    int size() const { return n; }
    bool empty() const { return n == 0; }
    void clear() { n = 0; }
    // list.remove(x): the first occurrence, order kept. False if absent.
    bool remove(T x) {
        for (int i = 0; i < n; i++)
            if (v[i] == x) {
                for (int j = i + 1; j < n; j++) v[j - 1] = v[j];
                n--;
                return true;
            }
        return false;
    }
    int index(T x) const {
        for (int i = 0; i < n; i++) if (v[i] == x) return i;
        return -1;
    }
};

enum Step { WONDER_SELECTION, PLAY_CARD, CHOOSE_TOKEN, DESTROY_GREY, DESTROY_BROWN,
            CHOOSE_LIBRARY_TOKEN, BUILD_FROM_DISCARD, CHOOSE_START, GAME_END };
// Move kinds in duel.engine.moves.MOVE_KINDS order; a move is kind << 12 | a << 4 | b (b: the
// wonder of CONSTRUCT_WONDER, whose a is the slot).
enum Kind { SELECT_WONDER, CONSTRUCT_BUILDING, DISCARD, CONSTRUCT_WONDER, CHOOSE_TOKEN_MOVE,
            CHOOSE_LIBRARY_MOVE, DESTROY_CARD, CONSTRUCT_FROM_DISCARD, CHOOSE_STARTING };
inline int move_code(int kind, int a, int b = 0) { return kind << 12 | a << 4 | b; }
inline int move_kind(int m) { return m >> 12; }
inline int move_a(int m) { return (m >> 4) & 0xff; }
inline int move_b(int m) { return m & 15; }

enum Color { BROWN, GREY, BLUE, GREEN, RED, YELLOW, PURPLE };
enum Token { AGRICULTURE, ARCHITECTURE, ECONOMY, LAW, MASONRY, MATHEMATICS, PHILOSOPHY,
             STRATEGY, THEOLOGY, URBANISM };
enum Gain { GAIN_NONE, GAIN_PER_GREY, GAIN_PER_BROWN, GAIN_PER_RED, GAIN_PER_YELLOW,
            GAIN_PER_WONDER, GAIN_GUILD_MOST };
enum Guild { GUILD_NONE, GUILD_WONDERS, GUILD_COINS, GUILD_PER_CARD };
enum Victory { V_NONE, V_CIVILIAN, V_MILITARY, V_SCIENCE };
constexpr int NO_WINNER = -1, DRAW = -2;
constexpr int LOOT2_P1 = 1, LOOT5_P1 = 2, LOOT2_P2 = 4, LOOT5_P2 = 8;
constexpr int MAX_CARDS = 80, N_WONDERS = 12;

struct Need { int res, units; };
struct CardData {
    int color, coins, chain_from, symbol, vp, shields, discount_mask, wild, gain, gain_amount,
        instant_coins, guild_kind, has_resource_cost, age;
    int produces[5];
    Vec<Need, 5> needs;
    Vec<int, 2> guild_colors;
};
struct WonderData {
    int vp, shields, play_again, coins, opp_loses, destroy, wild, library, mausoleum;
    Vec<Need, 5> needs;
};
struct Data {
    int n_cards = 0;
    CardData cards[MAX_CARDS];
    WonderData wonders[N_WONDERS];
    Vec<int, 2> covers[3][20];  // the slots under each slot (layout.COVERS)
    int covered_by_len[3][20];
    uint32_t face_up_mask[3];
    int age_cards[3][23], n_age_cards[3];  // AGE1_CARDS, AGE2_CARDS, AGE3_CARDS
    int guild_cards[7], n_guilds = 0;
};
extern Data D;

// A set of card ids (73 of them: more than one word).
struct Bits {
    uint64_t lo = 0, hi = 0;
    bool has(int c) const { return c < 64 ? (lo >> c) & 1 : (hi >> (c - 64)) & 1; }
    void set(int c) { if (c < 64) lo |= 1ull << c; else hi |= 1ull << (c - 64); }
    void unset(int c) { if (c < 64) lo &= ~(1ull << c); else hi &= ~(1ull << (c - 64)); }
};

constexpr int PRICES_KEPT = 0, PRICES_OWN = 1, PRICES_BOTH = 2;  // whose prices changed

struct Player {
    int coins = 7;
    Bits built;
    Vec<uint8_t, MAX_CARDS> cards;
    int color_count[7] = {0, 0, 0, 0, 0, 0, 0};
    int prod[5] = {0, 0, 0, 0, 0};
    int discount = 0, wild_raw = 0, wild_man = 0, sym1 = 0, sym2 = 0, tokens = 0;
    Vec<uint8_t, 10> token_list;
    Vec<uint8_t, 4> wonders;
    Vec<uint8_t, 4> wonder_age;

    bool has_token(int t) const { return (tokens >> t) & 1; }
    int wonders_built() const {
        int n = 0;
        for (int i = 0; i < wonder_age.n; i++) n += wonder_age[i] != 0;
        return n;
    }
    int science_count() const { return __builtin_popcount((unsigned)sym1); }
    void add_wild(int kind, int n) { if (kind == 1) wild_raw += n; else wild_man += n; }
    // Each returns whose construction prices changed (city.py's flags, told apart):
    // PRICES_BOTH when the production changed (the opponent's trading prices read it).
    int add_card(int card);
    int remove_card(int card);
    bool add_token(int t) {
        tokens |= 1 << t;
        token_list.push((uint8_t)t);
        if (t == LAW) sym1 |= 1 << 6;  // the scale
        return t == MASONRY || t == ARCHITECTURE;
    }
};

struct Score { int civilian, science, commercial, guild, military, wonder, money, token, total; };

struct State {
    int step = WONDER_SELECTION, age = 1, current = 0;
    Player players[2];
    int military = 0, loot = 15;
    int8_t pyramid[20];
    uint32_t face_up = 0, accessible = 0;
    int cover[20];
    int remaining = 0;
    Vec<uint8_t, MAX_CARDS> discard;
    Vec<int8_t, 10> tokens_board, tokens_box, library;
    Vec<int8_t, 8> wonders_available;
    int draft_pick = 0, wonders_built = 0;
    Vec<int8_t, 8> wonders_removed;
    bool play_again = false;
    int last_player = 0, winner = NO_WINNER, victory = V_NONE, ply = 0, first = 0;
    // The previous move, for GameState.prev (duel/native/__init__.py writes its text): who
    // made it, the move (-1: the one the state was loaded with), its card, coins and target.
    int prev_actor = -1, prev_move = -1, prev_card = -1, prev_value = 0, prev_target = -1;
    // The deal's parts the rules read after the start: the draft's round 2 and the Ages.
    int8_t wonder_draft[8];
    int8_t ages[3][20];

    // Prices known in the current context, -1 where not computed yet (the Python engine's
    // PriceBook tables, per state): both cities' prices are forgotten when either changes.
    mutable int16_t prices[2][MAX_CARDS + N_WONDERS];
    State() { dirty(); }
    void dirty() { std::memset(prices, 0xff, sizeof prices); }
    // A city changed (`priced`: a PRICES_ value): its own prices are forgotten, and the
    // opponent's too when its production changed. (The Python engine forgets both cities' in
    // every case: a cache, so only the count of trade_cost calls differs.)
    void forget(int seat, int priced) {
        if (priced == PRICES_BOTH) dirty();
        else if (priced == PRICES_OWN) std::memset(prices[seat], 0xff, sizeof prices[seat]);
    }
    // GameState.card_price and wonder_price: inline, as legal() asks for every accessible
    // card's and every wonder's price and the table mostly holds it (perf: the calls were a
    // tenth of the search's time); the trading cost itself is computed out of line.
    int card_price(int seat, int card) const {
        const CardData& c = D.cards[card];
        if (c.chain_from >= 0 && players[seat].built.has(c.chain_from)) return 0;
        if (!c.has_resource_cost) return c.coins;
        int known = prices[seat][card];
        return known >= 0 ? known : card_price_slow(seat, card);
    }
    int wonder_price(int seat, int w) const {
        int known = prices[seat][MAX_CARDS + w];
        return known >= 0 ? known : wonder_price_slow(seat, w);
    }
    int legal(int* out) const;  // the legal moves in GameState.legal_moves' order; count
    void play(int move);
    void lay_out(int a);
    Score score(int seat) const;
    double points(int seat) const {
        if (winner == DRAW) return 0.5;
        return winner == seat ? 1.0 : 0.0;
    }

  private:
    int card_price_slow(int seat, int card) const;
    int wonder_price_slow(int seat, int w) const;
    int take(int slot);
    void pay(int seat, int price, int printed);
    bool build_card(int seat, int card, bool chain);
    void built_after(bool token_due);
    void build_wonder(int seat, int w);
    void gain_token(int seat, int t);
    bool advance(int seat, int shields);
    void end_turn();
    void finish(int w, int v) { step = GAME_END; winner = w; victory = v; play_again = false; }
};

constexpr int MAX_MOVES = 20 * 5 + 16;  // per slot: build, discard, 4 wonders (and room)

// Python's duel.engine.deal.Deal.random: the same draws, into a starting state.
void deal_random(State& s, MT& rng);
// A uniformly random game played in place (duel.engine.playout.random_game); moves played.
int random_game(State& s, MT& rng, int* trail = nullptr);

}  // namespace duel
