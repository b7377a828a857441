// The rules (see engine.h): each function names the Python it transcribes.
#include "engine.h"

namespace duel {

Data D;

// city.PlayerState.add_card.
int Player::add_card(int card) {
    const CardData& c = D.cards[card];
    built.set(card);
    cards.push((uint8_t)card);
    color_count[c.color]++;
    int priced = PRICES_KEPT;
    if (c.color == BROWN || c.color == GREY) {
        for (int r = 0; r < 5; r++) prod[r] += c.produces[r];
        priced = PRICES_BOTH;
    }
    if (c.discount_mask) { discount |= c.discount_mask; priced = std::max(priced, PRICES_OWN); }
    if (c.wild) { add_wild(c.wild, 1); priced = std::max(priced, PRICES_OWN); }
    if (c.symbol >= 0) {
        int bit = 1 << c.symbol;
        if (sym1 & bit) sym2 |= bit;
        sym1 |= bit;
    }
    return priced;
}

// city.PlayerState.remove_card: add_card's inverse.
int Player::remove_card(int card) {
    const CardData& c = D.cards[card];
    built.unset(card);
    cards.remove((uint8_t)card);
    color_count[c.color]--;
    int priced = PRICES_KEPT;
    if (c.color == BROWN || c.color == GREY) {
        for (int r = 0; r < 5; r++) prod[r] -= c.produces[r];
        priced = PRICES_BOTH;
    }
    if (c.discount_mask) { discount &= ~c.discount_mask; priced = std::max(priced, PRICES_OWN); }
    if (c.wild) { add_wild(c.wild, -1); priced = std::max(priced, PRICES_OWN); }
    if (c.symbol >= 0) {
        int bit = 1 << c.symbol;
        if (sym2 & bit) sym2 &= ~bit;
        else sym1 &= ~bit;
    }
    return priced;
}

// Dearest first, by insertion (unit prices with their counts): a cost has a handful of them,
// where std::sort's set-up cost more than the sorting (perf: 2% of the search).
static inline void sort_desc(int* unit, int* count, int n) {
    for (int i = 1; i < n; i++) {
        int u = unit[i], c = count[i], j = i;
        for (; j > 0 && unit[j - 1] < u; j--) { unit[j] = unit[j - 1]; count[j] = count[j - 1]; }
        unit[j] = u;
        count[j] = c;
    }
}

// `wilds` units waived from the front (the dearest) of a kind's sorted counts.
static inline void waive(int* count, int n, int wilds) {
    for (int i = 0; i < n && wilds > 0; i++) {
        int take = std::min(wilds, count[i]);
        count[i] -= take;
        wilds -= take;
    }
}

// pricing.trade_cost: the greedy that gives the minimum (see its docstring).
static int trade_cost(const Vec<Need, 5>& needs, const Player& p, bool rebate, const Player& o) {
    if (!(p.wild_raw || p.wild_man || rebate)) {
        int total = 0;
        for (int i = 0; i < needs.n; i++) {
            int r = needs[i].res, missing = needs[i].units - p.prod[r];
            if (missing > 0) total += missing * (((p.discount >> r) & 1) ? 1 : 2 + o.prod[r]);
        }
        return total;
    }
    // The missing units grouped by price (a need's units share one), dearest first: the
    // wildcards waive the dearest units of their kind, the rebate the two dearest left. The
    // same sum as the Python's list of single units, sorted and cut, without building it.
    int raw[5], nraw[5], man[5], nman[5], kr = 0, km = 0;
    for (int i = 0; i < needs.n; i++) {
        int r = needs[i].res, missing = needs[i].units - p.prod[r];
        if (missing <= 0) continue;
        int unit = ((p.discount >> r) & 1) ? 1 : 2 + o.prod[r];
        if (r < 3) { raw[kr] = unit; nraw[kr++] = missing; }
        else { man[km] = unit; nman[km++] = missing; }
    }
    sort_desc(raw, nraw, kr);
    sort_desc(man, nman, km);
    waive(nraw, kr, p.wild_raw);
    waive(nman, km, p.wild_man);
    if (rebate) {
        for (int k = 0; k < 2; k++) {  // the dearest unit left, of either kind
            int* best = nullptr;
            int best_unit = -1;
            for (int i = 0; i < kr; i++)
                if (nraw[i] && raw[i] > best_unit) { best_unit = raw[i]; best = &nraw[i]; }
            for (int i = 0; i < km; i++)
                if (nman[i] && man[i] > best_unit) { best_unit = man[i]; best = &nman[i]; }
            if (!best) break;
            --*best;
        }
    }
    int total = 0;
    for (int i = 0; i < kr; i++) total += raw[i] * nraw[i];
    for (int i = 0; i < km; i++) total += man[i] * nman[i];
    return total;
}

// GameState.card_price's trading part, when the table does not hold it (engine.h has the rest).
int State::card_price_slow(int seat, int card) const {
    const Player& p = players[seat];
    const CardData& c = D.cards[card];
    bool rebate = c.color == BLUE && p.has_token(MASONRY);
    int price = c.coins + trade_cost(c.needs, p, rebate, players[1 - seat]);
    prices[seat][card] = (int16_t)price;
    return price;
}

int State::wonder_price_slow(int seat, int w) const {
    const Player& p = players[seat];
    int price = trade_cost(D.wonders[w].needs, p, p.has_token(ARCHITECTURE), players[1 - seat]);
    prices[seat][MAX_CARDS + w] = (int16_t)price;
    return price;
}

// GameState.legal_moves.
int State::legal(int* out) const {
    int n = 0;
    switch (step) {
    case PLAY_CARD: {
        const Player& p = players[current];
        int ws[4], nw = 0;
        if (wonders_built < 7)
            for (int i = 0; i < p.wonders.n; i++)
                if (!p.wonder_age[i] && wonder_price(current, p.wonders[i]) <= p.coins)
                    ws[nw++] = p.wonders[i];
        for (uint32_t m = accessible; m; m &= m - 1) {
            int slot = __builtin_ctz(m);
            if (card_price(current, pyramid[slot]) <= p.coins)
                out[n++] = move_code(CONSTRUCT_BUILDING, slot);
            out[n++] = move_code(DISCARD, slot);
            for (int i = 0; i < nw; i++) out[n++] = move_code(CONSTRUCT_WONDER, slot, ws[i]);
        }
        return n;
    }
    case WONDER_SELECTION:
        for (int i = 0; i < wonders_available.n; i++)
            out[n++] = move_code(SELECT_WONDER, wonders_available[i]);
        return n;
    case CHOOSE_TOKEN:
        for (int i = 0; i < tokens_board.n; i++)
            out[n++] = move_code(CHOOSE_TOKEN_MOVE, tokens_board[i]);
        return n;
    case CHOOSE_LIBRARY_TOKEN:
        for (int i = 0; i < library.n; i++)
            out[n++] = move_code(CHOOSE_LIBRARY_MOVE, library[i]);
        return n;
    case DESTROY_BROWN:
    case DESTROY_GREY: {
        int color = step == DESTROY_BROWN ? BROWN : GREY;
        const Player& o = players[1 - current];
        for (int i = 0; i < o.cards.n; i++)
            if (D.cards[o.cards[i]].color == color) out[n++] = move_code(DESTROY_CARD, o.cards[i]);
        return n;
    }
    case BUILD_FROM_DISCARD:
        for (int i = 0; i < discard.n; i++)
            out[n++] = move_code(CONSTRUCT_FROM_DISCARD, discard[i]);
        return n;
    case CHOOSE_START:
        out[n++] = move_code(CHOOSE_STARTING, 1);
        out[n++] = move_code(CHOOSE_STARTING, 2);
        return n;
    }
    return 0;
}

// GameState.lay_out.
void State::lay_out(int a) {
    age = a;
    for (int s = 0; s < 20; s++) pyramid[s] = ages[a - 1][s];
    face_up = D.face_up_mask[a - 1];
    accessible = 0;
    for (int s = 0; s < 20; s++) {
        cover[s] = D.covered_by_len[a - 1][s];
        if (!cover[s]) accessible |= 1u << s;
    }
    remaining = 20;
}

// GameState._take.
int State::take(int slot) {
    int card = pyramid[slot];
    pyramid[slot] = -1;
    accessible &= ~(1u << slot);
    remaining--;
    const Vec<int, 2>& below = D.covers[age - 1][slot];
    for (int i = 0; i < below.n; i++) {
        int b = below[i];
        if (--cover[b] == 0 && pyramid[b] >= 0) accessible |= 1u << b;
    }
    last_player = current;
    return card;
}

void State::pay(int seat, int price, int printed) {
    players[seat].coins -= price;
    Player& o = players[1 - seat];
    if (o.has_token(ECONOMY) && price > printed) o.coins += price - printed;
}

static int most_of(const Player* ps, const Vec<int, 2>& colors) {
    int a = 0, b = 0;
    for (int i = 0; i < colors.n; i++) {
        a += ps[0].color_count[colors[i]];
        b += ps[1].color_count[colors[i]];
    }
    return std::max(a, b);
}

// GameState._build_card: true if a token choice is now due.
bool State::build_card(int seat, int card, bool chain) {
    Player& p = players[seat];
    const CardData& c = D.cards[card];
    bool pair = c.symbol >= 0 && ((p.sym1 >> c.symbol) & 1);
    forget(seat, p.add_card(card));
    if (chain && p.has_token(URBANISM)) p.coins += 4;
    p.coins += c.instant_coins;
    switch (c.gain) {
    case GAIN_PER_GREY: p.coins += c.gain_amount * p.color_count[GREY]; break;
    case GAIN_PER_BROWN: p.coins += c.gain_amount * p.color_count[BROWN]; break;
    case GAIN_PER_RED: p.coins += c.gain_amount * p.color_count[RED]; break;
    case GAIN_PER_YELLOW: p.coins += c.gain_amount * p.color_count[YELLOW]; break;
    case GAIN_PER_WONDER: p.coins += c.gain_amount * p.wonders_built(); break;
    case GAIN_GUILD_MOST: p.coins += c.gain_amount * most_of(players, c.guild_colors); break;
    }
    if (c.shields) {
        if (advance(seat, c.shields + (p.has_token(STRATEGY) ? 1 : 0))) return false;
    }
    if (c.symbol >= 0) {
        if (pair) return tokens_board.n > 0;
        if (p.science_count() >= 6) finish(seat, V_SCIENCE);
    }
    return false;
}

void State::built_after(bool token_due) {
    if (step == GAME_END) return;
    if (token_due) { step = CHOOSE_TOKEN; return; }
    end_turn();
}

// GameState._build_wonder.
void State::build_wonder(int seat, int w) {
    Player& p = players[seat];
    Player& o = players[1 - seat];
    const WonderData& wd = D.wonders[w];
    p.wonder_age[p.wonders.index((uint8_t)w)] = (uint8_t)age;
    if (wd.wild) { p.add_wild(wd.wild, 1); forget(seat, PRICES_OWN); }
    if (++wonders_built == 7)
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < players[q].wonders.n; i++)
                if (!players[q].wonder_age[i]) wonders_removed.push((int8_t)players[q].wonders[i]);
    p.coins += wd.coins;
    if (wd.opp_loses) o.coins = std::max(0, o.coins - wd.opp_loses);
    play_again = wd.play_again || p.has_token(THEOLOGY);
    if (wd.shields && advance(seat, wd.shields)) return;
    if (wd.destroy >= 0) {
        if (o.color_count[wd.destroy]) {
            step = wd.destroy == BROWN ? DESTROY_BROWN : DESTROY_GREY;
            return;
        }
    } else if (wd.library) {
        library.clear();
        int k = std::min(3, tokens_box.n);
        for (int i = 0; i < k; i++) library.push(tokens_box[i]);
        for (int i = k; i < tokens_box.n; i++) tokens_box[i - k] = tokens_box[i];
        tokens_box.n -= k;
        if (library.n) { step = CHOOSE_LIBRARY_TOKEN; return; }
    } else if (wd.mausoleum) {
        if (discard.n) { step = BUILD_FROM_DISCARD; return; }
    }
    end_turn();
}

