// The guided search's tree in C++ (part of search.cpp's translation unit): a transcription of
// duel/agents/guided/search.py (GNode, select, reveal_key, reveals, simulate, _outcome, _rollout),
// duel/agents/guided/redeal.py (redeal) and duel/agents/guided/features.py (encode, move_slots), drawing the
// same numbers from the same generator in the same order, so that a seeded search with an
// iteration budget grows the same tree and reports the same root statistics as the Python one
// (tests/guide/test_guide_native.py).
//
// The network is not here: each expansion calls back into Python with the features and the
// moves' policy slots (duel/native/__init__.py: GuidedSearch), which runs the very numpy
// arithmetic of duel.agents.guided.runtime and its softmax. A float32 MLP written here would be faster
// but not the same bits: numpy's sgemv sums in BLAS's blocked order, not a loop's.
// The difference from the Python search: no tree is kept between decisions (as for mcts).
// Included by search.cpp, after its anonymous namespace (the sampling, MAST, the rollouts).
#pragma once
#include <pybind11/numpy.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace duel_guided {

// duel.agents.guided.features' layout, handed over by name from Python (written once, there).
struct Layout {
    int F_AGE, F_STEP, F_MILITARY, F_LOOT, F_BOARD_TOKENS, F_BOX_TOKENS, F_LIBRARY, F_DRAFT,
        F_DRAFT_PICK, F_DISCARD, F_DISCARD_COUNT, F_PLAY_AGAIN, F_WONDERS_BUILT,
        F_STRUCTURE_LEFT, F_ME, F_THEM, F_SLOTS, S_SIZE, S_PRESENT, S_ACCESSIBLE, S_BACK, S_COLOR,
        F_CARDS_OPEN, F_CARDS_COVERED, F_PRICE_ME, F_PRICE_THEM, F_AFFORD_ME, P_COINS,
        P_COINS_HOT, P_PROD, P_WILD, P_DISCOUNT, P_COLORS, P_SYM1, P_SYM2, P_SCIENCE, P_TOKENS,
        P_CARDS, P_WONDER_OWNED, P_WONDER_BUILT, P_WONDER_PRICE, P_WONDER_AFFORD, P_SCORE,
        MAX_COINS, A_BUILD, A_DISCARD, A_WONDER, A_BURY, A_SELECT, A_TOKEN, A_LIBRARY,
        A_DESTROY, A_FROM_DISCARD, A_START;
};

Layout layout_of(const py::dict& d) {
    Layout L;
    auto g = [&](const char* name) { return d[name].cast<int>(); };
#define F(x) L.x = g(#x);
    F(F_AGE) F(F_STEP) F(F_MILITARY) F(F_LOOT) F(F_BOARD_TOKENS) F(F_BOX_TOKENS) F(F_LIBRARY)
    F(F_DRAFT) F(F_DRAFT_PICK) F(F_DISCARD) F(F_DISCARD_COUNT) F(F_PLAY_AGAIN)
    F(F_WONDERS_BUILT) F(F_STRUCTURE_LEFT) F(F_ME) F(F_THEM) F(F_SLOTS) F(S_SIZE) F(S_PRESENT)
    F(S_ACCESSIBLE) F(S_BACK) F(S_COLOR) F(F_CARDS_OPEN) F(F_CARDS_COVERED) F(F_PRICE_ME)
    F(F_PRICE_THEM) F(F_AFFORD_ME) F(P_COINS) F(P_COINS_HOT) F(P_PROD) F(P_WILD) F(P_DISCOUNT)
    F(P_COLORS) F(P_SYM1) F(P_SYM2) F(P_SCIENCE) F(P_TOKENS) F(P_CARDS) F(P_WONDER_OWNED)
    F(P_WONDER_BUILT) F(P_WONDER_PRICE) F(P_WONDER_AFFORD) F(P_SCORE) F(MAX_COINS) F(A_BUILD)
    F(A_DISCARD) F(A_WONDER) F(A_BURY) F(A_SELECT) F(A_TOKEN) F(A_LIBRARY) F(A_DESTROY)
    F(A_FROM_DISCARD) F(A_START)
#undef F
    return L;
}

struct Features {
    std::vector<int> idx;
    std::vector<double> val;
    void add(int i, double v) { idx.push_back(i); val.push_back(v); }
};

