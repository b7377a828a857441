// ISMCTS in C++: a transcription of duel/agents/mcts.py's MCTSAgent.search (iterate, rollout,
// Mast, outcome) and duel/engine/infoset.py's InfoSet.sample, drawing the same numbers from
// the same generator, so that a seeded search with an iteration budget grows the same tree
// and reports the same root statistics as the Python search (tests/agents/test_native_mcts.py).
// The tree kept between a seat's decisions (MCTSAgent's reuse=1: find_subtree, public_key and
// _kept) is found, detached and pruned here as there, so a seeded game is the Python one's.
#include "search.h"

#include <pybind11/stl.h>

#include <memory>

#include <chrono>
#include <cmath>
#include <vector>

#include "engine.h"

namespace py = pybind11;
using namespace duel;

namespace {

// InfoSet: the template and the pools of what the view does not show.
struct Info {
    State tmpl;
    std::vector<std::pair<int, bool>> hidden;  // (slot, guild back?)
    std::vector<int> age_pools[3], guild_pool, box_pool, wonder_pool;
};

// InfoSet.sample: the same shuffles in the same order (the parts of the deal the rules never
// read, wonders out and cards removed, are not drawn as lists, but their draws are the same).
void sample(const Info& info, MT& rng, State& s) {
    const State& t = info.tmpl;
    s = t;
    int pools[3][32], np[3];
    for (int a = 0; a < 3; a++) {
        np[a] = (int)info.age_pools[a].size();
        for (int i = 0; i < np[a]; i++) pools[a][i] = info.age_pools[a][i];
    }
    int guilds[8], ng = (int)info.guild_pool.size();
    for (int i = 0; i < ng; i++) guilds[i] = info.guild_pool[i];
    int g0 = 0;  // guilds[g0:ng] remain
    rng.shuffle(guilds, ng);
    for (int a = 0; a < 3; a++) rng.shuffle(pools[a], np[a]);
    int age = t.age;
    if (t.step != WONDER_SELECTION)
        for (auto& h : info.hidden)
            s.pyramid[h.first] = (int8_t)(h.second ? guilds[--ng] : pools[age - 1][--np[age - 1]]);
    int first_future = t.step == WONDER_SELECTION ? 1 : age + 1;
    for (int a = first_future; a <= 3; a++) {
        if (a < 3) {
            for (int i = 0; i < 20; i++) s.ages[a - 1][i] = (int8_t)(i < np[a - 1] ? pools[a - 1][i] : -1);
        } else {
            int cards[20], n = 0;
            for (int i = 0; i < 17 && i < np[2]; i++) cards[n++] = pools[2][i];
            for (int i = 0; i < 3 && g0 + i < ng; i++) cards[n++] = guilds[g0 + i];
            rng.shuffle(cards, n);
            for (int i = 0; i < 20; i++) s.ages[2][i] = (int8_t)(i < n ? cards[i] : -1);
            g0 += 3;
        }
    }
    int box[10], nb = (int)info.box_pool.size();
    for (int i = 0; i < nb; i++) box[i] = info.box_pool[i];
    rng.shuffle(box, nb);
    s.tokens_box.clear();
    for (int i = 0; i < nb; i++) s.tokens_box.push((int8_t)box[i]);
    int unseen[12], nu = (int)info.wonder_pool.size();
    for (int i = 0; i < nu; i++) unseen[i] = info.wonder_pool[i];
    rng.shuffle(unseen, nu);
    for (int i = 0; i < 4; i++)
        s.wonder_draft[i] = (int8_t)(i < t.wonders_available.n ? t.wonders_available[i] : -1);
    bool round2 = t.step == WONDER_SELECTION && t.draft_pick < 4;
    for (int i = 0; i < 4; i++) s.wonder_draft[4 + i] = (int8_t)(round2 && i < nu ? unseen[i] : -1);
    if (t.step == WONDER_SELECTION) s.lay_out(1);
}

// mcts.mast_key: a block of 100 a move kind, then the card, wonder, token or player.
inline int mast_key(const State& s, int m) {
    int kind = move_kind(m), block = 100 * kind;
    if (kind == CONSTRUCT_BUILDING || kind == DISCARD) return block + s.pyramid[move_a(m)];
    if (kind == CONSTRUCT_WONDER) return block + move_b(m);
    return block + move_a(m);
}
constexpr int MAST_KEYS = 900;

// `mean` holds total / count (1.0 for a key never played), divided once when a key learns
// rather than for every move of every rollout ply that asks (the same quotient, so the same
// bits as the Python's `total[k] / n`).
struct Mast {
    double epsilon;
    std::vector<double> total, count, mean;
    std::vector<int> trail;
    explicit Mast(double e)
        : epsilon(e), total(2 * MAST_KEYS, 0.0), count(2 * MAST_KEYS, 0.0),
          mean(2 * MAST_KEYS, 1.0) {}
    int best(const State& s, const int* moves, int n, int seat) const {
        int best = moves[0];
        double best_v = -1.0;
        for (int i = 0; i < n; i++) {
            double v = mean[mast_key(s, moves[i]) * 2 + seat];
            if (v > best_v) { best_v = v; best = moves[i]; }
        }
        return best;
    }
    void learn(double r0, double r1) {
        for (int k : trail) { total[k] += (k & 1) ? r1 : r0; count[k] += 1.0; }
        for (int k : trail) mean[k] = total[k] / count[k];
        trail.clear();
    }
};

enum Policy { UNIFORM, HEURISTIC, MAST };

void rollout(State& s, MT& rng, int policy, double bias, Mast* mast) {
    int moves[MAX_MOVES];
    if (policy == UNIFORM) {
        while (s.step != GAME_END) {
            int n = s.legal(moves);
            s.play(moves[(int)(rng.random() * n)]);
        }
        return;
    }
    while (s.step != GAME_END) {
        int n = s.legal(moves);
        if (mast) {
            int seat = s.current, move;
            if (rng.random() >= mast->epsilon) move = mast->best(s, moves, n, seat);
            else move = moves[(int)(rng.random() * n)];
            mast->trail.push_back(mast_key(s, move) * 2 + seat);
            s.play(move);
            continue;
        }
        int move = moves[(int)(rng.random() * n)];
        if (move_kind(move) == DISCARD && rng.random() < bias) {
            int others[MAX_MOVES], no = 0;
            for (int i = 0; i < n; i++) if (move_kind(moves[i]) != DISCARD) others[no++] = moves[i];
            if (no) move = others[(int)(rng.random() * no)];
        }
        s.play(move);
    }
}

// mcts.Node, split in two for the selection loop's memory traffic: a node's children are one
// contiguous block of edges (move, child, and the child's visits, availability and reward),
// in insertion order (a dict's), so UCB reads them side by side instead of chasing a sibling
// list through the whole tree (perf: the list walk was a tenth of the search's time). A block
// is sized at first expansion to the moves then legal and moved to a block twice as large
// when a sample's other moves fill it.
struct Edge {
    int move, node, visits = 0, avail = 1;
    double reward = 0.0;  // from the seat of the child's mover
};
struct Node { int parent, slot, seat, block = -1, count = 0, cap = 0; };

struct Tree {
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    Tree(size_t expected) {
        nodes.reserve(expected + 1);
        edges.reserve(2 * expected + 64);
        nodes.push_back(Node{-1, -1, -1});  // the root: no seat, nothing credited to it
    }
    // A new child of `node` for `move`, made by `seat`, last in the node's children; `hint`:
    // how many children the node may come to have (a first block's size).
    int add(int node, int move, int seat, int hint) {
        int id = (int)nodes.size();
        Node& p = nodes[node];
        if (p.count == p.cap) {
            int cap = std::max(std::max(hint, 2), 2 * p.cap), block = (int)edges.size();
            edges.resize(edges.size() + cap);
            for (int i = 0; i < p.count; i++) edges[block + i] = edges[p.block + i];
            p.block = block;
            p.cap = cap;
        }
        edges[p.block + p.count] = Edge{move, id};
        int slot = p.count++;
        nodes.push_back(Node{node, slot, seat});
        return id;
    }
};
// age_tree: the descent stops where the next Age starts (MCTSAgent's tree="age").
struct Params {
    int iterations; double seconds, c; int policy; double bias, margin, epsilon; bool age_tree;
};

std::pair<double, double> outcome(const State& s, double margin) {
    double r0 = s.points(0);
    if (margin != 0.0) {
        double diff = s.score(0).total - s.score(1).total;
        double bonus = margin * std::max(-1.0, std::min(1.0, diff / 20.0));
        r0 = (1 - margin) * r0 + 0.5 * margin + 0.5 * bonus;
    }
    return {r0, 1.0 - r0};
}

// A node's children by move: one pass over its child list marks each child's move in a table
// indexed by move (stamped, so nothing needs clearing), then each legal move is one look-up.
// (Searching the list for every legal move was quadratic at the root: ~30 x 30.)
struct ChildIndex {
    std::vector<int> child, stamp;
    int epoch = 0;
    ChildIndex() : child(1 << 16, -1), stamp(1 << 16, 0) {}
    void mark(const Tree& tree, int node);
    int find(int move) const { return stamp[move] == epoch ? child[move] : -1; }  // an edge
};

void ChildIndex::mark(const Tree& tree, int node) {
    epoch++;
    const Node& n = tree.nodes[node];
    for (int e = n.block; e < n.block + n.count; e++) {
        int move = tree.edges[e].move;
        child[move] = e;
        stamp[move] = epoch;
    }
}

// mcts.iterate below `start` (the root for the agent's search; a root move's child for the
// analyser's, which plays that move itself): the seats' rewards.
std::pair<double, double> iterate(Tree& tree, State& s, MT& rng, const Params& p, Mast* mast,
                                  ChildIndex& index, int start = 0) {
    int node = start, legal[MAX_MOVES], kids[MAX_MOVES], untried[MAX_MOVES];
    const int tree_age = p.age_tree ? s.age : 0;  // the Age the tree may grow in (0: every Age)
    while (s.step != GAME_END && (tree_age == 0 || s.age == tree_age)) {
        int n = s.legal(legal), nu = 0;
        index.mark(tree, node);
        for (int i = 0; i < n; i++) {
            kids[i] = index.find(legal[i]);
            if (kids[i] < 0) untried[nu++] = legal[i];
        }
        if (nu) {
            int move = untried[(int)(rng.random() * nu)];
            int id = tree.add(node, move, s.current, n);
            if (mast) mast->trail.push_back(mast_key(s, move) * 2 + s.current);
            s.play(move);
            node = id;
            break;
        }
        int best = -1;
        double best_v = -1.0;
        for (int i = 0; i < n; i++) {
            Edge& ch = tree.edges[kids[i]];
            ch.avail += 1;
            double v = ch.reward / ch.visits
                       + p.c * std::sqrt(std::log((double)ch.avail) / ch.visits);
            if (v > best_v) { best_v = v; best = kids[i]; }
        }
        const Edge& chosen = tree.edges[best];
        if (mast) mast->trail.push_back(mast_key(s, chosen.move) * 2 + s.current);
        s.play(chosen.move);
        node = chosen.node;
    }
    rollout(s, rng, p.policy, p.bias, mast);
    auto r = outcome(s, p.margin);
    if (mast) mast->learn(r.first, r.second);
    // The backup, to the root's children (the root's own count is the iterations done).
    for (int n = node; tree.nodes[n].parent >= 0; n = tree.nodes[n].parent) {
        const Node& x = tree.nodes[n];
        Edge& e = tree.edges[tree.nodes[x.parent].block + x.slot];
        e.visits += 1;
        e.reward += x.seat ? r.second : r.first;
    }
    return r;
}

// The InfoSet from its parts, priced once: every sample has the template's cities, so its
// prices, and each sample then starts with the table filled (prices depend on the cities
// alone).
Info make_info(const State& tmpl, std::vector<std::pair<int, bool>> hidden,
               std::vector<std::vector<int>> pools, std::vector<int> guild_pool,
               std::vector<int> box_pool, std::vector<int> wonder_pool) {
    if (pools.size() != 3) throw std::invalid_argument("an information set has 3 Age pools");
    Info info{tmpl, std::move(hidden), {pools[0], pools[1], pools[2]}, std::move(guild_pool),
              std::move(box_pool), std::move(wonder_pool)};
    for (int seat = 0; seat < 2; seat++) {
        for (int card = 0; card < D.n_cards; card++) info.tmpl.card_price(seat, card);
        for (int w = 0; w < N_WONDERS; w++) info.tmpl.wonder_price(seat, w);
    }
    return info;
}

MT mt_of(const std::vector<uint32_t>& words) {
    if (words.size() != 625) throw std::invalid_argument("a generator state is 625 words");
    MT rng;
    rng.set_words(words);
    return rng;
}

std::chrono::steady_clock::time_point after(double seconds) {
    return std::chrono::steady_clock::now()
           + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

// MCTSAgent.search: grow `kept` (a tree from the last decision, its root this position's) or
// a fresh root for the budget; the root children's (move, visits, reward) in the order they
// were expanded, the iterations done, the generator's state after, and the tree (for reuse).
py::tuple search(std::shared_ptr<Tree> kept, const State& tmpl,
                 std::vector<std::pair<int, bool>> hidden, std::vector<std::vector<int>> pools,
                 std::vector<int> guild_pool, std::vector<int> box_pool,
                 std::vector<int> wonder_pool, std::vector<uint32_t> words, int iterations,
                 double seconds, double c, int policy, double bias, double margin,
                 double epsilon, bool age_tree) {
    Info info = make_info(tmpl, std::move(hidden), std::move(pools), std::move(guild_pool),
                          std::move(box_pool), std::move(wonder_pool));
    MT rng = mt_of(words);
    Params p{iterations, seconds, c, policy, bias, margin, epsilon, age_tree};
    std::shared_ptr<Tree> tree =
        kept ? kept : std::make_shared<Tree>(iterations > 0 ? iterations : 1 << 16);
    Mast mast_table(epsilon);
    Mast* mast = policy == MAST ? &mast_table : nullptr;
    int done = 0;
    {
        py::gil_scoped_release release;
        auto deadline = after(seconds);
        State s;
        ChildIndex index;
        while (true) {
            if (iterations && done >= iterations) break;
            if (seconds > 0 && (done & 7) == 0 && done && std::chrono::steady_clock::now() >= deadline)
                break;
            sample(info, rng, s);
            iterate(*tree, s, rng, p, mast, index);
            done++;
        }
    }
    py::list children;
    const Node& root = tree->nodes[0];
    for (int e = root.block; e < root.block + root.count; e++)
        children.append(py::make_tuple(tree->edges[e].move, tree->edges[e].visits,
                                       tree->edges[e].reward));
    return py::make_tuple(children, done, rng.words(), tree);
}

// ---- Tree reuse: mcts.public_key, find_subtree and MCTSAgent._kept.

// The sorted values of a list (public_key compares discard, tokens and wonders as sets).
template <class V> std::vector<int> sorted_of(const V& v) {
    std::vector<int> out(v.v, v.v + v.n);
    std::sort(out.begin(), out.end());
    return out;
}

// public_key(a) == public_key(b): the facts both players see, face-down cards aside.
bool same_public(const State& a, const State& b) {
    if (a.step != b.step || a.age != b.age || a.current != b.current
        || a.military != b.military || a.loot != b.loot || a.draft_pick != b.draft_pick
        || a.wonders_built != b.wonders_built || a.play_again != b.play_again)
        return false;
    for (int slot = 0; slot < 20; slot++)
        if ((a.pyramid[slot] >= 0) != (b.pyramid[slot] >= 0)) return false;
    if (sorted_of(a.discard) != sorted_of(b.discard)
        || sorted_of(a.tokens_board) != sorted_of(b.tokens_board)
        || sorted_of(a.wonders_available) != sorted_of(b.wonders_available))
        return false;
    for (int seat = 0; seat < 2; seat++) {
        const Player &x = a.players[seat], &y = b.players[seat];
        if (x.coins != y.coins || x.built.lo != y.built.lo || x.built.hi != y.built.hi
            || x.tokens != y.tokens || x.wonders.n != y.wonders.n
            || x.wonder_age.n != y.wonder_age.n)
            return false;
        for (int i = 0; i < x.wonders.n; i++)
            if (x.wonders[i] != y.wonders[i]) return false;
        for (int i = 0; i < x.wonder_age.n; i++)
            if (x.wonder_age[i] != y.wonder_age[i]) return false;
    }
    return true;
}

// find_subtree: the node below `node` (reached by `s`, a sample of its position) whose
// position is `key`'s in public, following only the moves of the seat other than `me`.
int find_subtree(const Tree& tree, int node, const State& s, const State& key, int me,
                 int depth) {
    if (same_public(s, key)) return node;
    if (depth == 0 || s.step == GAME_END || s.current == me) return -1;
    int legal[MAX_MOVES];
    int n = s.legal(legal);
    const Node& x = tree.nodes[node];
    for (int e = x.block; e < x.block + x.count; e++) {
        int move = tree.edges[e].move;
        if (std::find(legal, legal + n, move) == legal + n) continue;
        State after = s;
        after.play(move);
        int found = find_subtree(tree, tree.edges[e].node, after, key, me, depth - 1);
        if (found >= 0) return found;
    }
    return -1;
}

// The subtree below `node` as a tree of its own, each node's children in their order, the
// root's pruned to the moves `legal` (those not in it are dropped with their subtrees).
std::shared_ptr<Tree> detach(const Tree& from, int node, const std::vector<int>& legal) {
    auto to = std::make_shared<Tree>(from.nodes.size());
    std::vector<std::pair<int, int>> todo{{node, 0}};  // (node in `from`, its copy in `to`)
    while (!todo.empty()) {
        auto [old, copy] = todo.back();
        todo.pop_back();
        const Node& o = from.nodes[old];
        for (int e = o.block; e < o.block + o.count; e++) {
            const Edge& edge = from.edges[e];
            if (old == node && std::find(legal.begin(), legal.end(), edge.move) == legal.end())
                continue;
            int id = to->add(copy, edge.move, from.nodes[edge.node].seat, o.cap);
            const Node& c = to->nodes[copy];
            Edge& kept = to->edges[c.block + c.count - 1];
            kept.visits = edge.visits;
            kept.avail = edge.avail;
            kept.reward = edge.reward;
            todo.push_back({edge.node, id});
        }
    }
    if (to->nodes[0].count == 0) return nullptr;
    return to;
}

// MCTSAgent._remember then _kept: the root's child for `move` (the move chosen), followed
// from `after` (a sample of the position after it) through the opponent's moves to the node
// whose position is `key`'s in public, detached and pruned to `legal`; None when there is
// none, or when nothing legal now is below it.
std::shared_ptr<Tree> keep(const Tree& tree, int move, const State& after, const State& key,
                           const std::vector<int>& legal) {
    const Node& root = tree.nodes[0];
    for (int e = root.block; e < root.block + root.count; e++) {
        if (tree.edges[e].move != move) continue;
        int child = tree.edges[e].node;
        int found = find_subtree(tree, child, after, key, tree.nodes[child].seat, 4);
        if (found < 0) return nullptr;
        return detach(tree, found, legal);
    }
    return nullptr;
}

// The visits of the root's children: what a kept tree's choice stands on ("reused").
long root_visits(const Tree& tree) {
    const Node& root = tree.nodes[0];
    long total = 0;
    for (int e = root.block; e < root.block + root.count; e++) total += tree.edges[e].visits;
    return total;
}

// The analyser's search below its root (duel/analysis/search.py, _sweep): one subtree per
// legal move, each grown by mcts.iterate after the move is played on a fresh sample, with one
// MAST table for the decision. The sequential halving that decides which moves are swept stays
// in Python (duel.analysis.search._rounds): it calls sweep() once a round with the moves still
// in, and reads each move's figures back between rounds. The generator lives here from
// construction to words(), drawing what the Python sweeps would draw.
class Sweeper {
public:
    Sweeper(const State& tmpl, std::vector<std::pair<int, bool>> hidden,
            std::vector<std::vector<int>> pools, std::vector<int> guild_pool,
            std::vector<int> box_pool, std::vector<int> wonder_pool,
            const std::vector<uint32_t>& words, std::vector<int> moves, double c, int policy,
            double bias, double epsilon, int reserve)
        : info_(make_info(tmpl, std::move(hidden), std::move(pools), std::move(guild_pool),
                          std::move(box_pool), std::move(wonder_pool))),
          rng_(mt_of(words)), p_{0, 0.0, c, policy, bias, 0.0, epsilon, false}, mast_(epsilon),
          moves_(std::move(moves)), visits_(moves_.size(), 0), total_(moves_.size(), 0.0),
          squares_(moves_.size(), 0.0), seat_(info_.tmpl.current),
          tree_((size_t)std::max(0, reserve) + moves_.size()) {
        if (moves_.empty()) throw std::invalid_argument("nothing to analyse: no legal move");
        // One child of the root per move, made by the move's seat, in the order given: node
        // i + 1 is moves[i]'s subtree.
        for (int m : moves_) tree_.add(0, m, seat_, (int)moves_.size());
    }

    // _sweep `count` times over the moves `alive` (indices into the moves), or, with
    // `seconds` > 0, until that many seconds have passed (one sweep at least), as _rounds's
    // loop does with a time budget. Returns the iterations run.
    long sweep(const std::vector<int>& alive, int count, double seconds) {
        for (int i : alive)
            if (i < 0 || i >= (int)moves_.size()) throw std::out_of_range("no such root move");
        long done = 0;
        py::gil_scoped_release release;
        auto deadline = after(seconds);
        for (int k = 0; seconds > 0 || k < count; k++) {
            for (int i : alive) {
                sample(info_, rng_, state_);
                state_.play(moves_[i]);
                auto r = iterate(tree_, state_, rng_, p_, p_.policy == MAST ? &mast_ : nullptr,
                                 index_, i + 1);
                double result = seat_ ? r.second : r.first;
                // _Stats.add, in the same order of operations.
                visits_[i] += 1;
                total_[i] += result;
                squares_[i] += result * result;
            }
            done += (long)alive.size();
            if (seconds > 0 && std::chrono::steady_clock::now() >= deadline) break;
        }
        return done;
    }

    // Every move's (visits, sum of results, sum of their squares), in the moves' order.
    py::list stats() const {
        py::list out;
        for (size_t i = 0; i < moves_.size(); i++)
            out.append(py::make_tuple(visits_[i], total_[i], squares_[i]));
        return out;
    }

    std::vector<uint32_t> words() const { return rng_.words(); }

private:
    Info info_;
    MT rng_;
    Params p_;
    Mast mast_;
    std::vector<int> moves_;
    std::vector<long> visits_;
    std::vector<double> total_, squares_;
    int seat_;
    Tree tree_;
    ChildIndex index_;
    State state_;
};

}  // namespace

#include "guided.h"

void bind_search(py::module_& m) {
    bind_guided(m);
    py::class_<Tree, std::shared_ptr<Tree>>(m, "Tree", "a search's tree, kept for reuse")
        .def("root_visits", &root_visits)
        .def("size", [](const Tree& t) { return t.nodes.size(); });
    m.def("search", &search, "MCTSAgent.search (duel/native/search.cpp)", py::arg("kept").none(true),
          py::arg("tmpl"), py::arg("hidden"), py::arg("pools"), py::arg("guild_pool"),
          py::arg("box_pool"), py::arg("wonder_pool"), py::arg("words"), py::arg("iterations"),
          py::arg("seconds"), py::arg("c"), py::arg("policy"), py::arg("bias"),
          py::arg("margin"), py::arg("epsilon"), py::arg("age_tree"));
    m.def("keep", &keep, "MCTSAgent._kept: the subtree for the next decision, or None");
    py::class_<Sweeper>(m, "Sweeper", "the analyser's search below its root (search.cpp)")
        .def(py::init<const State&, std::vector<std::pair<int, bool>>,
                      std::vector<std::vector<int>>, std::vector<int>, std::vector<int>,
                      std::vector<int>, const std::vector<uint32_t>&, std::vector<int>, double,
                      int, double, double, int>())
        .def("sweep", &Sweeper::sweep)
        .def("stats", &Sweeper::stats)
        .def("words", &Sweeper::words);
}
