// A driver that lets duel's agents play whole games against indjev99/7-Wonders-Duel-AI's
// AgentMctsBlindReveals, compiled against a checkout of that repository by `duel bench
// versus-indjev99` (duel/bench/yardstick/bridge.py). Only this driver is duel's; the engine and
// its search are that repository's, unchanged.
//
//   driver play SECONDS SEED SEAT
//
// keeps their GameState and one AgentMctsBlindReveals (default MCConfig, secsPerMove = SECONDS)
// playing their player SEAT (0 or 1), and speaks one line at a time on stdin/stdout. duel's side
// is the game (every reveal) and the other player (its moves); it never sends anything their game
// has not asked for, so their agent learns a hidden card only when the game turns it face up.
//
//   driver -> duel                       duel -> driver
//   ready                                (nothing)
//   reveal TYPE ARG2                     TYPE ARG1 ARG2   the reveal their game expects
//   move ACTOR                           TYPE ARG1 ARG2   duel's seat's move
//   act TYPE ARG1 ARG2 SIMS SECONDS      (nothing)        their agent's move, its simulations
//   state ...                            (nothing)        after every player move (below)
//   end RESULT                           (nothing)        getResult(0) once the game is over
//   error MESSAGE                        (nothing)        then exit status 1
//
// A state line: "state PLY AGE COINS0 COINS1 MILITARY0 MILITARY1 TAKEN TERMINAL N0 IDS... N1
// IDS..." where TAKEN is the bitmask of pyramid slots already taken (-1 before Age I) and IDS
// are the object ids each player has built (looting tokens left out: duel shows them as flags).
// An incoming action that is not one of getPossibleActions() is never applied: the driver says
// which action at which ply and exits 1.
#include "agents/agent_mcts_blind_reveals.h"
#include "agents/game_simulator.h"
#include "game/game_state.h"
#include "utils/random.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static int ply = 0;  // player moves applied so far

[[noreturn]] static void fail(const std::string& message) {
    std::cout << "error " << message << std::endl;
    std::cerr << message << std::endl;
    std::exit(1);
}

static std::string describe(const Action& a) {
    std::ostringstream out;
    out << a.type << " " << a.arg1 << " " << a.arg2;
    return out.str();
}

static Action readAction(const GameState& game) {
    std::string line;
    if (!std::getline(std::cin, line)) fail("input closed at ply " + std::to_string(ply));
    std::istringstream in(line);
    Action a;
    if (!(in >> a.type >> a.arg1 >> a.arg2)) {
        fail("unreadable action '" + line + "' at ply " + std::to_string(ply));
    }
    const std::vector<Action>& possible = game.getPossibleActions();
    if (std::find(possible.begin(), possible.end(), a) == possible.end()) {
        fail("illegal action " + describe(a) + " at ply " + std::to_string(ply) +
             " (expected type " + std::to_string(game.getExpectedAction().type) + ", " +
             std::to_string(possible.size()) + " possible)");
    }
    return a;
}

static void apply(GameState& game, const Action& a) {
    try {
        game.doAction(a);
    } catch (const std::exception& e) {
        fail("their engine refused " + describe(a) + " at ply " + std::to_string(ply) + ": " +
             e.what());
    }
}

static void printState(const GameState& game) {
    std::ostringstream out;
    long taken = -1;
    if (game.getCurrAge() >= 0) {
        taken = 0;
        for (int pos = 0; pos < PYRAMID_SIZE; pos++) {
            if (game.getPyramidSlot(pos).objectId == OBJ_NONE) taken |= 1L << pos;
        }
    }
    out << "state " << ply << " " << game.getCurrAge() << " " << game.getCoins(0) << " "
        << game.getCoins(1) << " " << game.getMilitary(0) << " " << game.getMilitary(1) << " "
        << taken << " " << (game.isTerminal() ? 1 : 0);
    for (int player = 0; player < NUM_PLAYERS; player++) {
        std::vector<int> built;
        const PlayerState& p = game.getPlayerState(player);
        for (int id = 0; id < NUM_OBJECTS; id++) {
            if (p.objectsBuilt[id] && objects[id].type != OT_LOOTING) built.push_back(id);
        }
        out << " " << built.size();
        for (int id : built) out << " " << id;
    }
    std::cout << out.str() << std::endl;
}

int main(int argc, char** argv) {
    if (argc != 5 || std::string(argv[1]) != "play") {
        std::fprintf(stderr, "usage: %s play SECONDS SEED SEAT\n", argv[0]);
        return 2;
    }
    const double seconds = std::atof(argv[2]);
    setSeed(std::atoi(argv[3]));
    const int seat = std::atoi(argv[4]);
    if (seat != 0 && seat != 1) fail("SEAT must be 0 or 1");

    GameState game;
    game.reset();
    MCConfig config;
    config.secsPerMove = seconds;
    AgentMctsBlindReveals agent(config);
    agent.setGame(game);  // the agent reads the live game, as GameRunner's listeners do
    agent.setPlayer(seat);

    std::cout << "ready" << std::endl;
    while (!game.isTerminal()) {
        const int actor = game.getCurrActor();
        if (actor == ACTOR_GAME) {
            const Action expected = game.getExpectedAction();
            std::cout << "reveal " << expected.type << " " << expected.arg2 << std::endl;
            apply(game, readAction(game));
            continue;
        }
        Action a;
        if (actor == seat) {
            const long long before = totalNumSims;
            const auto start = std::chrono::steady_clock::now();
            a = agent.getAction();
            const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
            const std::vector<Action>& possible = game.getPossibleActions();
            if (std::find(possible.begin(), possible.end(), a) == possible.end()) {
                fail("their agent chose an impossible action " + describe(a) + " at ply " +
                     std::to_string(ply));
            }
            std::cout << "act " << describe(a) << " " << (totalNumSims - before) << " "
                      << spent.count() << std::endl;
        } else {
            std::cout << "move " << actor << std::endl;
            a = readAction(game);
        }
        apply(game, a);
        ply++;
        printState(game);
    }
    std::cout << "end " << game.getResult(0) << std::endl;
    return 0;
}