// features._player
void encode_player(const Layout& L, const State& s, int seat, int base, Features& f) {
    const Player& p = s.players[seat];
    int coins = p.coins;
    f.add(base + L.P_COINS, coins / 10.0);
    f.add(base + L.P_COINS_HOT + std::min(coins, L.MAX_COINS), 1.0);
    for (int r = 0; r < 5; r++)
        if (p.prod[r]) f.add(base + L.P_PROD + r, p.prod[r] / 3.0);
    if (p.wild_raw) f.add(base + L.P_WILD, (double)p.wild_raw);
    if (p.wild_man) f.add(base + L.P_WILD + 1, (double)p.wild_man);
    for (int r = 0; r < 5; r++)
        if ((p.discount >> r) & 1) f.add(base + L.P_DISCOUNT + r, 1.0);
    for (int c = 0; c < 7; c++)
        if (p.color_count[c]) f.add(base + L.P_COLORS + c, p.color_count[c] / 5.0);
    int n_sym = 0;
    for (int k = 0; k < 7; k++) {
        if ((p.sym1 >> k) & 1) { f.add(base + L.P_SYM1 + k, 1.0); n_sym++; }
        if ((p.sym2 >> k) & 1) f.add(base + L.P_SYM2 + k, 1.0);
    }
    f.add(base + L.P_SCIENCE + std::min(n_sym, 6), 1.0);
    for (int t = 0; t < 10; t++)
        if ((p.tokens >> t) & 1) f.add(base + L.P_TOKENS + t, 1.0);
    for (int c = 0; c < D.n_cards; c++)  // by id, lowest first (the Python walks the bits)
        if (p.built.has(c)) f.add(base + L.P_CARDS + c, 1.0);
    for (int i = 0; i < p.wonders.n; i++) {
        int w = p.wonders[i];
        if (p.wonder_age[i]) {
            f.add(base + L.P_WONDER_BUILT + w, 1.0);
        } else if (s.wonders_removed.index((int8_t)w) < 0) {
            f.add(base + L.P_WONDER_OWNED + w, 1.0);
            if (s.step != WONDER_SELECTION) {
                int price = s.wonder_price(seat, w);
                f.add(base + L.P_WONDER_PRICE + w, price / 10.0 + 0.05);
                if (price <= coins) f.add(base + L.P_WONDER_AFFORD + w, 1.0);
            }
        }
    }
    f.add(base + L.P_SCORE, s.score(seat).total / 50.0);
}

// features.encode
void encode(const Layout& L, const State& s, bool open_box, Features& f) {
    f.idx.clear();
    f.val.clear();
    int me = s.current, them = 1 - me, step = s.step;
    bool draft = step == WONDER_SELECTION;
    f.add(L.F_AGE + s.age - 1, 1.0);
    f.add(L.F_STEP + step, 1.0);
    int pawn = me == 0 ? s.military : -s.military;
    f.add(L.F_MILITARY + pawn + 9, 1.0);
    int loot = s.loot;
    int mine2 = me == 0 ? LOOT2_P1 : LOOT2_P2, mine5 = me == 0 ? LOOT5_P1 : LOOT5_P2;
    int theirs2 = me == 0 ? LOOT2_P2 : LOOT2_P1, theirs5 = me == 0 ? LOOT5_P2 : LOOT5_P1;
    if (loot & mine2) f.add(L.F_LOOT, 1.0);
    if (loot & mine5) f.add(L.F_LOOT + 1, 1.0);
    if (loot & theirs2) f.add(L.F_LOOT + 2, 1.0);
    if (loot & theirs5) f.add(L.F_LOOT + 3, 1.0);
    for (int i = 0; i < s.tokens_board.n; i++) f.add(L.F_BOARD_TOKENS + s.tokens_board[i], 1.0);
    if (open_box) {
        int box = 0;
        for (int i = 0; i < s.tokens_box.n; i++) box |= 1 << s.tokens_box[i];
        for (int t = 0; t < 10; t++)
            if ((box >> t) & 1) f.add(L.F_BOX_TOKENS + t, 1.0);
    }
    for (int i = 0; i < s.library.n; i++) f.add(L.F_LIBRARY + s.library[i], 1.0);
    if (draft) {
        for (int i = 0; i < s.wonders_available.n; i++)
            f.add(L.F_DRAFT + s.wonders_available[i], 1.0);
        f.add(L.F_DRAFT_PICK + s.draft_pick, 1.0);
    }
    for (int i = 0; i < s.discard.n; i++) f.add(L.F_DISCARD + s.discard[i], 1.0);
    if (s.discard.n) f.add(L.F_DISCARD_COUNT, s.discard.n / 10.0);
    if (s.play_again) f.add(L.F_PLAY_AGAIN, 1.0);
    f.add(L.F_WONDERS_BUILT + s.wonders_built, 1.0);
    encode_player(L, s, me, L.F_ME, f);
    encode_player(L, s, them, L.F_THEM, f);
    if (draft) return;
    f.add(L.F_STRUCTURE_LEFT, s.remaining / 20.0);
    int coins = s.players[me].coins, age_back = s.age - 1;
    for (int slot = 0; slot < 20; slot++) {
        int card = s.pyramid[slot];
        if (card < 0) continue;
        int base = L.F_SLOTS + slot * L.S_SIZE;
        f.add(base + L.S_PRESENT, 1.0);
        bool open = (s.accessible >> slot) & 1;
        if (open) f.add(base + L.S_ACCESSIBLE, 1.0);
        if (!((s.face_up >> slot) & 1)) {
            bool guild = D.cards[card].color == PURPLE;
            f.add(base + L.S_BACK + (guild ? 3 : age_back), 1.0);
            continue;
        }
        f.add(base + L.S_COLOR + D.cards[card].color, 1.0);
        int mine = s.card_price(me, card);
        f.add(L.F_PRICE_ME + card, mine / 10.0 + 0.05);
        f.add(L.F_PRICE_THEM + card, s.card_price(them, card) / 10.0 + 0.05);
        if (open) {
            f.add(L.F_CARDS_OPEN + card, 1.0);
            if (mine <= coins) f.add(L.F_AFFORD_ME + card, 1.0);
        } else {
            f.add(L.F_CARDS_COVERED + card, 1.0);
        }
    }
}