void State::gain_token(int seat, int t) {
    Player& p = players[seat];
    if (p.add_token(t)) forget(seat, PRICES_OWN);
    if (t == AGRICULTURE || t == URBANISM) p.coins += 6;
    else if (t == LAW && p.science_count() >= 6) finish(seat, V_SCIENCE);
}

// GameState._advance: true if this won the game.
bool State::advance(int seat, int shields) {
    int old = military, nw;
    Player& o = players[1 - seat];
    if (seat == 0) {
        nw = std::min(9, old + shields);
        if (old < 3 && 3 <= nw && (loot & LOOT2_P2)) { loot &= ~LOOT2_P2; o.coins = std::max(0, o.coins - 2); }
        if (old < 6 && 6 <= nw && (loot & LOOT5_P2)) { loot &= ~LOOT5_P2; o.coins = std::max(0, o.coins - 5); }
    } else {
        nw = std::max(-9, old - shields);
        if (old > -3 && -3 >= nw && (loot & LOOT2_P1)) { loot &= ~LOOT2_P1; o.coins = std::max(0, o.coins - 2); }
        if (old > -6 && -6 >= nw && (loot & LOOT5_P1)) { loot &= ~LOOT5_P1; o.coins = std::max(0, o.coins - 5); }
    }
    military = nw;
    if (nw == 9 || nw == -9) { finish(seat, V_MILITARY); return true; }
    return false;
}

