// A driver for indjev99/7-Wonders-Duel-AI's engine, compiled against a checkout of it by
// `duel bench yardstick` (duel/bench/yardstick/__init__.py): the public C++ engine as a
// yardstick for duel's native core, measured in the same run on the same machine. Only this
// driver is duel's; the engine and its search are that repository's, unchanged.
//
//   driver random SECONDS SEED   uniform random games from a fresh deal (reset, then a uniformly
//                                random one of getPossibleActions() for every actor, the game's
//                                reveals included) until SECONDS of process CPU time have passed
//   driver mcts SECONDS SEED     AgentMctsBlindReveals (its default MCConfig) choosing the first
//                                move of a fresh game for SECONDS of wall time
// Each prints one line: "<rate per CPU second> <count> <cpu seconds>".
#include "agents/agent_mcts_blind_reveals.h"
#include "agents/game_simulator.h"
#include "game/game_state.h"
#include "utils/random.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

static double cpu() { return (double) std::clock() / CLOCKS_PER_SEC; }

// Plays the game actor's reveals at random until a player is to move (the deal), as
// RevealerUniform does in its GameRunner.
template <class G>
static void deal(G& game) {
    while (!game.isTerminal() && game.getCurrActor() == ACTOR_GAME) {
        game.doAction(uniformElem(game.getPossibleActions()));
    }
}

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s random|mcts SECONDS SEED\n", argv[0]);
        return 2;
    }
    const double seconds = std::atof(argv[2]);
    setSeed(std::atoi(argv[3]));
    if (std::strcmp(argv[1], "random") == 0) {
        GameStateFast game;
        long games = 0;
        const double start = cpu();
        while (cpu() - start < seconds) {
            for (int k = 0; k < 100; k++) {
                game.reset();
                while (!game.isTerminal()) {
                    game.doAction(uniformElem(game.getPossibleActions()));
                }
                games++;
            }
        }
        const double spent = cpu() - start;
        std::printf("%.1f %ld %.3f\n", games / spent, games, spent);
        return 0;
    }
    if (std::strcmp(argv[1], "mcts") == 0) {
        GameState game;
        game.reset();
        deal(game);
        MCConfig config;
        config.secsPerMove = seconds;
        AgentMctsBlindReveals agent(config);
        agent.setGame(game);
        agent.setPlayer(game.getCurrActor());
        const long long before = totalNumSims;
        const double start = cpu();
        agent.getAction();
        const double spent = cpu() - start;
        const long long sims = totalNumSims - before;
        std::printf("%.1f %lld %.3f\n", sims / spent, sims, spent);
        return 0;
    }
    std::fprintf(stderr, "unknown figure %s\n", argv[1]);
    return 2;
}