// features.move_slots, both entries appended
void move_slots(const Layout& L, const State& s, int m, std::vector<int>& out) {
    int kind = move_kind(m), a = move_a(m), b = move_b(m);
    int first, second = -1;
    switch (kind) {
        case CONSTRUCT_BUILDING: first = L.A_BUILD + s.pyramid[a]; break;
        case DISCARD: first = L.A_DISCARD + s.pyramid[a]; break;
        case CONSTRUCT_WONDER: first = L.A_WONDER + b; second = L.A_BURY + s.pyramid[a]; break;
        case SELECT_WONDER: first = L.A_SELECT + a; break;
        case CHOOSE_TOKEN_MOVE: first = L.A_TOKEN + a; break;
        case CHOOSE_LIBRARY_MOVE: first = L.A_LIBRARY + a; break;
        case DESTROY_CARD: first = L.A_DESTROY + a; break;
        case CONSTRUCT_FROM_DISCARD: first = L.A_FROM_DISCARD + a; break;
        case CHOOSE_STARTING: first = L.A_START + (a - 1 == s.current ? 0 : 1); break;
        default: throw std::runtime_error("no policy output for this move kind");
    }
    out.push_back(first);
    out.push_back(second);
}

// The network's arithmetic in C++ (native=2, off by default): duel.agents.guided.runtime.NumpyGuide's
// function in float32 from the same weights, its value and softmax in double as there. Not the
// same bits: numpy's `@` sums in OpenBLAS's blocked order, this in its own (the layers are
// stored transposed so the sums vectorise over the outputs), so values and priors agree to
// about 1e-6 (tests/guide/test_guide_native.py) and a seeded search drifts from the Python one.
// The setup's -O2 vectorises only loops that need no alias checks (GCC 12's very-cheap cost
// model): the network's loops get -O3's model here, with restrict pointers.
#pragma GCC push_options
#pragma GCC optimize("O3")
struct Net {
    int features = 0, hidden = 0, value_hidden = 0, policy = 0;
    std::vector<float> w_in, b_in;       // (features, hidden), (hidden)
    std::vector<std::vector<float>> body_t, body_b;  // each (in, out) transposed, (out)
    std::vector<float> w_pol, b_pol;     // (policy, hidden), (policy)
    std::vector<float> v1_t, b_v1;       // (hidden, value_hidden) transposed, (value_hidden)
    std::vector<float> w_v2;             // (value_hidden)
    double b_v2 = 0.0;
    mutable std::vector<float> h, h2, v;
    long evaluations = 0;