void State::end_turn() {
    step = PLAY_CARD;
    face_up |= accessible;
    if (remaining == 0) {
        play_again = false;
        if (age == 3) {
            Score a = score(0), b = score(1);
            int w = DRAW;
            if (a.total != b.total) w = a.total > b.total ? 0 : 1;
            else if (a.civilian != b.civilian) w = a.civilian > b.civilian ? 0 : 1;
            finish(w, V_CIVILIAN);
            return;
        }
        lay_out(age + 1);
        current = military > 0 ? 1 : military < 0 ? 0 : last_player;
        step = CHOOSE_START;
        return;
    }
    if (play_again) play_again = false;
    else current = 1 - current;
}

static const int DRAFT_ORDER[8] = {0, 1, 1, 0, 1, 0, 0, 1};

// GameState.play and its handlers, one case a move kind.
void State::play(int move) {
    ply++;
    int seat = current, a = move_a(move);
    prev_actor = seat;
    prev_move = move;
    prev_target = -1;
    switch (move_kind(move)) {
    case SELECT_WONDER:
        wonders_available.remove((int8_t)a);
        players[seat].wonders.push((uint8_t)a);
        players[seat].wonder_age.push(0);
        if (++draft_pick == 4) {
            wonders_available.clear();
            for (int i = 4; i < 8; i++) wonders_available.push(wonder_draft[i]);
        }
        if (draft_pick == 8) { step = PLAY_CARD; current = first; }
        else current = DRAFT_ORDER[draft_pick] ^ first;
        return;
    case CONSTRUCT_BUILDING: {
        int card = take(a);
        const CardData& c = D.cards[card];
        bool chain = c.chain_from >= 0 && players[seat].built.has(c.chain_from);
        int price = card_price(seat, card);
        pay(seat, price, chain ? 0 : c.coins);
        prev_card = card;
        prev_value = price;
        built_after(build_card(seat, card, chain));
        return;
    }
    case DISCARD: {
        int card = take(a);
        Player& p = players[seat];
        int gain = 2 + p.color_count[YELLOW];
        p.coins += gain;
        discard.push((uint8_t)card);
        prev_card = card;
        prev_value = gain;
        end_turn();
        return;
    }
    case CONSTRUCT_WONDER: {
        int card = take(a), w = move_b(move);
        int price = wonder_price(seat, w);
        pay(seat, price, 0);
        prev_card = card;
        prev_value = price;
        build_wonder(seat, w);
        return;
    }
    case CHOOSE_TOKEN_MOVE:
        tokens_board.remove((int8_t)a);
        gain_token(seat, a);
        if (step != GAME_END) end_turn();
        return;
    case DESTROY_CARD:
        forget(1 - seat, players[1 - seat].remove_card(a));
        discard.push((uint8_t)a);
        prev_target = 1 - seat;
        end_turn();
        return;
    case CHOOSE_LIBRARY_MOVE:
        library.remove((int8_t)a);
        for (int i = 0; i < library.n; i++) tokens_box.push(library[i]);
        library.clear();
        gain_token(seat, a);
        if (step != GAME_END) end_turn();
        return;
    case CONSTRUCT_FROM_DISCARD:
        discard.remove((uint8_t)a);
        built_after(build_card(seat, a, false));
        return;
    case CHOOSE_STARTING:
        prev_target = a - 1;
        current = a - 1;
        step = PLAY_CARD;
        return;
    }
}