    static float dot(const float* __restrict a, const float* __restrict b, int n) {
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int i = 0;
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; k++) acc[k] += a[i + k] * b[i + k];
        float s = 0;
        for (int k = 0; k < 8; k++) s += acc[k];
        for (; i < n; i++) s += a[i] * b[i];
        return s;
    }
    // out = W^T x + b, W^T stored (in, out): a sum over the inputs, vectorised over outputs.
    static void affine_t(const float* __restrict wt, const float* __restrict b,
                         const float* __restrict x, int in, int out, float* __restrict y) {
        for (int o = 0; o < out; o++) y[o] = 0.0f;
        for (int i = 0; i < in; i++) {
            float xi = x[i];
            const float* row = wt + (size_t)i * out;
            for (int o = 0; o < out; o++) y[o] += xi * row[o];
        }
        for (int o = 0; o < out; o++) { y[o] += b[o]; if (y[o] < 0.0f) y[o] = 0.0f; }
    }
    // The mover's value and the moves' priors (softmax of their logits).
    double evaluate(const std::vector<int>& idx, const std::vector<double>& val,
                    const std::vector<int>& slots, std::vector<double>& priors) {
        evaluations++;
        h.assign(hidden, 0.0f);
        float* __restrict hp = h.data();
        for (size_t k = 0; k < idx.size(); k++) {
            float x = (float)val[k];
            const float* __restrict row = w_in.data() + (size_t)idx[k] * hidden;
            for (int j = 0; j < hidden; j++) hp[j] += x * row[j];
        }
        const float* __restrict bp = b_in.data();
        for (int j = 0; j < hidden; j++) { hp[j] += bp[j]; if (hp[j] < 0.0f) hp[j] = 0.0f; }
        for (size_t l = 0; l < body_t.size(); l++) {
            h2.assign(hidden, 0.0f);
            affine_t(body_t[l].data(), body_b[l].data(), h.data(), hidden, hidden, h2.data());
            h.swap(h2);
        }
        v.assign(value_hidden, 0.0f);
        affine_t(v1_t.data(), b_v1.data(), h.data(), hidden, value_hidden, v.data());
        double value = 1.0 / (1.0 + std::exp(-((double)dot(w_v2.data(), v.data(), value_hidden)
                                              + b_v2)));
        int n = (int)slots.size() / 2;
        priors.resize(n);
        if (!n) return value;
        double top = -1e300;
        for (int i = 0; i < n; i++) {
            int a = slots[2 * i], b = slots[2 * i + 1];
            double logit = (double)(dot(w_pol.data() + (size_t)a * hidden, h.data(), hidden)
                                    + b_pol[a]);
            if (b >= 0)
                logit += (double)dot(w_pol.data() + (size_t)b * hidden, h.data(), hidden)
                         + (double)b_pol[b];
            priors[i] = logit;
            if (logit > top) top = logit;
        }
        double total = 0.0;
        for (int i = 0; i < n; i++) { priors[i] = std::exp(priors[i] - top); total += priors[i]; }
        for (int i = 0; i < n; i++) priors[i] /= total;
        return value;
    }
};

#pragma GCC pop_options

using Floats = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<float> flat(const Floats& a) { return std::vector<float>(a.data(), a.data() + a.size()); }

// (out, in) to (in, out)
std::vector<float> transposed(const Floats& a) {
    if (a.ndim() != 2) throw std::invalid_argument("a layer's weights are a matrix");
    int out = (int)a.shape(0), in = (int)a.shape(1);
    std::vector<float> t((size_t)in * out);
    const float* d = a.data();
    for (int o = 0; o < out; o++)
        for (int i = 0; i < in; i++) t[(size_t)i * out + o] = d[(size_t)o * in + i];
    return t;
}

// From NumpyGuide's arrays: w_in (features, hidden), the body's (out, in) layers, the policy
// (policy, hidden), value1 (value_hidden, hidden), value2 (value_hidden).
std::shared_ptr<Net> make_net(const Floats& w_in, const Floats& b_in,
                              const std::vector<std::pair<Floats, Floats>>& body,
                              const Floats& w_pol, const Floats& b_pol, const Floats& w_v1,
                              const Floats& b_v1, const Floats& w_v2, double b_v2) {
    auto net = std::make_shared<Net>();
    net->features = (int)w_in.shape(0);
    net->hidden = (int)w_in.shape(1);
    net->policy = (int)w_pol.shape(0);
    net->value_hidden = (int)w_v1.shape(0);
    net->w_in = flat(w_in);
    net->b_in = flat(b_in);
    for (auto& layer : body) {
        net->body_t.push_back(transposed(layer.first));
        net->body_b.push_back(flat(layer.second));
    }
    net->w_pol = flat(w_pol);
    net->b_pol = flat(b_pol);
    net->v1_t = transposed(w_v1);
    net->b_v1 = flat(b_v1);
    net->w_v2 = flat(w_v2);
    net->b_v2 = b_v2;
    return net;
}

// search.GNode. A node's children are one contiguous run of nodes (made at once by expand).
struct GNode {
    int move, seat;
    double prior;
    int visits = 0;
    double value = 0.0;
    int first = -1, n = 0;  // children: nodes [first, first + n), once expanded
    int to_move = -1, chance = -1;
    int outcomes = -1;  // index into GuidedSearch::outs_ (a chance node's, by first sight)
    int snap = -1;      // index into GuidedSearch::snaps_ (an outcome's state)
    int hits = 0;
};
struct Outcome { std::vector<int8_t> key; int node; };

// search.reveal_key
void reveal_key(const State& s, std::vector<int8_t>& out) {
    out.clear();
    if (s.step != WONDER_SELECTION)
        for (int slot = 0; slot < 20; slot++) {
            int card = s.pyramid[slot];
            if (card < 0) out.push_back(-1);
            else if ((s.face_up >> slot) & 1) out.push_back((int8_t)card);
            else out.push_back(D.cards[card].color == PURPLE ? -3 : -2);
        }
    out.push_back(-9);
    int8_t lib[10];
    int nl = s.library.n;
    for (int i = 0; i < nl; i++) lib[i] = s.library[i];
    std::sort(lib, lib + nl);
    out.insert(out.end(), lib, lib + nl);
    out.push_back(-9);
    if (s.step == WONDER_SELECTION) {
        int8_t w[8];
        int nw = s.wonders_available.n;
        for (int i = 0; i < nw; i++) w[i] = s.wonders_available[i];
        std::sort(w, w + nw);
        out.insert(out.end(), w, w + nw);
    }
}

// search.reveals
bool reveals(int before_step, int before_age, uint32_t before_up, int before_pick,
             int before_library, const State& s) {
    if (s.step == GAME_END) return false;
    if (before_step == WONDER_SELECTION)
        return s.step != WONDER_SELECTION || (before_pick < 4 && 4 <= s.draft_pick);
    if (s.age != before_age) return true;
    if (s.step == CHOOSE_LIBRARY_TOKEN && before_library == 0) return true;
    return s.face_up != before_up;
}

// redeal.redeal, in place on a copy. The draft's round-1 branch (round 2's wonders drawn
// again) cannot be reached from the search: an outcome's state is taken after a reveal, and
// the draft's first reveal is its fourth pick; it is refused rather than approximated (the
// native state does not carry the wonders out of the game, which that branch shuffles).
void redeal(State& s, MT& rng) {
    bool draft = s.step == WONDER_SELECTION;
    int age = s.age;
    Bits seen = s.players[0].built;
    seen.lo |= s.players[1].built.lo;
    seen.hi |= s.players[1].built.hi;
    for (int i = 0; i < s.discard.n; i++) seen.set(s.discard[i]);
    int plain[20], np = 0, gslots[20], ng = 0;
    for (int slot = 0; slot < 20; slot++) {
        int card = s.pyramid[slot];
        if (card < 0) continue;
        if (!draft && ((s.face_up >> slot) & 1)) seen.set(card);
        else if (D.cards[card].color == PURPLE) gslots[ng++] = slot;
        else plain[np++] = slot;
    }
    int unseen[32], nu = 0, guilds[8], ngu = 0;
    for (int i = 0; i < D.n_age_cards[age - 1]; i++) {
        int c = D.age_cards[age - 1][i];
        if (!seen.has(c)) unseen[nu++] = c;
    }
    for (int i = 0; i < D.n_guilds; i++)
        if (!seen.has(D.guild_cards[i])) guilds[ngu++] = D.guild_cards[i];
    rng.shuffle(unseen, nu);
    rng.shuffle(guilds, ngu);
    for (int i = 0; i < np; i++) s.pyramid[plain[i]] = (int8_t)unseen[--nu];
    for (int i = 0; i < ng; i++) s.pyramid[gslots[i]] = (int8_t)guilds[--ngu];
    for (int i = 0; i < 20; i++) s.ages[age - 1][i] = s.pyramid[i];
    int g0 = 0;  // guilds[g0:ngu] remain
    for (int a = age + 1; a <= 3; a++) {
        int cards[32], n = D.n_age_cards[a - 1];
        for (int i = 0; i < n; i++) cards[i] = D.age_cards[a - 1][i];
        rng.shuffle(cards, n);
        if (a == 2) {
            for (int i = 0; i < 20; i++) s.ages[1][i] = (int8_t)(i < n ? cards[i] : -1);
        } else {
            int lay[20], nl = 0;
            for (int i = 0; i < 17 && i < n; i++) lay[nl++] = cards[i];
            for (int i = 0; i < 3 && g0 + i < ngu; i++) lay[nl++] = guilds[g0 + i];
            rng.shuffle(lay, nl);
            for (int i = 0; i < 20; i++) s.ages[2][i] = (int8_t)(i < nl ? lay[i] : -1);
            g0 += 3;
        }
    }
    int box[10], nb = s.tokens_box.n;
    for (int i = 0; i < nb; i++) box[i] = s.tokens_box[i];
    rng.shuffle(box, nb);
    for (int i = 0; i < nb; i++) s.tokens_box[i] = (int8_t)box[i];
    if (draft && s.draft_pick < 4)
        throw std::logic_error("redeal in the draft's first round (not reached by the search)");
}