// scoring.city_score.
Score State::score(int seat) const {
    const Player& p = players[seat];
    const Player& o = players[1 - seat];
    int by_color[7] = {0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < p.cards.n; i++) {
        const CardData& c = D.cards[p.cards[i]];
        if (c.color == PURPLE) {
            if (c.guild_kind == GUILD_WONDERS)
                by_color[PURPLE] += 2 * std::max(p.wonders_built(), o.wonders_built());
            else if (c.guild_kind == GUILD_COINS)
                by_color[PURPLE] += std::max(p.coins, o.coins) / 3;
            else
                by_color[PURPLE] += most_of(players, c.guild_colors);
        } else {
            by_color[c.color] += c.vp;
        }
    }
    int wonder_vp = 0;
    for (int i = 0; i < p.wonders.n; i++)
        if (p.wonder_age[i]) wonder_vp += D.wonders[p.wonders[i]].vp;
    int token_vp = 0;
    if (p.has_token(AGRICULTURE)) token_vp += 4;
    if (p.has_token(PHILOSOPHY)) token_vp += 7;
    if (p.has_token(MATHEMATICS)) token_vp += 3 * p.token_list.n;
    int pos = seat == 0 ? military : -military;
    int mil = pos <= 0 ? 0 : pos <= 2 ? 2 : pos <= 5 ? 5 : 10;
    Score s{by_color[BLUE], by_color[GREEN], by_color[YELLOW], by_color[PURPLE], mil, wonder_vp,
            p.coins / 3, token_vp, 0};
    s.total = s.civilian + s.science + s.commercial + s.guild + s.military + s.wonder + s.money
              + s.token;
    return s;
}