class GuidedSearch {
public:
    GuidedSearch(const State& tmpl, std::vector<std::pair<int, bool>> hidden,
                 std::vector<std::vector<int>> pools, std::vector<int> guild_pool,
                 std::vector<int> box_pool, std::vector<int> wonder_pool, bool open_box,
                 const std::vector<int>& moves, const std::vector<double>& priors,
                 double root_value, double c, double fpu, int cap, double mix, double epsilon,
                 py::dict layout, py::object evaluate)
        : info_(make_info(tmpl, std::move(hidden), std::move(pools), std::move(guild_pool),
                          std::move(box_pool), std::move(wonder_pool))),
          open_box_(open_box), c_(c), fpu_(fpu), cap_(cap), mix_(mix), mast_(epsilon),
          L_(layout_of(layout)), evaluate_(std::move(evaluate)) {
        if (moves.empty() || moves.size() != priors.size())
            throw std::invalid_argument("a root needs its moves and their priors");
        // The agent's root: expanded in Python (visits 1, the network's value), seat the mover.
        int mover = info_.tmpl.current;
        nodes_.reserve(1 << 16);
        nodes_.push_back(GNode{-1, mover, 1.0});
        nodes_[0].visits = 1;
        nodes_[0].value = root_value;
        nodes_[0].to_move = mover;
        nodes_[0].first = 1;
        nodes_[0].n = (int)moves.size();
        for (size_t i = 0; i < moves.size(); i++) nodes_.push_back(GNode{moves[i], mover, priors[i]});
    }

    void start(const std::vector<uint32_t>& words) { rng_ = mt_of(words); }
    // The network in C++ from now on instead of the callback (native=2).
    void use_net(std::shared_ptr<Net> net) { net_ = std::move(net); }
    std::vector<uint32_t> words() const { return rng_.words(); }

    // GuidedAgent._puct's loop: simulations until `limit` (if > 0) or the deadline (checked
    // every 8, as there). Returns the simulations done.
    long run(long limit, double seconds) {
        auto deadline = after(seconds);
        long done = 0;
        while (true) {
            if (limit && done >= limit) break;
            if (seconds > 0 && (done & 7) == 0 && done && std::chrono::steady_clock::now() >= deadline)
                break;
            sample(info_, rng_, state_);
            simulate(state_, -1);
            done++;
        }
        return done;
    }

    // One phase of GuidedAgent._gumbel: `count` rounds over the root children `alive`
    // (indices), or with `timed` rounds until `seconds` have passed (one at least).
    long sweep(const std::vector<int>& alive, long count, double seconds, bool timed) {
        for (int i : alive)
            if (i < 0 || i >= nodes_[0].n) throw std::out_of_range("no such root move");
        auto deadline = after(seconds);
        long done = 0;
        if (results_.empty()) results_.assign(nodes_[0].n, Result{});
        int seat = info_.tmpl.current;
        for (long k = 0; timed || k < count; k++) {
            for (int i : alive) {
                sample(info_, rng_, state_);
                double value0 = simulate(state_, 1 + i);
                // The analyser's _Stats.add, in the same order of operations (its --guide).
                double result = seat == 0 ? value0 : 1.0 - value0;
                Result& r = results_[i];
                r.visits += 1;
                r.total += result;
                r.squares += result * result;
                done++;
            }
            if (timed && std::chrono::steady_clock::now() >= deadline) break;
        }
        return done;
    }

    // The root's (visits, value) and each child's (visits, value), in the moves' order.
    py::tuple stats() const {
        py::list kids;
        const GNode& r = nodes_[0];
        for (int i = r.first; i < r.first + r.n; i++)
            kids.append(py::make_tuple(nodes_[i].visits, nodes_[i].value));
        return py::make_tuple(r.visits, r.value, kids);
    }

    // Each root move's (simulations swept below it, sum of their results, sum of squares),
    // the results from the root mover's side: the analyser's figures (duel/analysis/guided.py).
    py::list results() const {
        py::list out;
        for (int i = 0; i < nodes_[0].n; i++) {
            Result r = i < (int)results_.size() ? results_[i] : Result{};
            out.append(py::make_tuple(r.visits, r.total, r.squares));
        }
        return out;
    }

    // For the tests: the features and policy slots the tree hands the network for a state.
    py::tuple features(const State& s) {
        encode(L_, s, open_box_, feats_);
        std::vector<int> slots;
        int legal[MAX_MOVES], n = s.legal(legal);
        if (s.step != GAME_END)
            for (int i = 0; i < n; i++) move_slots(L_, s, legal[i], slots);
        return py::make_tuple(feats_.idx, feats_.val, slots);
    }

private:
    // search.expand: the network through Python; the mover's value.
    double expand(int node, const State& s) {
        int legal[MAX_MOVES], n = s.legal(legal);
        encode(L_, s, open_box_, feats_);
        slots_.clear();
        for (int i = 0; i < n; i++) move_slots(L_, s, legal[i], slots_);
        double value;
        if (net_) {
            value = net_->evaluate(feats_.idx, feats_.val, slots_, priors_);
        } else {
            py::tuple out = evaluate_(feats_.idx, feats_.val, slots_);
            value = out[0].cast<double>();
            priors_ = out[1].cast<std::vector<double>>();
        }
        const std::vector<double>& priors = priors_;
        if ((int)priors.size() != n) throw std::runtime_error("the evaluator gave wrong priors");
        int mover = s.current, first = (int)nodes_.size();
        for (int i = 0; i < n; i++) nodes_.push_back(GNode{legal[i], mover, priors[i]});
        GNode& x = nodes_[node];
        x.to_move = mover;
        x.first = first;
        x.n = n;
        return value;
    }

    // search.select (PUCT with first-play urgency)
    int select(int node) const {
        const GNode& x = nodes_[node];
        double own = x.visits ? x.value / x.visits : 0.5;
        double first = (x.seat == x.to_move ? own : 1.0 - own) - fpu_;
        double scale = c_ * std::sqrt((double)x.visits);
        int best = x.first;
        double best_s = -1e9;
        for (int i = x.first; i < x.first + x.n; i++) {
            const GNode& ch = nodes_[i];
            int n = ch.visits;
            double q = n ? ch.value / n : first;
            double s = q + scale * ch.prior / (1 + n);
            if (s > best_s) { best_s = s; best = i; }
        }
        return best;
    }

    // search.simulate from the root (node 0); `forced`: the root child to take, or -1.
    double simulate(State& s0, int forced) {
        path_.clear();
        path_.push_back(0);
        State* s = &s0;
        int node = 0;
        double value0 = 0.5;
        while (true) {
            if (s->step == GAME_END) { value0 = s->points(0); break; }
            if (nodes_[node].first < 0) {
                double value = expand(node, *s);
                if (mix_ > 0) value = (1.0 - mix_) * value + mix_ * rollout_value(*s);
                value0 = s->current == 0 ? value : 1.0 - value;
                break;
            }
            int child = forced >= 0 && node == 0 ? forced : select(node);
            int step = s->step, age = s->age, pick = s->draft_pick, library = s->library.n;
            uint32_t up = s->face_up;
            s->play(nodes_[child].move);
            path_.push_back(child);
            if (nodes_[child].chance < 0)
                nodes_[child].chance = reveals(step, age, up, pick, library, *s) ? 1 : 0;
            if (nodes_[child].chance == 1) {
                node = outcome(child, s);
                path_.push_back(node);
            } else {
                node = child;
            }
        }
        for (int n : path_) {
            GNode& x = nodes_[n];
            x.visits += 1;
            x.value += x.seat == 0 ? value0 : 1.0 - value0;
        }
        return value0;
    }