// Deal.random then GameState.start: the same draws from the same generator.
void deal_random(State& s, MT& rng) {
    int wonders[12], tokens[10], a1[23], a2[23], a3[20], guilds[7], layout3[20];
    for (int i = 0; i < 12; i++) wonders[i] = i;
    rng.shuffle(wonders, 12);
    for (int i = 0; i < 10; i++) tokens[i] = i;
    rng.shuffle(tokens, 10);
    int* decks[3] = {a1, a2, a3};
    for (int a = 0; a < 3; a++) {
        for (int i = 0; i < D.n_age_cards[a]; i++) decks[a][i] = D.age_cards[a][i];
        rng.shuffle(decks[a], D.n_age_cards[a]);
    }
    for (int i = 0; i < D.n_guilds; i++) guilds[i] = D.guild_cards[i];
    rng.shuffle(guilds, D.n_guilds);
    for (int i = 0; i < 17; i++) layout3[i] = a3[i];
    for (int i = 0; i < 3; i++) layout3[17 + i] = guilds[i];
    rng.shuffle(layout3, 20);
    s = State();
    for (int i = 0; i < 8; i++) s.wonder_draft[i] = (int8_t)wonders[i];
    for (int i = 0; i < 4; i++) s.wonders_available.push((int8_t)wonders[i]);
    for (int i = 0; i < 5; i++) s.tokens_board.push((int8_t)tokens[i]);
    for (int i = 5; i < 10; i++) s.tokens_box.push((int8_t)tokens[i]);
    for (int i = 0; i < 20; i++) {
        s.ages[0][i] = (int8_t)a1[i];
        s.ages[1][i] = (int8_t)a2[i];
        s.ages[2][i] = (int8_t)layout3[i];
    }
    s.prev_move = -2;  // GameState.start's prev: (-1, "", -1, ())
    s.lay_out(1);
}

int random_game(State& s, MT& rng, int* trail) {
    int moves[MAX_MOVES], played = 0;
    while (s.step != GAME_END) {
        int n = s.legal(moves);
        int m = moves[rng.below(n)];
        s.play(m);
        if (trail) trail[played] = m;
        played++;
    }
    return played;
}

}  // namespace duel