    // search._outcome: the outcome node for what *s revealed, or (the cap reached) one drawn
    // by its hits, with *s pointed at a redealt copy of its stored state.
    int outcome(int child, State*& s) {
        if (nodes_[child].outcomes < 0) {
            nodes_[child].outcomes = (int)outs_.size();
            outs_.emplace_back();
        }
        reveal_key(*s, key_);
        {
            auto& list = outs_[nodes_[child].outcomes];
            for (auto& o : list)
                if (o.key == key_) { nodes_[o.node].hits += 1; return o.node; }
            if (cap_ <= 0 || (int)list.size() < cap_) {
                int id = (int)nodes_.size();
                nodes_.push_back(GNode{nodes_[child].move, nodes_[child].seat, 1.0});
                nodes_[id].hits = 1;
                if (cap_ > 0) {
                    nodes_[id].snap = (int)snaps_.size();
                    snaps_.push_back(*s);
                }
                list.push_back(Outcome{key_, id});
                return id;
            }
        }
        const auto& list = outs_[nodes_[child].outcomes];
        long total = 0;
        for (auto& o : list) total += nodes_[o.node].hits;
        double x = rng_.random() * total;
        int chosen = -1;
        for (auto& o : list) {
            chosen = o.node;
            x -= nodes_[o.node].hits;
            if (x < 0) break;
        }
        redealt_ = snaps_[nodes_[chosen].snap];
        redeal(redealt_, rng_);
        s = &redealt_;
        return chosen;
    }

    // search._rollout: a MAST rollout's result for the mover of `s` (untouched).
    double rollout_value(const State& s) {
        int mover = s.current;
        roll_ = s;
        rollout(roll_, rng_, MAST, 0.75, &mast_);
        double r0 = roll_.points(0);
        mast_.learn(r0, 1.0 - r0);
        return mover == 0 ? r0 : 1.0 - r0;
    }

    Info info_;
    bool open_box_;
    double c_, fpu_;
    int cap_;
    double mix_;
    Mast mast_;
    Layout L_;
    py::object evaluate_;
    std::shared_ptr<Net> net_;
    std::vector<double> priors_;
    MT rng_;
    std::vector<GNode> nodes_;
    std::vector<std::vector<Outcome>> outs_;
    std::vector<State> snaps_;
    std::vector<int> path_, slots_;
    struct Result { long visits = 0; double total = 0.0, squares = 0.0; };
    std::vector<Result> results_;  // per root move, filled by sweep()
    std::vector<int8_t> key_;
    Features feats_;
    State state_, redealt_, roll_;
};

}  // namespace duel_guided

static void bind_guided(py::module_& m) {
    using duel_guided::GuidedSearch;
    using duel_guided::Net;
    py::class_<Net, std::shared_ptr<Net>>(m, "Net", "the guide's network in C++ (guided.h)")
        .def(py::init(&duel_guided::make_net))
        .def("evaluate", [](Net& net, const std::vector<int>& idx, const std::vector<double>& val,
                            const std::vector<int>& slots) {
            std::vector<double> priors;
            double value = net.evaluate(idx, val, slots, priors);
            return py::make_tuple(value, priors);
        })
        .def_readonly("evaluations", &Net::evaluations);
    py::class_<GuidedSearch>(m, "GuidedSearch", "the guided search's tree (guided.cpp)")
        .def(py::init<const State&, std::vector<std::pair<int, bool>>,
                      std::vector<std::vector<int>>, std::vector<int>, std::vector<int>,
                      std::vector<int>, bool, const std::vector<int>&,
                      const std::vector<double>&, double, double, double, int, double, double,
                      py::dict, py::object>())
        .def("start", &GuidedSearch::start)
        .def("use_net", &GuidedSearch::use_net)
        .def("words", &GuidedSearch::words)
        .def("run", &GuidedSearch::run)
        .def("sweep", &GuidedSearch::sweep)
        .def("results", &GuidedSearch::results)
        .def("stats", &GuidedSearch::stats)
        .def("features", &GuidedSearch::features);
}
